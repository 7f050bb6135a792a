// `uiscope clipboard get / set` on a headless desktop (issue 15 part 10),
// one process per call as a script runs them: the content set by one
// process is pasted by apps and read by the next process after the first
// exited (the holder keeps it); INCR both ways; image/png; the GTK3
// fixture's entry copying (ctrl+c) and pasting (ctrl+v); the deny list; the
// audit log without the text.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "session/headless_desktop.h"
#include "session/process.h"
#include "support/desktop_fixture.h"

namespace uiscope {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
namespace fs = std::filesystem;

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool HaveXclip() { return std::system("command -v xclip >/dev/null 2>&1") == 0; }

class ClipboardCliDesktopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    test::TestDesktop& desktop = test::TestDesktop::Shared();
    ASSERT_TRUE(desktop.ok()) << desktop.error();
    env_ = "env -u AT_SPI_BUS_ADDRESS -u UISCOPE_CONFIG";
    for (const auto& [k, v] : desktop.Environment()) env_ += " " + k + "='" + v + "'";
    dir_ = fs::path(test::TestStateDir()) /
           ("clipboard-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_ = (dir_ / "state.db").string();
    config_ = (dir_ / "config.json").string();
    WriteConfig("");
  }

  // A policy of our own: its own database (audit log), a rate limit this
  // test never reaches, and `deny` as deny_apps (a JSON array body).
  void WriteConfig(const std::string& deny) {
    std::ofstream(config_) << "{\"database\": \"" << db_
                           << "\", \"rate_limit\": {\"max_actions\": 1000}, \"deny_apps\": ["
                           << deny << "]}";
  }

  CliRun Run(const std::string& args, const std::string& stdin_file = "") {
    const std::string err_file = (dir_ / "stderr.txt").string();
    std::string cmd = env_ + " " UISCOPE_CLI " " + args + " --config " + config_ + " 2>" + err_file;
    if (!stdin_file.empty()) cmd += " <" + stdin_file;
    CliRun r;
    FILE* p = popen(cmd.c_str(), "r");
    if (p == nullptr) return r;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
    const int status = pclose(p);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = ReadAll(err_file);
    return r;
  }

  // A shell command on the desktop (xclip), its stdout.
  std::string Shell(const std::string& command) {
    std::string out;
    FILE* p = popen((env_ + " " + command).c_str(), "r");
    if (p == nullptr) return out;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
    pclose(p);
    return out;
  }

  // Sets the clipboard; the holder's pid.
  int Set(const std::string& args) {
    CliRun r = Run("clipboard set " + args + " --json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    if (r.exit_code != 0) return 0;
    json j = json::parse(r.out);
    EXPECT_TRUE(j["performed"].get<bool>()) << r.out;
    EXPECT_TRUE(j["verified"].get<bool>()) << r.out;
    return j.value("holder_pid", 0);
  }

  std::string Id(const std::string& app, const std::string& name, const std::string& role) {
    CliRun r = Run("find '" + name + "' --exact --app " + app + " --role " + role + " --json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    if (r.exit_code != 0) return "";
    return json::parse(r.out)["matches"][0]["id"];
  }

  std::unique_ptr<Process> Fixture(const std::string& name) {
    auto fixture = test::TestDesktop::Shared().LaunchFixture({"--name", name});
    EXPECT_NE(fixture, nullptr);
    if (fixture == nullptr) return nullptr;
    EXPECT_TRUE(test::WaitUntil(
        [&] { return Run("find Login --app " + name + " --role button").exit_code == 0; },
        milliseconds(10000)));
    return fixture;
  }

  std::string env_;
  fs::path dir_;
  std::string db_;
  std::string config_;
};

TEST_F(ClipboardCliDesktopTest, SetThenGetAcrossProcesses) {
  const int holder = Set("'Grüße aus 東京'");
  ASSERT_GT(holder, 0);
  // The setter has exited; the holder serves.
  CliRun got = Run("clipboard get --json");
  ASSERT_EQ(got.exit_code, 0) << got.err;
  json j = json::parse(got.out);
  EXPECT_EQ(j["text"], "Grüße aus 東京");
  EXPECT_EQ(j["mime"], "text/plain");
  EXPECT_EQ(j["owner"]["pid"], holder);
  EXPECT_EQ(j["owner"]["app"], "uiscope-clip");
  EXPECT_EQ(Run("clipboard get").out, "Grüße aus 東京");
  if (HaveXclip()) {
    EXPECT_EQ(Shell("xclip -o -selection clipboard"), "Grüße aus 東京");
    EXPECT_EQ(Shell("xclip -o -selection clipboard -t STRING"),
              "Gr\xfc\xdf"
              "e aus ??");
  }
  // PRIMARY is another selection.
  ASSERT_GT(Set("--selection primary 'the mouse one'"), 0);
  EXPECT_EQ(Run("clipboard get --selection primary").out, "the mouse one");
  EXPECT_EQ(Run("clipboard get").out, "Grüße aus 東京");
  // A new set takes the selection: the previous holder exits.
  const int next = Set("'second'");
  EXPECT_TRUE(test::WaitUntil([&] { return !PidAlive(holder); }, milliseconds(3000)));
  EXPECT_TRUE(PidAlive(next));
  EXPECT_EQ(Run("clipboard get").out, "second");
  // Text by any of its names is printed, not taken for binary.
  EXPECT_EQ(Run("clipboard get --mime 'text/plain;charset=utf-8'").out, "second");
}

TEST_F(ClipboardCliDesktopTest, LargeTextGoesByIncrBothWays) {
  // Above the 256 KiB INCR threshold, with multi-byte characters across
  // piece boundaries.
  std::mt19937 rng(7);
  const std::string alphabet[] = {"a", "b", " ", "\n", "é", "東"};
  std::string big;
  while (big.size() < 700 * 1024) big += alphabet[rng() % 6];
  const std::string file = (dir_ / "big.txt").string();
  std::ofstream(file, std::ios::binary) << big;
  CliRun set = Run("clipboard set --stdin --json", file);
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_EQ(json::parse(set.out)["bytes"], big.size());
  const std::string out = (dir_ / "out.txt").string();
  CliRun got = Run("clipboard get --out " + out);
  ASSERT_EQ(got.exit_code, 0) << got.err;
  const std::string back = ReadAll(out);
  EXPECT_TRUE(back == big) << back.size() << " bytes back of " << big.size();
  if (!HaveXclip()) return;
  // Another client reads the holder's INCR transfer.
  const std::string x = Shell("xclip -o -selection clipboard");
  EXPECT_TRUE(x == big) << x.size() << " bytes read by xclip of " << big.size();
  // And uiscope reads another owner's INCR transfer: xclip sends by INCR
  // above a quarter of the server's maximum request (1 MiB on Xvfb); it stays
  // in the background as the owner until someone else copies.
  std::reverse(big.begin(), big.end());
  big += big;
  std::ofstream(file, std::ios::binary | std::ios::trunc) << big;
  Shell("xclip -i -selection clipboard " + file + " >/dev/null 2>&1");
  CliRun theirs;
  EXPECT_TRUE(test::WaitUntil(
      [&] {
        theirs = Run("clipboard get --out " + out);
        return theirs.exit_code == 0 && ReadAll(out) == big;
      },
      milliseconds(5000)))
      << theirs.err;
}

TEST_F(ClipboardCliDesktopTest, PngRoundTripAndWrongTypes) {
  const std::string shot = (dir_ / "shot.png").string();
  ASSERT_EQ(Run("screenshot -o " + shot).exit_code, 0);
  const std::string png = ReadAll(shot);
  ASSERT_GT(png.size(), 100u);
  ASSERT_GT(Set("--file " + shot + " --mime image/png"), 0);
  const std::string back = (dir_ / "back.png").string();
  CliRun got = Run("clipboard get --mime image/png --out " + back + " --json");
  ASSERT_EQ(got.exit_code, 0) << got.err;
  EXPECT_EQ(json::parse(got.out)["bytes"], png.size());
  EXPECT_EQ(ReadAll(back), png);
  if (HaveXclip()) {
    EXPECT_EQ(Shell("xclip -o -selection clipboard -t image/png"), png);
  }
  // Text was not offered: the error lists what is.
  CliRun text = Run("clipboard get --json");
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_EQ(json::parse(text.out)["error"]["code"], "unsupported") << text.out;
  EXPECT_NE(text.err.find("it offers: TARGETS TIMESTAMP MULTIPLE image/png"), std::string::npos) << text.err;
  // Bad input: not a PNG, no content, two contents, binary to a terminal-less --json.
  const std::string not_png = (dir_ / "not.png").string();
  std::ofstream(not_png) << "hello";
  EXPECT_EQ(Run("clipboard set --file " + not_png + " --mime image/png").exit_code, 2);
  EXPECT_EQ(Run("clipboard set").exit_code, 2);
  EXPECT_EQ(Run("clipboard set a --file " + not_png).exit_code, 2);
  EXPECT_EQ(Run("clipboard get --mime image/png --json").exit_code, 2);
  EXPECT_EQ(Run("clipboard get --selection secondary").exit_code, 2);
}

TEST_F(ClipboardCliDesktopTest, NoOwnerIsAClearErrorWithinTheDeadline) {
  const int holder = Set("'soon gone'");
  ASSERT_GT(holder, 0);
  ASSERT_EQ(kill(holder, SIGKILL), 0);
  // The X server drops the selection of a client that is gone.
  ASSERT_TRUE(test::WaitUntil([&] { return !PidAlive(holder); }, milliseconds(3000)));
  CliRun got;
  ASSERT_TRUE(test::WaitUntil(
      [&] {
        got = Run("clipboard get --json");
        return got.exit_code == 1;
      },
      milliseconds(3000)))
      << got.out;
  EXPECT_EQ(json::parse(got.out)["error"]["code"], "not_found") << got.out;
  EXPECT_NE(got.err.find("nothing owns the CLIPBOARD selection"), std::string::npos) << got.err;
}

TEST_F(ClipboardCliDesktopTest, CopyFromAndPasteIntoAGtkEntry) {
  auto fixture = Fixture("clip-gtk");
  ASSERT_NE(fixture, nullptr);
  ASSERT_TRUE(test::FixtureCommand(*fixture, "set-email copied in GTK").ok());
  const std::string email = Id("clip-gtk", "Email", "text_field");
  ASSERT_FALSE(email.empty());
  CliRun copy = Run("keys --target " + email + " ctrl+a ctrl+c");
  ASSERT_EQ(copy.exit_code, 0) << copy.err;
  CliRun got;
  ASSERT_TRUE(test::WaitUntil(
      [&] {
        got = Run("clipboard get --json");
        return got.exit_code == 0 && json::parse(got.out)["text"] == "copied in GTK";
      },
      milliseconds(5000)))
      << got.out << got.err;
  EXPECT_EQ(json::parse(got.out)["owner"]["pid"], fixture->pid()) << got.out;

  // Pasted by the app from the holder, read back through observe.
  ASSERT_GT(Set("'pasted by uiscope'"), 0);
  ASSERT_TRUE(test::FixtureCommand(*fixture, "set-email ").ok());
  CliRun paste = Run("keys --target " + email + " ctrl+v");
  ASSERT_EQ(paste.exit_code, 0) << paste.err;
  CliRun seen;
  EXPECT_TRUE(test::WaitUntil(
      [&] {
        seen = Run("observe --app clip-gtk");
        return seen.out.find("pasted by uiscope") != std::string::npos;
      },
      milliseconds(5000)))
      << seen.out;
  EXPECT_EQ(*test::FixtureCommand(*fixture, "text email"), "pasted by uiscope");
}

TEST_F(ClipboardCliDesktopTest, DenyListRefusesReadingADeniedOwner) {
  auto fixture = Fixture("clip-denied");
  ASSERT_NE(fixture, nullptr);
  ASSERT_TRUE(test::FixtureCommand(*fixture, "set-email secret of a denied app").ok());
  const std::string email = Id("clip-denied", "Email", "text_field");
  ASSERT_EQ(Run("keys --target " + email + " ctrl+a ctrl+c").exit_code, 0);
  ASSERT_TRUE(test::WaitUntil([&] { return Run("clipboard get").out == "secret of a denied app"; },
                              milliseconds(5000)));
  WriteConfig("\"clip-denied\"");
  CliRun got = Run("clipboard get --json");
  EXPECT_EQ(got.exit_code, 1);
  EXPECT_EQ(json::parse(got.out)["error"]["code"], "denied") << got.out;
  EXPECT_EQ(got.out.find("secret"), std::string::npos) << got.out;
  EXPECT_NE(got.err.find("deny list"), std::string::npos) << got.err;
}

TEST_F(ClipboardCliDesktopTest, AuditRecordsTypeAndSizeNeverTheText) {
  const std::string secret = "hunter2-correct-horse";
  ASSERT_GT(Set("'" + secret + "'"), 0);
  CliRun audit = Run("audit --json");
  ASSERT_EQ(audit.exit_code, 0) << audit.err;
  json j = json::parse(audit.out);
  bool found = false;
  for (const json& e : j["entries"]) {
    if (e["tool"] != "clipboard_set") continue;
    found = true;
    EXPECT_EQ(e["decision"], "done") << e.dump();
    EXPECT_EQ(e["arguments"]["bytes"], secret.size()) << e.dump();
    EXPECT_EQ(e["arguments"]["mime"], "text/plain") << e.dump();
  }
  EXPECT_TRUE(found) << audit.out;
  EXPECT_EQ(audit.out.find(secret), std::string::npos);
  // Nowhere in the database (its journal included) either.
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_EQ(ReadAll(entry.path().string()).find(secret), std::string::npos) << entry.path();
  }
}

// The holder is a member of the session (session/clipboard_holder.h): the
// session lists it among its processes, and stopping the session ends it.
TEST(ClipboardHolderDesktopTest, IsAMemberOfTheSessionAndEndsWithIt) {
  auto desktop = std::make_unique<test::TestDesktop>();
  ASSERT_TRUE(desktop->ok()) << desktop->error();
  std::string env = "env -u AT_SPI_BUS_ADDRESS -u UISCOPE_CONFIG";
  for (const auto& [k, v] : desktop->Environment()) env += " " + k + "='" + v + "'";
  const std::string config = test::TestStateDir() + "/clipboard-holder-config.json";
  std::ofstream(config) << "{\"database\": \"" << test::TestStateDir() << "/clipboard-holder.db\"}";
  FILE* p = popen(
      (env + " " UISCOPE_CLI " clipboard set 'held' --json --config " + config + " 2>/dev/null")
          .c_str(),
      "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  ASSERT_EQ(pclose(p), 0) << out;
  const int holder = json::parse(out).value("holder_pid", 0);
  ASSERT_GT(holder, 0) << out;
  EXPECT_TRUE(PidAlive(holder));
  const std::vector<int> members = ListSessionProcesses(desktop->info());
  EXPECT_NE(std::find(members.begin(), members.end(), holder), members.end());
  EXPECT_NE(PidCmdline(holder).find("uiscope-clipboard-holder"), std::string::npos);
  desktop.reset();
  EXPECT_TRUE(test::WaitUntil([&] { return !PidAlive(holder); }, milliseconds(5000)));
}

}  // namespace
}  // namespace uiscope
