// `uiscope mcp` as a client starts it: a real process on stdio. Without a
// DISPLAY it starts its own headless desktop on first need, says so, and
// stops it on the way out (shutdown, end of input or SIGTERM).
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdio>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "session/headless_desktop.h"
#include "session/process.h"
#include "support/desktop_fixture.h"

namespace uiscope {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

class McpProcess {
 public:
  // Without `desktop_env` the server has no DISPLAY and starts its own
  // desktop; with it, it serves that desktop.
  explicit McpProcess(std::vector<std::pair<std::string, std::string>> desktop_env = {}) {
    SpawnOptions options;
    options.argv = {UISCOPE_CLI, "mcp"};
    options.unset_env = {"DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS"};
    options.env = {{"UISCOPE_STATE_DIR", test::TestStateDir()}};
    for (auto& kv : desktop_env) options.env.push_back(std::move(kv));
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

// ID -> "role name" of every node of an observe tool result in json format.
std::map<std::string, std::string> IdsOf(const json& observed) {
  std::map<std::string, std::string> ids;
  std::function<void(const json&)> walk = [&](const json& nodes) {
    for (const json& n : nodes) {
      ids[n.value("id", "")] = n.value("role", "") + " \"" + n.value("name", "") + "\"";
      if (n.contains("children")) walk(n["children"]);
    }
  };
  walk(observed["result"]["structuredContent"]["nodes"]);
  return ids;
}

std::string Missing(const std::map<std::string, std::string>& want,
                    const std::map<std::string, std::string>& have) {
  std::string out;
  for (const auto& [id, what] : want) {
    if (!have.contains(id)) out += " " + id + " (" + what + ")";
  }
  return out;
}

// The ID anchors (issue 15 §4) through the protocol: one MCP server keeps
// its IDs while the window is retitled and a label gets new text, a server
// started afterwards (no previous snapshot) gives the same IDs, and the CLI
// on that desktop shares them both ways.
TEST(McpCliDesktopTest, IdsSurviveRetitleAndNewTextAndAreSharedWithServersAndTheCli) {
  test::TestDesktop& desktop = test::TestDesktop::Shared();
  ASSERT_TRUE(desktop.ok()) << desktop.error();
  auto fixture = desktop.LaunchFixture({"--name", "mcp-anchors"});
  ASSERT_NE(fixture, nullptr);
  const json observe_args = {{"format", "json"}, {"app", "mcp-anchors"}};
  int id = 1;
  auto observe = [&](McpProcess& mcp) {
    json r = mcp.Call(++id, "tools/call", {{"name", "observe"}, {"arguments", observe_args}});
    EXPECT_FALSE(r["result"].value("isError", true)) << r.dump();
    return IdsOf(r);
  };
  auto ask = [&](const std::string& command) {
    auto a = test::FixtureCommand(*fixture, command);
    return a.ok() ? *a : "error: " + a.error().message;
  };

  std::map<std::string, std::string> before;
  {
    McpProcess mcp(desktop.Environment());
    ASSERT_TRUE(mcp.process);
    mcp.Initialize();
    ASSERT_TRUE(test::WaitUntil([&] { return observe(mcp).size() > 10; },
                                std::chrono::milliseconds(10000)));
    before = observe(mcp);
    ASSERT_EQ(ask("title *Untitled - mcp-anchors"), "");
    ASSERT_EQ(ask("later 0 Logged in as typed"), "");
    std::map<std::string, std::string> after;
    ASSERT_TRUE(test::WaitUntil(
        [&] {
          after = observe(mcp);
          std::string seen;
          for (const auto& [k, what] : after) seen += what + "\n";
          return seen.find("*Untitled - mcp-anchors") != std::string::npos &&
                 seen.find("Logged in as typed") != std::string::npos;
        },
        std::chrono::milliseconds(10000)));
    EXPECT_EQ(Missing(before, after), "") << "IDs lost within one server";
    EXPECT_EQ(after.size(), before.size());
    EXPECT_EQ(mcp.Call(++id, "shutdown")["result"], json::object());
    EXPECT_TRUE(mcp.process->Wait(std::chrono::milliseconds(20000)).ok());
  }

  // A new server knows the objects only from the anchors on disk.
  McpProcess second(desktop.Environment());
  ASSERT_TRUE(second.process);
  second.Initialize();
  const auto again = observe(second);
  EXPECT_EQ(Missing(before, again), "") << "IDs lost across servers";

  // The CLI finds the same ID, and the server acts on it.
  std::string cli = "env -u AT_SPI_BUS_ADDRESS";
  for (const auto& [k, v] : desktop.Environment()) cli += " " + k + "='" + v + "'";
  cli += " UISCOPE_STATE_DIR='" + test::TestStateDir() + "' " UISCOPE_CLI
         " find 'Remember me' --exact --app mcp-anchors --role check_box --json";
  std::string out;
  if (FILE* p = popen(cli.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    pclose(p);
  }
  const json found = json::parse(out, nullptr, false);
  ASSERT_FALSE(found.is_discarded()) << out;
  const std::string remember = found["matches"][0]["id"];
  EXPECT_TRUE(before.contains(remember)) << remember;
  json click = second.Call(++id, "tools/call",
                           {{"name", "click"}, {"arguments", {{"target", remember}}}});
  EXPECT_FALSE(click["result"].value("isError", true)) << click.dump();
  EXPECT_EQ(ask("checked remember"), "1");
}

}  // namespace
}  // namespace uiscope
