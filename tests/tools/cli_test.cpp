// The `uiscope` command as scripts use it: exit codes, error messages, JSON
// output (DESIGN §11). Runs the real binary.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
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

// Failures exit 1 with a message that says what to do next.
TEST(CliTest, FailuresSayWhatToDo) {
  struct Case {
    const char* args;
    const char* says;
  };
  for (const Case& c : {Case{"observe", "uiscope session start"},
                        Case{"find Login --sources ax,vision", "uiscope session start"},
                        Case{"session stop s999999", "s999999"}}) {
    CliRun r = RunCli(c.args, kNoDesktop);
    EXPECT_EQ(r.exit_code, 1) << c.args;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << ": " << r.err;
  }
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

  CliRun stop = RunCli("session stop " + id, kNoDesktop);
  EXPECT_EQ(stop.exit_code, 0) << stop.err;
  CliRun again = RunCli("session list --json", kNoDesktop);
  EXPECT_EQ(again.out.find("\"" + id + "\""), std::string::npos) << again.out;
}

// Human output puts only shell assignments on stdout, so
// `eval "$(uiscope session start)"` works; the rest goes to stderr.
TEST(CliDesktopTest, SessionStartPrintsOnlyExportsOnStdout) {
  CliRun start = RunCli("session start --size 800x600", kNoDesktop);
  ASSERT_EQ(start.exit_code, 0) << start.err;
  std::istringstream lines(start.out);
  std::string line, display;
  int exports = 0;
  while (std::getline(lines, line)) {
    EXPECT_EQ(line.rfind("export ", 0), 0u) << line;
    exports += line.rfind("export ", 0) == 0;
    if (line.rfind("export DISPLAY='", 0) == 0) display = line.substr(16, line.size() - 17);
  }
  EXPECT_GE(exports, 2);
  EXPECT_NE(start.err.find("uiscope session stop"), std::string::npos) << start.err;
  CliRun list = RunCli("session list --json", kNoDesktop);
  const auto listed = nlohmann::json::parse(list.out);
  for (const auto& e : listed["sessions"]) {
    if (e["display_name"] == display) {
      EXPECT_EQ(RunCli("session stop " + e["id"].get<std::string>(), kNoDesktop).exit_code, 0);
    }
  }
}

TEST(CliDesktopTest, DemoShowsTheFixtureAndCleansUp) {
  CliRun r = RunCli("demo --json", kNoDesktop);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_NE(j["tree"].get<std::string>().find("[button \"Login\""), std::string::npos);
  EXPECT_GT(j["png_bytes"].get<int>(), 0);
  EXPECT_EQ(j["tree_chars"].get<size_t>(), j["tree"].get<std::string>().size());
  // The loop: type the email, tick the box, click Login; each verified.
  ASSERT_EQ(j["steps"].size(), 3u) << r.out;
  EXPECT_EQ(j["steps"][0]["via"], "xtest");
  for (const auto& step : j["steps"]) EXPECT_EQ(step["effect"], "observed") << step.dump();
  EXPECT_EQ(j["final_status"], "Logged in as ada@example.org");
  // The demo's session is gone.
  CliRun list = RunCli("session list --json", kNoDesktop);
  EXPECT_EQ(nlohmann::json::parse(list.out)["sessions"].size(), 0u) << list.out;
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

  // find: best match first, --json as the MCP tool's structuredContent, exit
  // 1 when nothing matches.
  CliRun login = RunCli("find login --app cli-fixture --role button", env);
  EXPECT_EQ(login.exit_code, 0) << login.err;
  EXPECT_EQ(login.out.rfind("[button \"Login\" id=btn_", 0), 0u) << login.out;
  CliRun login_json = RunCli("find Login --exact --app cli-fixture --json", env);
  ASSERT_EQ(login_json.exit_code, 0) << login_json.err;
  auto found = nlohmann::json::parse(login_json.out);
  EXPECT_EQ(found["total"], 1);
  EXPECT_EQ(found["matches"][0]["role"], "button");
  EXPECT_TRUE(found["matches"][0]["bounds"].contains("x"));
  EXPECT_TRUE(found["matches"][0].contains("click_point"));
  EXPECT_EQ(found["matches"][0]["confidence"], 1.0);
  CliRun none = RunCli("find 'no such label' --app cli-fixture", env);
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("No elements matching 'no such label' found"), std::string::npos)
      << none.err;
  EXPECT_EQ(RunCli("find x --role buton --app cli-fixture", env).exit_code, 2);
  // A typo in a short word is a suggestion, not a match.
  CliRun typo = RunCli("find Logn --app cli-fixture", env);
  EXPECT_EQ(typo.exit_code, 1);
  EXPECT_NE(typo.err.find("Similar: 'Login' (button)"), std::string::npos) << typo.err;
  CliRun typo_json = RunCli("find Logn --app cli-fixture --json", env);
  auto similar = nlohmann::json::parse(typo_json.out);
  EXPECT_FALSE(similar["found"].get<bool>());
  EXPECT_EQ(similar["similar"][0]["name"], "Login");

  // Vision: the painted canvas controls join the tree and can be found.
  CliRun seen = RunCli("observe --app cli-fixture --sources ax,ocr,vision --format json", env);
  ASSERT_EQ(seen.exit_code, 0) << seen.err;
  auto tree = nlohmann::json::parse(seen.out);
  EXPECT_GE(tree["stats"]["vision_nodes"].get<int>(), 6) << seen.out;
  EXPECT_GT(tree["stats"]["merged_nodes"].get<int>(), 5) << seen.out;
  EXPECT_NE(seen.out.find("\"source\":\"vision\""), std::string::npos);
  CliRun apply = RunCli("find apply --app cli-fixture --sources ax,vision --json", env);
  ASSERT_EQ(apply.exit_code, 0) << apply.err;
  auto painted = nlohmann::json::parse(apply.out);
  EXPECT_EQ(painted["matches"][0]["role"], "button");
  EXPECT_EQ(painted["matches"][0]["source"], "vision");
  EXPECT_GT(painted["matches"][0]["confidence"].get<double>(), 0.3);
  EXPECT_LT(painted["matches"][0]["confidence"].get<double>(), 1.0);
  EXPECT_EQ(RunCli("find x --sources ax,sonar --app cli-fixture", env).exit_code, 2);
}

// read-text and observe --sources ax,ocr on a terminal (no accessibility):
// the text it shows, as lines and in the tree.
TEST(CliDesktopTest, ReadTextAndObserveWithOcrOnAnXterm) {
  test::TestDesktop& desktop = test::TestDesktop::Shared();
  ASSERT_TRUE(desktop.ok()) << desktop.error();
  SpawnOptions options;
  options.argv = {"xterm",
                  "-geometry",
                  "60x8+40+700",
                  "-fa",
                  "DejaVu Sans Mono",
                  "-fs",
                  "11",
                  "-e",
                  "printf 'uiscope reads pixels\\nsecond line 42\\n\\033[?25l'; sleep 600"};
  auto xterm = desktop.Launch(options);
  ASSERT_NE(xterm, nullptr);
  std::string env = "env -u AT_SPI_BUS_ADDRESS OMP_THREAD_LIMIT=1";
  for (const auto& [k, v] : desktop.Environment()) env += " " + k + "='" + v + "'";

  CliRun text;
  ASSERT_TRUE(test::WaitUntil(
      [&] {
        text = RunCli("read-text --region 0,650,1000,300", env);
        return text.exit_code == 0 && text.out.find("second line 42") != std::string::npos;
      },
      std::chrono::milliseconds(15000)))
      << text.out << text.err;
  EXPECT_NE(text.out.find("uiscope reads pixels"), std::string::npos) << text.out;

  CliRun json = RunCli("read-text --region 0,650,1000,300 --json", env);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto j = nlohmann::json::parse(json.out);
  EXPECT_GT(j["lines"].size(), 0u);
  EXPECT_TRUE(j["words"][0].contains("confidence"));
  EXPECT_EQ(RunCli("read-text --lang xx-none", env).exit_code, 2);

  CliRun tree = RunCli("observe --sources ax,ocr --format json", env);
  ASSERT_EQ(tree.exit_code, 0) << tree.err;
  auto t = nlohmann::json::parse(tree.out);
  EXPECT_GT(t["stats"]["ocr_nodes"].get<int>(), 0) << tree.out;
  EXPECT_NE(tree.out.find("second line 42"), std::string::npos) << tree.out;
  EXPECT_NE(tree.out.find("\"source\":\"ocr\""), std::string::npos);
}

}  // namespace
}  // namespace uiscope
