// The `uiscope` command as scripts use it: exit codes, error messages, JSON
// output (DESIGN §11). Runs the real binary.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "support/desktop_fixture.h"

namespace uiscope {
namespace {

struct CliRun {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs the CLI through the shell with `env` prefixed (e.g. "env -u DISPLAY").
CliRun RunCli(const std::string& args, const std::string& env = "") {
  std::string err_file = test::TestStateDir() + "/cli-stderr.txt";
  std::string cmd = env + " " UISCOPE_CLI " " + args + " 2>" + err_file;
  CliRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (FILE* f = fopen(err_file.c_str(), "r")) {
    while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) r.err.append(buf.data(), n);
    fclose(f);
  }
  return r;
}

const char kNoDesktop[] = "env -u DISPLAY -u DBUS_SESSION_BUS_ADDRESS -u AT_SPI_BUS_ADDRESS";

TEST(CliTest, NoDisplayNamesSessionStartAndFails) {
  CliRun r = RunCli("observe", kNoDesktop);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("uiscope session start"), std::string::npos) << r.err;
}

TEST(CliTest, NoDisplayJsonErrorIsAnObject) {
  CliRun r = RunCli("observe --json", kNoDesktop);
  EXPECT_EQ(r.exit_code, 1);
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["error"]["code"], "unavailable");
}

TEST(CliTest, UsageErrorsExitTwo) {
  EXPECT_EQ(RunCli("observe --format xml", kNoDesktop).exit_code, 2);
  EXPECT_EQ(RunCli("observe --max-nodes -3", kNoDesktop).exit_code, 2);
  EXPECT_EQ(RunCli("no-such-verb", kNoDesktop).exit_code, 2);
  EXPECT_EQ(RunCli("", kNoDesktop).exit_code, 2);
  EXPECT_EQ(RunCli("session start --size 10x10", kNoDesktop).exit_code, 2);
}

TEST(CliTest, UnavailableSourcesAreSaidToBeAbsent) {
  CliRun r = RunCli("observe --sources ax,ocr", kNoDesktop);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not available"), std::string::npos) << r.err;
}

TEST(CliTest, StoppingAnUnknownSessionListsNone) {
  CliRun r = RunCli("session stop s999999", kNoDesktop);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("s999999"), std::string::npos) << r.err;
}

// --- Desktop -----------------------------------------------------------------

TEST(CliDesktopTest, SessionStartListStop) {
  CliRun start = RunCli("session start --json --size 1024x768", kNoDesktop);
  ASSERT_EQ(start.exit_code, 0) << start.err;
  auto s = nlohmann::json::parse(start.out);
  std::string id = s["id"];
  EXPECT_EQ(s["width"], 1024);
  EXPECT_TRUE(s["env"].contains("DISPLAY"));
  EXPECT_TRUE(s["env"].contains("DBUS_SESSION_BUS_ADDRESS"));

  CliRun list = RunCli("session list --json", kNoDesktop);
  ASSERT_EQ(list.exit_code, 0) << list.err;
  bool found = false;
  const auto listed = nlohmann::json::parse(list.out);
  for (const auto& e : listed["sessions"]) {
    if (e["id"] == id) {
      found = true;
      EXPECT_TRUE(e["alive"].get<bool>());
    }
  }
  EXPECT_TRUE(found) << list.out;

  // Human output: only shell assignments on stdout, so eval works.
  CliRun stop = RunCli("session stop " + id, kNoDesktop);
  EXPECT_EQ(stop.exit_code, 0) << stop.err;
  CliRun again = RunCli("session list --json", kNoDesktop);
  EXPECT_EQ(again.out.find("\"" + id + "\""), std::string::npos) << again.out;
}

TEST(CliDesktopTest, ObserveJsonOnTheFixture) {
  test::TestDesktop& desktop = test::TestDesktop::Shared();
  ASSERT_TRUE(desktop.ok()) << desktop.error();
  auto fixture = desktop.LaunchFixture({"--name", "cli-fixture"});
  ASSERT_NE(fixture, nullptr);
  std::string env = "env -u AT_SPI_BUS_ADDRESS";
  for (const auto& [k, v] : desktop.Environment()) env += " " + k + "='" + v + "'";

  CliRun r;
  ASSERT_TRUE(test::WaitUntil(
      [&] {
        r = RunCli("observe --app cli-fixture --format json", env);
        return r.exit_code == 0 && r.out.find("Login") != std::string::npos;
      },
      std::chrono::milliseconds(10000)))
      << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["frame"]["width"], 1920);
  EXPECT_EQ(j["frame"]["height"], 1080);
  EXPECT_GT(j["stats"]["ax_nodes"].get<int>(), 20);
  ASSERT_EQ(j["nodes"].size(), 1u);
  EXPECT_EQ(j["nodes"][0]["role"], "application");
  EXPECT_EQ(j["nodes"][0]["children"][0]["role"], "window");
  EXPECT_TRUE(j["nodes"][0]["children"][0]["bounds"].contains("w"));

  CliRun compact = RunCli("observe --app cli-fixture --max-nodes 5", env);
  EXPECT_EQ(compact.exit_code, 0);
  EXPECT_NE(compact.out.find("more nodes (cursor="), std::string::npos) << compact.out;

  CliRun unknown = RunCli("observe --app no-such-app", env);
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("cli-fixture"), std::string::npos) << unknown.err;
}

}  // namespace
}  // namespace uiscope
