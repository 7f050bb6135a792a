// What an agent cannot do with the CLI, whatever route it takes, and what a
// close never loses (one process per verb, as an agent's tool calls would
// run them, on headless desktops):
// - approve its own held actions: launching uiscope, a shell running it or
//   an interpreter is refused (R3); where a person allowed a shell, the
//   `uiscope confirm` it runs is refused as the agent's, even with its
//   environment cleared and its parent gone, while a person's approval
//   from outside goes through and is recorded as a person's;
// - `app close` and `session stop` of an app that asks "Save changes?":
//   left asking (exit 1, the question and its buttons printed) unless
//   --force.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "session/headless_desktop.h"
#include "session/process.h"
#include "support/desktop_fixture.h"

namespace uiscope {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using test::WaitUntil;

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

CliRun RunCli(const std::string& args, const std::string& env) {
  const std::string err_file = test::TestStateDir() + "/agent-cli-stderr.txt";
  const std::string cmd = env + " " UISCOPE_CLI " " + args + " 2>" + err_file;
  CliRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err(err_file);
  r.err.assign(std::istreambuf_iterator<char>(err), {});
  return r;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string EnvOf(const DesktopInfo& info, const std::string& config) {
  std::string env = "env -u AT_SPI_BUS_ADDRESS UISCOPE_CONFIG='" + config + "'";
  for (const auto& [k, v] : SessionEnvironment(info)) env += " " + k + "='" + v + "'";
  return env;
}

// Starts the "Save changes?" fixture in the session; waits for its window.
std::unique_ptr<Process> StartAsksToSave(const DesktopInfo& info, const std::string& title,
                                         bool dirty) {
  SpawnOptions spawn;
  spawn.argv = {"/usr/bin/python3", UISCOPE_ASKS_TO_SAVE, "--title", title};
  if (dirty) spawn.argv.push_back("--dirty");
  spawn.capture_stdout = true;
  spawn.log_file = info.runtime_dir + "/asks-" + title + ".log";
  auto app = SpawnInSession(info, spawn);
  if (!app.ok()) {
    ADD_FAILURE() << app.error().message;
    return nullptr;
  }
  auto ready = (*app)->ReadLine(milliseconds(20000));
  if (!ready.ok() || *ready != "ready") {
    ADD_FAILURE() << "the fixture did not get ready:" << FileTail(spawn.log_file, 20);
    return nullptr;
  }
  return std::move(app).value();
}

class AgentSafetyCliDesktopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(desktop().ok()) << desktop().error();
    config_ = test::TestStateDir() + "/agent-config.json";
  }
  static test::TestDesktop& desktop() { return test::TestDesktop::Shared(); }
  void WriteConfig(const std::string& text) { std::ofstream(config_) << text; }
  CliRun Run(const std::string& args) { return RunCli(args, EnvOf(desktop().info(), config_)); }

  // A held action's token: app_focus is held by confirm_tools.
  std::string HeldToken(int pid) {
    CliRun held = Run("app focus " + std::to_string(pid) + " --json");
    EXPECT_EQ(held.exit_code, 1) << held.out << held.err;
    const json j = json::parse(held.out, nullptr, false);
    EXPECT_EQ(j["decision"]["verdict"], "needs_confirmation") << held.out;
    return j["decision"].value("token", "");
  }

  std::string Status(const std::string& token) {
    CliRun list = Run("confirm --all --json");
    const json j = json::parse(list.out, nullptr, false);
    if (j.is_discarded()) return "unreadable: " + list.out + list.err;
    for (const json& c : j["confirmations"]) {
      if (c["token"] == token) return c["status"];
    }
    return "missing";
  }

  std::string config_;
};

TEST_F(AgentSafetyCliDesktopTest, AnAgentCannotLaunchItsWayToApprovingItsOwnActions) {
  WriteConfig(R"({"confirm_tools": ["app_focus"]})");
  auto app = StartAsksToSave(desktop().info(), "held-focus", false);
  ASSERT_NE(app, nullptr);
  const std::string token = HeldToken(app->pid());
  ASSERT_FALSE(token.empty());
  const std::string approve = std::string(UISCOPE_CLI) + " confirm " + token + " --approve";
  const std::string routes[] = {
      "--no-wait " + approve + " --grant 1000",
      "--no-wait sh -c '" + approve + "'",
      "--no-wait /bin/bash -c '" + approve + "'",
      "--no-wait env -i /bin/sh -c '" + approve + "'",
      "--no-wait python3 -c 'import os; os.system(\"" + approve + "\")'",
      "--no-wait perl -e 'system(\"" + approve + "\")'",
  };
  for (const std::string& route : routes) {
    CliRun launched = Run("app launch --json " + route);
    EXPECT_EQ(launched.exit_code, 1) << route << "\n" << launched.out << launched.err;
    const json j = json::parse(launched.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << route << ": " << launched.out << launched.err;
    EXPECT_FALSE(j["performed"].get<bool>()) << route;
    EXPECT_EQ(j["decision"]["rule"], "R3") << route;
  }
  EXPECT_EQ(Status(token), "pending");
}

// A person allowed shells; what a launched shell runs is still the agent's,
// with its environment cleared and, in the background, its parent gone.
TEST_F(AgentSafetyCliDesktopTest, AConfirmInAProcessUiscopeLaunchedIsTheAgents) {
  WriteConfig(R"({"confirm_tools": ["app_focus"], "launch_allow": ["sh", "uiscope", "env"]})");
  auto app = StartAsksToSave(desktop().info(), "held-by-shell", false);
  ASSERT_NE(app, nullptr);
  const std::string token = HeldToken(app->pid());
  ASSERT_FALSE(token.empty());
  const std::string dir = test::TestStateDir();
  const std::string clean_env = "env -i PATH=/usr/bin:/bin UISCOPE_STATE_DIR=" + dir +
                                " UISCOPE_CONFIG=" + config_ + " " + UISCOPE_CLI;
  // Directly, then from an orphan: the subshell's child outlives it and is
  // reparented to init, its environment cleared.
  const std::string direct = clean_env + " confirm " + token + " --approve --grant 1000 >" + dir +
                             "/direct.out 2>&1; echo $? >" + dir + "/direct.rc";
  const std::string orphan = "( (sleep 1; " + clean_env + " confirm " + token +
                             " --approve >" + dir + "/orphan.out 2>&1; echo $? >" + dir +
                             "/orphan.rc) & )";
  for (const std::string& script : {direct, orphan}) {
    CliRun launched = Run("app launch --no-wait --json sh -c '" + script + "'");
    ASSERT_EQ(launched.exit_code, 0) << launched.out << launched.err;
  }
  ASSERT_TRUE(WaitUntil([&] { return !ReadFile(dir + "/direct.rc").empty(); }, milliseconds(20000)));
  ASSERT_TRUE(WaitUntil([&] { return !ReadFile(dir + "/orphan.rc").empty(); }, milliseconds(20000)));
  for (const char* name : {"direct", "orphan"}) {
    EXPECT_EQ(ReadFile(dir + "/" + name + ".rc"), "1\n") << ReadFile(dir + "/" + name + ".out");
    EXPECT_NE(ReadFile(dir + "/" + name + ".out").find("started for the agent"), std::string::npos)
        << ReadFile(dir + "/" + name + ".out");
  }
  EXPECT_EQ(Status(token), "pending");

  // A person, from outside what uiscope started.
  CliRun person = Run("confirm " + token + " --approve --json");
  ASSERT_EQ(person.exit_code, 0) << person.err;
  const json decided = json::parse(person.out);
  EXPECT_EQ(decided["status"], "approved");
  EXPECT_NE(decided["decided_by"].get<std::string>().find("a person"), std::string::npos)
      << decided["decided_by"];
}

TEST_F(AgentSafetyCliDesktopTest, AppCloseLeavesAnAppAskingToSaveUnlessForced) {
  WriteConfig("{}");
  auto app = StartAsksToSave(desktop().info(), "unsaved-notes", true);
  ASSERT_NE(app, nullptr);
  const std::string pid = std::to_string(app->pid());
  CliRun asked = Run("app close " + pid + " --timeout-ms 8000");
  EXPECT_EQ(asked.exit_code, 1) << asked.out << asked.err;
  EXPECT_NE(asked.out.find("asking"), std::string::npos) << asked.out;
  EXPECT_NE(asked.out.find("Save changes?"), std::string::npos) << asked.out;
  for (const char* button : {"\"Save\"", "\"Cancel\"", "\"Close without saving\""}) {
    EXPECT_NE(asked.out.find(std::string("button ") + button + " btn_"), std::string::npos)
        << button << " in\n" << asked.out;
  }
  EXPECT_TRUE(PidAlive(app->pid())) << "the app was ended with its work unsaved";

  CliRun forced = Run("app close " + pid + " --force --json");
  EXPECT_EQ(forced.exit_code, 0) << forced.out << forced.err;
  const json j = json::parse(forced.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << forced.out;
  EXPECT_NE(j["stage"], "closed");
  EXPECT_TRUE(WaitUntil([&] { return !app->Running(); }, milliseconds(5000)));
  CliRun audit = Run("audit --tool app_close --json");
  EXPECT_NE(audit.out.find("\"force\":true"), std::string::npos) << audit.out;
}

TEST(SessionStopCliDesktopTest, SessionStopLeavesAnAppAskingToSaveUnlessForced) {
  test::TestStateDir();  // the registry: this test's own
  auto started = HeadlessDesktop::Start();
  ASSERT_TRUE(started.ok()) << started.error().message;
  (*started)->Detach();
  const DesktopInfo info = (*started)->info();
  auto app = StartAsksToSave(info, "session-notes", true);
  ASSERT_NE(app, nullptr);
  CliRun asked = RunCli("session stop " + info.id, "env");
  EXPECT_EQ(asked.exit_code, 1) << asked.out << asked.err;
  EXPECT_NE(asked.err.find("Save changes?"), std::string::npos) << asked.err;
  EXPECT_NE(asked.err.find("button \"Save\" btn_"), std::string::npos) << asked.err;
  EXPECT_TRUE(PidAlive(app->pid())) << "session stop ended an app with unsaved work";
  EXPECT_TRUE(PidAlive(info.xvfb_pid));

  CliRun forced = RunCli("session stop " + info.id + " --force", "env");
  EXPECT_EQ(forced.exit_code, 0) << forced.out << forced.err;
  EXPECT_TRUE(WaitUntil([&] { return !app->Running(); }, milliseconds(5000)));
  EXPECT_FALSE(PidAlive(info.xvfb_pid));
}

}  // namespace
}  // namespace uiscope
