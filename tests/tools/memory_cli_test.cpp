// The learned memory through the real binary on a headless desktop (issue
// 18): each verb its own process, so what is remembered crosses processes
// and restarts.
//   (c) a target taught on a window without accessibility (Tk) is found by
//       `find` first after uiscope and the app restart with the window
//       200 px away;
//   (d) 5 clicks on a check box raise its hit count and confidence; a click
//       with no effect records a miss;
//   (e) `memory forget` leaves no byte of a taught label in the files;
//   (f) a password field's content and a deny-listed app never reach the
//       store.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "support/desktop_fixture.h"

namespace uiscope {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

CliRun RunCli(const std::string& args) {
  std::string env = "env -u AT_SPI_BUS_ADDRESS";
  for (const auto& [k, v] : test::TestDesktop::Shared().Environment()) {
    env += " " + k + "='" + v + "'";
  }
  const std::string err_file = test::TestStateDir() + "/memory-cli-stderr.txt";
  const std::string cmd = env + " " UISCOPE_CLI " " + args + " 2>" + err_file;
  CliRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (FILE* f = fopen(err_file.c_str(), "r")) {
    while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) r.err.append(buf.data(), n);
    fclose(f);
  }
  return r;
}

std::string MemoryPath() { return test::TestStateDir() + "/memory.db"; }

// Every byte of the learned memory's files.
std::string MemoryBytes() {
  std::string all;
  for (const char* suffix : {"", "-wal", "-journal"}) {
    std::ifstream in(MemoryPath() + suffix, std::ios::binary);
    all.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return all;
}

// The exported target of `app` with `label`, or null.
json ExportedTarget(const std::string& app, const std::string& label) {
  CliRun r = RunCli("memory export " + app + " --json");
  if (r.exit_code != 0) return nullptr;
  json j = json::parse(r.out, nullptr, false);
  for (const json& sig : j["signatures"]) {
    for (const json& t : sig["targets"]) {
      if (t["label"] == label) return t;
    }
  }
  return nullptr;
}

class MemoryCliDesktopTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(test::TestDesktop::Shared().ok()); }
};

bool HaveTk() { return std::system("/usr/bin/python3 -c 'import tkinter' 2>/dev/null") == 0; }

std::unique_ptr<Process> LaunchTk(const std::string& title, const std::string& place) {
  SpawnOptions options;
  options.argv = {"/usr/bin/python3", std::string(UISCOPE_NOA11Y_FIXTURES) + "/tk_app.py", title,
                  place};
  auto tk = test::TestDesktop::Shared().Launch(options);
  if (tk == nullptr) return nullptr;
  const bool shown = test::WaitUntil(
      [&] { return RunCli("windows").out.find(title) != std::string::npos; }, milliseconds(10000));
  return shown ? std::move(tk) : nullptr;
}

// The window's bounds as `observe --app uiscope-tk --format json` gives them.
json TkWindow(const std::string& title) {
  CliRun r = RunCli("observe --app uiscope-tk --format json");
  json j = json::parse(r.out, nullptr, false);
  if (j.is_discarded()) return nullptr;
  for (const json& app : j["nodes"]) {
    for (const json& w : app["children"]) {
      if (w["name"] == title) return w;
    }
  }
  return nullptr;
}

TEST_F(MemoryCliDesktopTest, ATaughtTargetIsFoundAfterRestartsAndAMove) {
  if (!HaveTk()) GTEST_SKIP() << "python3-tk is not installed (scripts/deps.sh installs it)";
  const std::string title = "memory-tk";
  auto tk = LaunchTk(title, "+60+60");
  ASSERT_NE(tk, nullptr);
  json window = TkWindow(title);
  ASSERT_FALSE(window.is_null());
  const int wx = window["bounds"]["x"], wy = window["bounds"]["y"];
  // The fixture's label: centred, 40 px below the top (tk_app.py).
  const std::string at = std::to_string(wx + 180) + "," + std::to_string(wy + 53);
  CliRun taught = RunCli("teach 'Tk greeting' --at " + at + " --size 260x30 --role label --json");
  ASSERT_EQ(taught.exit_code, 0) << taught.err;
  json t = json::parse(taught.out);
  EXPECT_EQ(t["toolkit"], "x11");
  EXPECT_TRUE(t["target"].contains("visual_hash")) << taught.out;
  const std::string id = t["target"]["id"];

  // The app restarts 200 px to the right; every uiscope call is a new process.
  ::kill(tk->pid(), SIGKILL);
  (void)tk->Wait(milliseconds(5000));
  tk = LaunchTk(title, "+260+60");
  ASSERT_NE(tk, nullptr);
  json moved = TkWindow(title);
  ASSERT_FALSE(moved.is_null());
  ASSERT_EQ(moved["bounds"]["x"].get<int>(), wx + 200) << moved.dump();

  CliRun found = RunCli("find 'Tk greeting' --json");
  ASSERT_EQ(found.exit_code, 0) << found.err;
  json f = json::parse(found.out);
  ASSERT_FALSE(f["matches"].empty());
  const json& top = f["matches"][0];
  EXPECT_EQ(top["id"], id);
  EXPECT_EQ(top["source"], "learned");
  EXPECT_EQ(top["bounds"]["x"].get<int>(), wx + 200 + 180 - 130) << found.out;
  EXPECT_EQ(top["click_point"]["x"].get<int>(), wx + 200 + 180) << found.out;

  // Not there any more (another window of the same title and app shows
  // other pixels): not shown as found, and not reliable enough to be shown
  // stale.
  ::kill(tk->pid(), SIGKILL);
  (void)tk->Wait(milliseconds(5000));
  EXPECT_TRUE(test::WaitUntil(
      [&] { return RunCli("windows").out.find(title) == std::string::npos; }, milliseconds(5000)));
  EXPECT_NE(RunCli("find 'Tk greeting'").exit_code, 0);
}

TEST_F(MemoryCliDesktopTest, ClicksRecordHitsAndMisses) {
  auto fixture = test::TestDesktop::Shared().LaunchFixture({"--name", "memory-cli"});
  ASSERT_NE(fixture, nullptr);
  ASSERT_TRUE(
      test::WaitUntil([&] { return RunCli("find 'Remember me' --app memory-cli").exit_code == 0; },
                      milliseconds(10000)));
  CliRun id_run = RunCli("find 'Remember me' --exact --app memory-cli --role check_box --json");
  const std::string box = json::parse(id_run.out)["matches"][0]["id"];
  json before = ExportedTarget("memory-cli", "Remember me");
  ASSERT_FALSE(before.is_null()) << "observing learned it";
  for (int i = 0; i < 5; ++i) {
    CliRun click = RunCli("click " + box + " --json");
    ASSERT_EQ(click.exit_code, 0) << click.err;
    ASSERT_EQ(json::parse(click.out)["effect"], "observed") << click.out;
  }
  json after = ExportedTarget("memory-cli", "Remember me");
  ASSERT_FALSE(after.is_null());
  EXPECT_EQ(after["hits"].get<int>(), before["hits"].get<int>() + 5);
  EXPECT_GT(after["confidence"].get<double>(), before["confidence"].get<double>());
  EXPECT_EQ(after["misses"].get<int>(), 0);

  CliRun label = RunCli("find 'Email' --exact --app memory-cli --role label --json");
  const std::string email = json::parse(label.out)["matches"][0]["id"];
  CliRun inert = RunCli("click " + email + " --settle-ms 800 --json");
  ASSERT_EQ(inert.exit_code, 0) << inert.err;
  ASSERT_EQ(json::parse(inert.out)["effect"], "none") << inert.out;
  json missed = ExportedTarget("memory-cli", "Email");
  ASSERT_FALSE(missed.is_null());
  EXPECT_EQ(missed["misses"].get<int>(), 1);
  EXPECT_EQ(missed["hits"].get<int>(), 0);
}

TEST_F(MemoryCliDesktopTest, ForgetRemovesEveryTraceAndSecretsNeverArrive) {
  auto fixture = test::TestDesktop::Shared().LaunchFixture({"--name", "memory-forget"});
  ASSERT_NE(fixture, nullptr);
  ASSERT_TRUE(
      test::WaitUntil([&] { return RunCli("find Login --app memory-forget").exit_code == 0; },
                      milliseconds(10000)));
  // (f) The password field's content: typed into the app, observed often.
  const std::string secret = "Qz9-secret-Wombat";
  ASSERT_TRUE(test::FixtureCommand(*fixture, "set-password " + secret).ok());
  for (int i = 0; i < 3; ++i) ASSERT_EQ(RunCli("observe --app memory-forget").exit_code, 0);
  json login = ExportedTarget("memory-forget", "Login");
  ASSERT_FALSE(login.is_null()) << "the app was learned";
  EXPECT_EQ(MemoryBytes().find(secret), std::string::npos);
  CliRun exported = RunCli("memory export memory-forget --json");
  // Named: a range-for over a member of a temporary outlives the temporary.
  const json exported_json = json::parse(exported.out);
  for (const json& sig : exported_json.value("signatures", json::array())) {
    for (const json& t : sig["targets"]) EXPECT_NE(t["label"], "Password") << t.dump();
  }

  // (e) A label taught in the app, then forgotten.
  const std::string label = "Unforgettable-Marmot-4417";
  CliRun windows = RunCli("observe --app memory-forget --format json");
  json j = json::parse(windows.out);
  const json& w = j["nodes"][0]["children"][0]["bounds"];
  const std::string at =
      std::to_string(w["x"].get<int>() + 40) + "," + std::to_string(w["y"].get<int>() + 40);
  ASSERT_EQ(RunCli("teach '" + label + "' --at " + at).exit_code, 0);
  ASSERT_NE(MemoryBytes().find(label), std::string::npos);
  CliRun forget = RunCli("memory forget memory-forget");
  ASSERT_EQ(forget.exit_code, 0) << forget.err;
  EXPECT_EQ(MemoryBytes().find(label), std::string::npos);
  EXPECT_EQ(MemoryBytes().find("memory-forget"), std::string::npos);
  EXPECT_EQ(RunCli("memory show memory-forget").exit_code, 1);
  EXPECT_EQ(RunCli("memory forget").exit_code, 2);

  // (f) A deny-listed app is never indexed.
  const std::string config = test::TestStateDir() + "/memory-deny.json";
  std::ofstream(config) << R"({"deny_apps": ["memory-forget"]})";
  ASSERT_EQ(RunCli("observe --config " + config).exit_code, 0);
  ASSERT_EQ(RunCli("find Login --config " + config).exit_code, 1);
  EXPECT_EQ(MemoryBytes().find("memory-forget"), std::string::npos);
  // Learning limited to other apps: not indexed either.
  std::ofstream(config) << R"({"memory": {"apps": ["some-other-app"]}})";
  ASSERT_EQ(RunCli("observe --app memory-forget --config " + config).exit_code, 0);
  EXPECT_EQ(MemoryBytes().find("memory-forget"), std::string::npos);
  // Learning on: it is.
  ASSERT_EQ(RunCli("observe --app memory-forget").exit_code, 0);
  EXPECT_NE(MemoryBytes().find("memory-forget"), std::string::npos);
}

// Part 3 of issue 18, checked through the CLI: IDs across processes and app
// restarts (kept by the ID anchors of issue 15 and the deterministic IDs).
std::map<std::string, std::string> IdsByLabel(const json& nodes) {
  std::map<std::string, std::string> out;
  std::function<void(const json&)> walk = [&](const json& list) {
    for (const json& n : list) {
      if (n.contains("name") && n["source"] == "ax" && n["role"] != "application") {
        out[n["role"].get<std::string>() + ":" + n["name"].get<std::string>()] = n["id"];
      }
      if (n.contains("children")) walk(n["children"]);
    }
  };
  walk(nodes);
  return out;
}

TEST_F(MemoryCliDesktopTest, IdsSurviveANewTextAndAnAppRestartAcrossCliCalls) {
  auto fixture = test::TestDesktop::Shared().LaunchFixture({"--name", "memory-ids"});
  ASSERT_NE(fixture, nullptr);
  ASSERT_TRUE(test::WaitUntil([&] { return RunCli("find Login --app memory-ids").exit_code == 0; },
                              milliseconds(10000)));
  CliRun first = RunCli("observe --app memory-ids --format json");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::map<std::string, std::string> ids = IdsByLabel(json::parse(first.out)["nodes"]);
  auto status = test::FixtureCommand(*fixture, "status");
  ASSERT_TRUE(status.ok());
  const std::string status_id = ids.at("label:" + *status);
  // (a) Submit changes the status label's text; its ID stays, in another process.
  ASSERT_EQ(RunCli("click " + ids.at("button:Login")).exit_code, 0);
  auto changed = test::FixtureCommand(*fixture, "status");
  ASSERT_TRUE(changed.ok());
  ASSERT_NE(*changed, *status);
  CliRun second = RunCli("observe --app memory-ids --format json");
  const std::map<std::string, std::string> after = IdsByLabel(json::parse(second.out)["nodes"]);
  EXPECT_EQ(after.at("label:" + *changed), status_id) << second.out;
  CliRun by_old_id = RunCli("click " + status_id + " --settle-ms 200");
  EXPECT_EQ(by_old_id.exit_code, 0) << by_old_id.err;
  // (b) The app restarts: its unchanged widgets have the IDs they had.
  ::kill(fixture->pid(), SIGKILL);
  (void)fixture->Wait(milliseconds(5000));
  fixture = test::TestDesktop::Shared().LaunchFixture({"--name", "memory-ids"});
  ASSERT_NE(fixture, nullptr);
  ASSERT_TRUE(test::WaitUntil([&] { return RunCli("find Login --app memory-ids").exit_code == 0; },
                              milliseconds(10000)));
  CliRun third = RunCli("observe --app memory-ids --format json");
  const std::map<std::string, std::string> restarted = IdsByLabel(json::parse(third.out)["nodes"]);
  int compared = 0;
  for (const auto& [key, id] : ids) {
    if (key == "label:" + *status || !restarted.contains(key)) continue;
    EXPECT_EQ(restarted.at(key), id) << key;
    ++compared;
  }
  EXPECT_GT(compared, 10);
}

}  // namespace
}  // namespace uiscope
