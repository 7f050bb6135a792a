// `uiscope mcp` as a client starts it: a real process on stdio. Without a
// DISPLAY it starts its own headless desktop on first need, says so, and
// stops it on the way out (shutdown, end of input or SIGTERM).
#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>

#include "session/headless_desktop.h"
#include "session/process.h"
#include "support/desktop_fixture.h"

namespace uiscope {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

class McpProcess {
 public:
  McpProcess() {
    SpawnOptions options;
    options.argv = {UISCOPE_CLI, "mcp"};
    options.unset_env = {"DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS"};
    options.env = {{"UISCOPE_STATE_DIR", test::TestStateDir()}};
    options.capture_stdout = true;
    options.pipe_stdin = true;
    options.log_file = test::TestStateDir() + "/mcp-stderr.log";
    auto p = Process::Spawn(options);
    EXPECT_TRUE(p.ok()) << p.error().message;
    if (p.ok()) process = std::move(p).value();
  }

  // Sends a request and returns its reply, skipping notifications.
  json Call(int id, const std::string& method, json params = json::object()) {
    json request = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
    EXPECT_TRUE(process->WriteLine(request.dump()).ok());
    for (;;) {
      auto line = process->ReadLine(milliseconds(30000));
      if (!line.ok()) {
        ADD_FAILURE() << method << ": " << line.error().message << "\n"
                      << FileTail(test::TestStateDir() + "/mcp-stderr.log", 20);
        return json::object();
      }
      json m = json::parse(*line);
      if (m.contains("id") && m["id"] == id) return m;
    }
  }

  void Initialize() {
    json init = Call(1, "initialize",
                     {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()}});
    ASSERT_EQ(init["result"]["protocolVersion"], "2025-11-25") << init.dump();
    ASSERT_TRUE(
        process->WriteLine(R"({"jsonrpc":"2.0","method":"notifications/initialized"})").ok());
  }

  std::unique_ptr<Process> process;
};

int AliveSessions() {
  auto sessions = ListSessions();
  if (!sessions.ok()) return -1;
  int n = 0;
  for (const auto& s : *sessions) n += s.alive;
  return n;
}

TEST(McpCliDesktopTest, StartsItsOwnDesktopWithoutADisplayAndStopsIt) {
  test::TestStateDir();
  const int before = AliveSessions();
  McpProcess mcp;
  ASSERT_TRUE(mcp.process);
  mcp.Initialize();
  json observed = mcp.Call(2, "tools/call", {{"name", "observe"}, {"arguments", json::object()}});
  const json& result = observed["result"];
  ASSERT_FALSE(result["isError"].get<bool>()) << observed.dump();
  std::string text;
  for (const json& c : result["content"]) text += c["text"].get<std::string>() + "\n";
  EXPECT_NE(text.find("no DISPLAY was set, so uiscope started its own headless desktop"),
            std::string::npos)
      << text;
  ASSERT_EQ(result["structuredContent"]["notes"].size(), 1u);
  EXPECT_EQ(AliveSessions(), before + 1);

  // The note is said once: the second call reuses the desktop quietly.
  json again = mcp.Call(3, "tools/call", {{"name", "observe"}, {"arguments", json::object()}});
  EXPECT_FALSE(again["result"]["structuredContent"].contains("notes")) << again.dump();

  json bye = mcp.Call(4, "shutdown");
  EXPECT_EQ(bye["result"], json::object());
  auto code = mcp.process->Wait(milliseconds(20000));
  ASSERT_TRUE(code.ok());
  EXPECT_EQ(*code, 0);
  EXPECT_EQ(AliveSessions(), before) << "the server's desktop outlived it";
}

TEST(McpCliDesktopTest, SigtermStopsTheServerAndItsDesktop) {
  test::TestStateDir();
  const int before = AliveSessions();
  McpProcess mcp;
  ASSERT_TRUE(mcp.process);
  mcp.Initialize();
  json observed = mcp.Call(2, "tools/call", {{"name", "observe"}, {"arguments", json::object()}});
  ASSERT_FALSE(observed["result"]["isError"].get<bool>()) << observed.dump();
  ASSERT_EQ(AliveSessions(), before + 1);
  kill(mcp.process->pid(), SIGTERM);
  auto code = mcp.process->Wait(milliseconds(20000));
  ASSERT_TRUE(code.ok());
  EXPECT_EQ(*code, 0);
  EXPECT_EQ(AliveSessions(), before);
}

}  // namespace
}  // namespace uiscope
