// App text through the CLI's printers. A hostile app names its button with
// terminal escapes and newlines; an agent's reason quotes it. `uiscope
// confirm` and `uiscope audit` print those names to the person who decides,
// so each must stay text on its own line: no control reaches the terminal,
// no entry rewrites another, the terminal's title is not set. Runs the real
// binary against a database the test fills through the library, and once in
// a real terminal emulator (tmux) to read what a person would see.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_state_test.h"
#include "core/escape.h"
#include "memory/audit_log.h"
#include "memory/confirmation_store.h"
#include "memory/state_db.h"
#include "memory/target_store.h"
#include "support/cli_run.h"
#include "support/desktop_fixture.h"

namespace uiscope {
namespace {

namespace fs = std::filesystem;

// A button that tries to rewrite the entry above it: back to the start of
// the line, two lines up, erase, print the other entry's token with a
// harmless name, then down again. Also sets the terminal's title (OSC 0),
// writes its clipboard (OSC 52), clears the screen through an 8-bit CSI
// and reverses its own file name with a bidi override.
const std::string kHostileTarget =
    "button \"x\r\x1b[2A\x1b[2Ktokdelete1  pending  click button \"Refresh\" btn_r\x1b[2B\r"
    "\" btn_h";
const std::string kHostileApp =
    "evil\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIH4=\x07\xC2\x9B"
    "2J Save \u202Egnp.exe";
const std::string kHostileReason = "2 elements match\nuiscope: approved tokhostile by the user";

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Shell(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  pclose(p);
  return out;
}

class HostileTextCliTest : public test::CliStateTest {
 protected:
  // "Delete all" held first, then the hostile one below it.
  void HoldTwo() {
    memory::SqliteConfirmationStore store(Db());
    safety::Confirmation c;
    c.token = "tokdelete1";
    c.created_ms = NowMs() - 1000;
    c.expires_ms = c.created_ms + 300000;
    c.tool = "click";
    c.target = "button \"Delete all\" btn_d";
    c.rule = "R4";
    c.reason = "destructive";
    ASSERT_TRUE(store.Create(c).ok());
    c.token = "tokhostile";
    c.created_ms = NowMs();
    c.target = kHostileTarget;
    c.app = kHostileApp;
    c.reason = kHostileReason;
    c.arguments = {{"name", "a\nb\x1b[31m\u202E"}};
    ASSERT_TRUE(store.Create(c).ok());
  }

  test::CliRun Run(const std::vector<std::string>& args) {
    return test::RunIsolatedCli(UISCOPE_CLI, args, config_, "hostile-text-stderr.txt");
  }
};

TEST_F(HostileTextCliTest, ConfirmListKeepsEachEntryToItsOwnLines) {
  HoldTwo();
  test::CliRun list = Run({"confirm"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(FindUnescaped(list.out, /*allow_newline=*/true), std::string::npos) << list.out;
  // Two lines per entry: the description, then the rule and the reason.
  const std::vector<std::string> lines = Lines(list.out);
  ASSERT_EQ(lines.size(), 4u) << list.out;
  EXPECT_EQ(lines[0].rfind("tokdelete1  pending  click button \"Delete all\" btn_d", 0), 0u)
      << lines[0];
  EXPECT_EQ(lines[2].rfind("tokhostile  pending  click button \"x\\r\\u001b[2A\\u001b[2K", 0), 0u)
      << lines[2];
  EXPECT_NE(lines[2].find(" in evil\\u001b]0;pwned\\u0007"), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find("\\u009b2J Save \\u202egnp.exe"), std::string::npos) << lines[2];
  EXPECT_EQ(lines[3], "    R4: 2 elements match\\nuiscope: approved tokhostile by the user");

  // --json keeps the real text for programs.
  test::CliRun json = Run({"confirm", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j["confirmations"].size(), 2u);
  EXPECT_EQ(j["confirmations"][1]["app"], kHostileApp);
}

TEST_F(HostileTextCliTest, ConfirmDecisionAndAuditEscapeTheTarget) {
  HoldTwo();
  test::CliRun deny = Run({"confirm", "tokhostile", "--deny"});
  ASSERT_EQ(deny.exit_code, 0) << deny.err;
  EXPECT_EQ(FindUnescaped(deny.err, true), std::string::npos) << deny.err;
  EXPECT_NE(deny.err.find("uiscope: denied tokhostile: click button \"x\\r\\u001b[2A"),
            std::string::npos)
      << deny.err;

  {
    memory::AuditLog log(Db());
    safety::AuditEntry e;
    e.time_ms = NowMs();
    e.tool = "click";
    e.decision = "failed";
    e.target_desc = kHostileTarget;
    e.app = kHostileApp;
    e.rule = "R4";
    e.reason = kHostileReason;
    e.error = "no element\r\x1b[2Kdone";
    e.arguments = {{"text", "\u202E\u200B\xC2\x85"}};
    ASSERT_TRUE(log.Append(e).ok());
  }
  test::CliRun audit = Run({"audit"});
  ASSERT_EQ(audit.exit_code, 0) << audit.err;
  EXPECT_EQ(FindUnescaped(audit.out, true), std::string::npos) << audit.out;
  // The denial (the target and the rule's reason) and the failed click
  // (target, reason and error): each line starts as uiscope wrote it.
  for (const std::string& line : Lines(audit.out)) {
    const bool entry = line.size() > 4 && std::isdigit(static_cast<unsigned char>(line[0]));
    const bool detail = line.rfind("    ", 0) == 0;
    EXPECT_TRUE(entry || detail) << line;
  }
  EXPECT_NE(audit.out.find("\\u202e\\u200b\\u0085"), std::string::npos) << audit.out;
  EXPECT_NE(audit.out.find("    error: no element\\r\\u001b[2Kdone"), std::string::npos)
      << audit.out;
}

// What memory learned names the app, its window and its targets as the app
// did: `memory list` and `memory show` print one line per app, signature and
// target.
TEST_F(HostileTextCliTest, MemoryListAndShowKeepEachTargetToItsLine) {
  {
    auto store = memory::OpenTargetStore(memory::MemoryDatabasePath(db_path_), true);
    ASSERT_TRUE(store.ok()) << store.error().message;
    LearnedTarget t;
    t.id = "lrn_0123456789";
    t.role = Role::kButton;
    t.label = kHostileTarget;
    t.bounds = Rect{10, 10, 80, 30};
    t.click = Point{50, 25};
    const AppSignature signature{kHostileApp, "Files\r\x1b[2K\u202E", "gtk\n3"};
    ASSERT_TRUE((*store)->Save(signature, {t}, {}, NowMs()).ok());
  }
  test::CliRun list = Run({"memory", "list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(FindUnescaped(list.out, true), std::string::npos) << list.out;
  ASSERT_EQ(Lines(list.out).size(), 1u) << list.out;
  EXPECT_EQ(list.out.rfind("evil\\u001b]0;pwned\\u0007", 0), 0u) << list.out;
  EXPECT_NE(list.out.find("\"Files\\r\\u001b[2K\\u202e\"  gtk\\n3  1 targets"), std::string::npos)
      << list.out;

  test::CliRun show = Run({"memory", "show", kHostileApp});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(FindUnescaped(show.out, true), std::string::npos) << show.out;
  const std::vector<std::string> lines = Lines(show.out);
  ASSERT_EQ(lines.size(), 2u) << show.out;
  EXPECT_EQ(lines[1].rfind("  [button \"button \\\"x\\r\\u001b[2A", 0), 0u) << lines[1];
}

// What a person sees: the list printed into a real terminal emulator.
TEST_F(HostileTextCliTest, InATerminalTheHostileEntryChangesOnlyItsOwnLine) {
  if (Shell("command -v tmux").empty()) GTEST_SKIP() << "tmux is not installed";
  HoldTwo();
  const std::string server = "uiscope-test-" + std::to_string(getpid());
  const std::string tmux = "tmux -L " + server + " -f /dev/null ";
  const std::string done = (dir_ / "done").string();
  const std::string script = (dir_ / "run.sh").string();
  std::ofstream(script) << "env UISCOPE_STATE_DIR=" << test::TestStateDir()
                        << " UISCOPE_CONFIG=" << config_ << " " << UISCOPE_CLI
                        << " confirm 2>/dev/null; touch " << done << "; sleep 60\n";
  ASSERT_EQ(std::system((tmux + "new-session -d -x 400 -y 40 'sh " + script + "'").c_str()), 0);
  const bool printed = test::WaitUntil([&] { return fs::exists(done); });
  // The pane holds what the terminal shows once it has interpreted every byte.
  const std::string pane = Shell(tmux + "capture-pane -p -J");
  const std::string title = Shell(tmux + "display-message -p '#{pane_title}'");
  std::system((tmux + "kill-server").c_str());
  ASSERT_TRUE(printed);

  int delete_lines = 0;
  bool hostile_seen = false;
  for (const std::string& line : Lines(pane)) {
    if (line.rfind("tokdelete1", 0) == 0) {
      ++delete_lines;
      EXPECT_EQ(line.rfind("tokdelete1  pending  click button \"Delete all\" btn_d", 0), 0u)
          << "the entry for \"Delete all\" was rewritten:\n"
          << pane;
    }
    if (line.rfind("tokhostile  pending  click button \"x\\r", 0) == 0) hostile_seen = true;
  }
  EXPECT_EQ(delete_lines, 1) << pane;
  EXPECT_TRUE(hostile_seen) << pane;
  EXPECT_EQ(title.find("pwned"), std::string::npos) << title;
}

}  // namespace
}  // namespace uiscope
