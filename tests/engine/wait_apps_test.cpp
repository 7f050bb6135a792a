// wait_for and the apps of a desktop, on a fake desktop.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/app_name.h"
#include "core/ids.h"
#include "engine/apps.h"
#include "engine/wait_for.h"
#include "mcp/wire.h"
#include "session/process.h"
#include "support/fake_accessibility.h"
#include "support/fake_capture.h"
#include "support/fake_input.h"
#include "support/fake_windows.h"
#include "support/recording_gate.h"

namespace uiscope {
namespace {

class FakeDesktopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ax = std::make_unique<test::FakeAccessibility>(
        test::LoadFixtureTree(std::string(UISCOPE_TREE_FIXTURES) + "/form.json"));
    ax_ = ax.get();
    WindowInfo w;
    w.id = 0x400001;
    w.title = "Form";
    w.app_instance = "form-app";
    w.app_class = "Form-app";
    w.pid = 4343;
    w.bounds = Rect{100, 80, 600, 400};
    auto windows = std::make_unique<test::FakeWindows>(std::vector<WindowInfo>{w});
    windows_ = windows.get();
    auto capture = std::make_unique<test::FakeCapture>(1920, 1080);
    capture_ = capture.get();
    workspace_ = std::make_unique<Workspace>(
        FakeDesktopParts{std::move(ax), Frame{1920, 1080, 1.0}, std::make_unique<test::FakeInput>(),
                         std::move(windows), std::move(capture), /*allow_launch=*/true});
    gate_ = std::make_shared<test::RecordingGate>();
    workspace_->SetActionGate(gate_);
  }

  std::string Id(const std::string& name) {
    auto lease = workspace_->Acquire();
    auto obs = lease->observer->Observe(ObserveRequest{});
    std::string id;
    ForEachNode(obs->snapshot.roots, [&](const Node& n, int) {
      if (id.empty() && n.name == name) id = n.id;
    });
    return id;
  }

  test::FakeAccessibility* ax_ = nullptr;
  test::FakeWindows* windows_ = nullptr;
  test::FakeCapture* capture_ = nullptr;
  std::shared_ptr<test::RecordingGate> gate_;
  std::unique_ptr<Workspace> workspace_;
};

using WaitForTest = FakeDesktopTest;

WaitForRequest Wait(WaitCondition::Kind kind) {
  WaitForRequest r;
  r.condition.kind = kind;
  r.timeout = std::chrono::milliseconds(2000);
  return r;
}

TEST_F(WaitForTest, AnElementAlreadyThereIsSeenAtOnce) {
  WaitForRequest r = Wait(WaitCondition::Kind::kElement);
  r.condition.id = Id("Login");
  auto result = WaitFor(*workspace_, r);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_TRUE(result->satisfied);
  EXPECT_EQ(result->polls, 1);
  EXPECT_EQ(result->seen_in, "tree");
  ASSERT_EQ(result->matches.size(), 1u);
  EXPECT_EQ(result->matches[0].name, "Login");
  EXPECT_EQ(result->display, ":fake");
}

TEST_F(WaitForTest, GoneIsSeenWhenTheElementLeaves) {
  WaitForRequest r = Wait(WaitCondition::Kind::kGone);
  r.condition.id = Id("Login");
  r.progress = [&](double, int polls) {
    if (polls == 2) {
      auto& kids = ax_->apps()[0].children[0].children;
      kids.erase(
          std::remove_if(kids.begin(), kids.end(), [](const Node& n) { return n.name == "Login"; }),
          kids.end());
    }
  };
  auto result = WaitFor(*workspace_, r);
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->satisfied);
  EXPECT_EQ(result->polls, 3);
  ASSERT_TRUE(result->last_seen.has_value());
  EXPECT_EQ(result->last_seen->name, "Login");
}

TEST_F(WaitForTest, NameAndRoleAndText) {
  WaitForRequest r = Wait(WaitCondition::Kind::kName);
  r.condition.name = "remember";
  r.condition.role = Role::kCheckBox;
  auto byname = WaitFor(*workspace_, r);
  ASSERT_TRUE(byname.ok());
  EXPECT_TRUE(byname->satisfied);
  EXPECT_EQ(byname->matches[0].role, Role::kCheckBox);

  WaitForRequest t = Wait(WaitCondition::Kind::kText);
  t.condition.text = "logged in as ada";
  t.progress = [&](double, int polls) {
    if (polls == 1) ax_->Find(Role::kLabel, "Not logged in")->name = "Logged in as Ada";
  };
  auto text = WaitFor(*workspace_, t);
  ASSERT_TRUE(text.ok());
  EXPECT_TRUE(text->satisfied);
  EXPECT_EQ(text->polls, 2);
  EXPECT_EQ(text->matches[0].name, "Logged in as Ada");
}

TEST_F(WaitForTest, ADeadlineWithoutMatchIsAResultNotAnError) {
  WaitForRequest r = Wait(WaitCondition::Kind::kText);
  r.condition.text = "never there";
  r.condition.ocr = false;
  r.timeout = std::chrono::milliseconds(150);
  auto result = WaitFor(*workspace_, r);
  ASSERT_TRUE(result.ok());
  EXPECT_FALSE(result->satisfied);
  EXPECT_GE(result->waited_ms, 150);
  EXPECT_LT(result->waited_ms, 1500);
  EXPECT_GE(result->polls, 2);
  EXPECT_FALSE(WaitForResultToJson(*result)["satisfied"].get<bool>());
}

TEST_F(WaitForTest, AnyChangeInTheTreeOrThePixels) {
  WaitForRequest r = Wait(WaitCondition::Kind::kChange);
  r.progress = [&](double, int polls) {
    if (polls == 2) ax_->Find(Role::kCheckBox, "Remember me")->states.Set(State::kChecked);
  };
  auto tree = WaitFor(*workspace_, r);
  ASSERT_TRUE(tree.ok());
  EXPECT_TRUE(tree->satisfied);
  EXPECT_EQ(tree->seen_in, "tree");
  ASSERT_EQ(tree->change.changed.size(), 1u);
  EXPECT_EQ(tree->change.changed[0].states_added, std::vector<std::string>{"checked"});

  WaitForRequest p = Wait(WaitCondition::Kind::kChange);
  p.progress = [&](double, int polls) {
    if (polls == 1) capture_->Fill(Rect{10, 10, 30, 30}, 9, 9, 9);
  };
  auto pixels = WaitFor(*workspace_, p);
  ASSERT_TRUE(pixels.ok());
  EXPECT_TRUE(pixels->satisfied);
  EXPECT_EQ(pixels->seen_in, "pixels");
  EXPECT_EQ(*pixels->pixels.bounds, (Rect{10, 10, 30, 30}));
}

TEST_F(WaitForTest, AnEmptyConditionIsRefused) {
  WaitForRequest r = Wait(WaitCondition::Kind::kElement);
  EXPECT_EQ(WaitFor(*workspace_, r).error().code, ErrorCode::kInvalidArgument);
  r = Wait(WaitCondition::Kind::kText);
  EXPECT_EQ(WaitFor(*workspace_, r).error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(DescribeCondition(WaitCondition{}), "any change");
}

using AppsTest = FakeDesktopTest;

TEST_F(AppsTest, WindowsAndAccessibleAppsMergeByPid) {
  auto lease = workspace_->Acquire("", Workspace::Need::kHands);
  auto apps = ListDesktopApps(*lease);
  ASSERT_TRUE(apps.ok());
  ASSERT_EQ(apps->size(), 1u);
  EXPECT_EQ((*apps)[0].name, "form-app");
  EXPECT_EQ((*apps)[0].pid, 4343);
  EXPECT_TRUE((*apps)[0].accessible);
  EXPECT_EQ((*apps)[0].windows.size(), 1u);
  auto windows = ListDesktopWindows(*lease);
  ASSERT_TRUE(windows.ok());
  EXPECT_EQ((*windows)[0].app, "form-app");
  EXPECT_EQ(WindowEntryToJson((*windows)[0])["id"], "0x400001");
}

TEST_F(AppsTest, FocusByNamePidWindowOrElementId) {
  const std::string window_id = Id("Form");
  for (const std::string& app :
       std::vector<std::string>{"form-app", "Form-App", "4343", "0x400001", window_id}) {
    windows_->windows()[0].focused = false;
    auto lease = workspace_->Acquire("", Workspace::Need::kHands);
    auto r = FocusApp(*lease, app);
    ASSERT_TRUE(r.ok()) << app << ": " << r.error().message;
    EXPECT_TRUE(r->performed);
    EXPECT_EQ(r->window.id, 0x400001u);
    EXPECT_TRUE(windows_->windows()[0].focused);
  }
  EXPECT_EQ(gate_->entries().back().action.tool, "app_focus");
  EXPECT_EQ(gate_->entries().back().action.app, "form-app");
  auto lease = workspace_->Acquire("", Workspace::Need::kHands);
  auto unknown = FocusApp(*lease, "gedit");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);
  EXPECT_NE(unknown.error().message.find("form-app (pid 4343)"), std::string::npos);
  EXPECT_TRUE(gate_->entries().back().recorded);
}

// Issue 15: `--app inkscape` failed where only `org.inkscape.Inkscape`
// worked. An app is named by its whole name, the last part of a reverse-DNS
// name or its executable, case-insensitively.
TEST_F(AppsTest, AReverseDnsNameIsFoundByItsLastPart) {
  windows_->windows()[0].app_instance = "org.example.Foo";
  windows_->windows()[0].app_class = "org.example.Foo";
  for (const std::string& app : std::vector<std::string>{"foo", "FOO", "org.example.foo"}) {
    auto lease = workspace_->Acquire("", Workspace::Need::kHands);
    auto r = FocusApp(*lease, app);
    ASSERT_TRUE(r.ok()) << app << ": " << r.error().message;
    EXPECT_TRUE(r->performed);
  }
  auto lease = workspace_->Acquire("", Workspace::Need::kHands);
  EXPECT_EQ(FocusApp(*lease, "example").error().code, ErrorCode::kNotFound);
}

TEST(AppNameTest, WholeNameLastPartOrExecutable) {
  EXPECT_TRUE(AppNameMatches("inkscape", "org.inkscape.Inkscape"));
  EXPECT_TRUE(AppNameMatches("Gedit", "gedit"));
  EXPECT_TRUE(AppNameMatches("gimp-2.10", "GNU Image Manipulation Program", "/usr/bin/gimp-2.10"));
  EXPECT_FALSE(AppNameMatches("inkscape.Inkscape", "org.inkscape.Inkscape"));
  EXPECT_FALSE(AppNameMatches("org", "org.inkscape.Inkscape"));
  EXPECT_FALSE(AppNameMatches("", ""));
  EXPECT_FALSE(AppNameMatches("scape", "org.inkscape.Inkscape", "/usr/bin/inkscape"));
}

TEST_F(AppsTest, CloseEscalatesFromTheCloseButtonToSignals) {
  // A real process that ignores the polite close (the fake window stays).
  SpawnOptions spawn;
  spawn.argv = {"sleep", "30"};
  auto sleeper = Process::Spawn(spawn);
  ASSERT_TRUE(sleeper.ok());
  const int pid = (*sleeper)->pid();
  WindowInfo w;
  w.id = 0x500001;
  w.title = "Sleeper";
  w.app_instance = "sleeper";
  w.pid = pid;
  windows_->windows().push_back(w);
  windows_->close_removes = false;
  auto lease = workspace_->Acquire("", Workspace::Need::kHands);
  lease->hands->launched[pid] = std::move(sleeper).value();
  CloseRequest r;
  r.app = "sleeper";
  r.polite_timeout = std::chrono::milliseconds(100);
  auto closed = CloseApp(*lease, r);
  ASSERT_TRUE(closed.ok()) << closed.error().message;
  EXPECT_TRUE(closed->performed);
  EXPECT_EQ(closed->stage, "terminated");
  EXPECT_EQ(closed->exit_code, 128 + SIGTERM);
  EXPECT_EQ(windows_->calls().back(), "close " + std::to_string(0x500001));
  EXPECT_FALSE(PidAlive(pid));
  EXPECT_TRUE(lease->hands->launched.empty());
  EXPECT_EQ(gate_->entries().back().action.tool, "app_close");
  EXPECT_EQ(gate_->entries().back().outcome.via, "terminated");
}

// A window without a process (a VNC window) whose close cannot be asked
// (no close button found) and whose client cannot be killed: nothing is
// waited for, and the error says both reasons.
TEST_F(AppsTest, AWindowThatCannotBeAskedToCloseIsAnErrorAtOnceSayingWhy) {
  WindowInfo w;
  w.id = 0x700001;
  w.title = "Remote";
  w.app_instance = "remote";
  windows_->windows().push_back(w);
  windows_->close_refusal = "no close button found: close it with its own keys or menu";
  auto lease = workspace_->Acquire("", Workspace::Need::kHands);
  CloseRequest r;
  r.app = "0x700001";
  r.polite_timeout = std::chrono::milliseconds(3000);
  r.term_timeout = std::chrono::milliseconds(2000);
  const auto start = std::chrono::steady_clock::now();
  auto closed = CloseApp(*lease, r);
  ASSERT_FALSE(closed.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1000));
  EXPECT_NE(closed.error().message.find("no close button found"), std::string::npos)
      << closed.error().message;
  EXPECT_NE(closed.error().message.find("the kill (not sent"), std::string::npos)
      << closed.error().message;
}

TEST_F(AppsTest, OnlyProcessesOfTheDesktopAreSignalled) {
  // A process of this user with a window that claims its pid, but started
  // on no display uiscope acts on: never signalled.
  SpawnOptions spawn;
  spawn.argv = {"sleep", "30"};
  spawn.env = {{"DISPLAY", ":4242"}};
  auto bystander = Process::Spawn(spawn);
  ASSERT_TRUE(bystander.ok());
  WindowInfo w;
  w.id = 0x600001;
  w.app_instance = "bystander";
  w.pid = (*bystander)->pid();
  windows_->windows().push_back(w);
  auto lease = workspace_->Acquire("", Workspace::Need::kHands);
  CloseRequest r;
  r.app = "bystander";
  auto refused = CloseApp(*lease, r);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kDenied);
  EXPECT_NE(refused.error().message.find("runs on display :4242"), std::string::npos)
      << refused.error().message;
  EXPECT_TRUE((*bystander)->Running());
  EXPECT_EQ(gate_->entries().back().outcome.error, refused.error().message);
}

TEST(AppsFakeDesktopTest, AFakeDesktopLaunchesNothing) {
  // What the fuzzer gets: no program may be started from its inputs.
  Workspace fake(FakeDesktopParts{std::make_unique<test::FakeAccessibility>(std::vector<Node>{}),
                                  Frame{800, 600, 1.0}, std::make_unique<test::FakeInput>(),
                                  std::make_unique<test::FakeWindows>(), nullptr});
  auto lease = fake.Acquire("", Workspace::Need::kHands);
  ASSERT_TRUE(lease.ok());
  LaunchRequest r;
  r.argv = {"true"};
  auto launched = LaunchApp(*lease, r);
  ASSERT_FALSE(launched.ok());
  EXPECT_EQ(launched.error().code, ErrorCode::kUnsupported) << launched.error().message;
}

TEST_F(AppsTest, TheGateDecidesLaunches) {
  gate_->answer = GateDecision{GateVerdict::kDeny, "R3", "not on the allow list", ""};
  auto lease = workspace_->Acquire("", Workspace::Need::kHands);
  LaunchRequest r;
  r.argv = {"true"};
  auto denied = LaunchApp(*lease, r);
  ASSERT_TRUE(denied.ok());
  EXPECT_FALSE(denied->performed);
  EXPECT_EQ(denied->pid, 0);
  EXPECT_EQ(gate_->entries().back().action.command, "true");
  EXPECT_EQ(LaunchResultToJson(*denied)["decision"]["rule"], "R3");

  gate_->answer = GateDecision{};
  r.argv = {"uiscope-no-such-program"};
  auto missing = LaunchApp(*lease, r);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_FALSE(gate_->entries().back().outcome.error.empty());

  r.argv = {"sleep", "5"};
  r.wait = false;
  auto started = LaunchApp(*lease, r);
  ASSERT_TRUE(started.ok()) << started.error().message;
  EXPECT_TRUE(started->performed);
  EXPECT_GT(started->pid, 0);
  EXPECT_EQ(lease->hands->launched.count(started->pid), 1u);
  ::kill(started->pid, SIGKILL);
}

TEST_F(AppsTest, AnAppThatExitsBeforeItsWindowSaysWhy) {
  auto lease = workspace_->Acquire("", Workspace::Need::kHands);
  LaunchRequest r;
  r.argv = {"sh", "-c", "echo cannot open display >&2; exit 3"};
  r.timeout = std::chrono::milliseconds(5000);
  auto result = LaunchApp(*lease, r);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(result.error().message.find("status 3"), std::string::npos) << result.error().message;
  EXPECT_NE(result.error().message.find("cannot open display"), std::string::npos);
}

// A launched app's log never follows a link planted where uiscope writes
// it: it lives in a directory of this user alone (0700), is created
// exclusively and is readable by this user only (0600).
TEST_F(AppsTest, LogsNeverFollowPlantedLinks) {
  char state_template[] = "/tmp/uiscope-logs-test-XXXXXX";
  ASSERT_NE(::mkdtemp(state_template), nullptr);
  const std::string state_dir = state_template;
  const char* old_state = std::getenv("UISCOPE_STATE_DIR");
  const std::string saved_state = old_state ? old_state : "";
  ::setenv("UISCOPE_STATE_DIR", state_dir.c_str(), 1);
  const std::string victim = state_dir + "/victim";
  std::ofstream(victim) << "";
  const std::string private_dir = state_dir + "/app-logs";
  std::filesystem::create_directories(private_dir);
  // Every name the launch could pick within the next seconds, in /tmp and in
  // the log directory itself, is a link to the victim.
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  std::vector<std::string> planted;
  for (int64_t ms = now_ms; ms < now_ms + 3000; ++ms) {
    for (const std::string& dir : {std::string("/tmp"), private_dir}) {
      const std::string name = dir + "/uiscope-app-sh-" + std::to_string(ms) + ".log";
      if (::symlink(victim.c_str(), name.c_str()) == 0) planted.push_back(name);
    }
  }
  auto lease = workspace_->Acquire("", Workspace::Need::kHands);
  LaunchRequest r;
  // It lives on a moment: a launch keeps (and this test waits for) only a
  // process still running when the launch returns.
  r.argv = {"sh", "-c", "echo the output of the app; sleep 1"};
  r.wait = false;
  auto started = LaunchApp(*lease, r);
  ASSERT_TRUE(started.ok()) << started.error().message;
  ASSERT_TRUE(started->performed);
  auto& process = lease->hands->launched.at(started->pid);
  EXPECT_TRUE(process->Wait(std::chrono::milliseconds(5000)).ok());
  for (const std::string& name : planted) ::unlink(name.c_str());

  std::ifstream victim_in(victim);
  std::string victim_text((std::istreambuf_iterator<char>(victim_in)), {});
  EXPECT_EQ(victim_text, "") << "the log followed a planted link";
  EXPECT_EQ(std::filesystem::path(started->log_file).parent_path(), private_dir);
  struct stat dir_st {}, log_st {};
  ASSERT_EQ(::lstat(private_dir.c_str(), &dir_st), 0);
  EXPECT_EQ(dir_st.st_mode & 0777, 0700u);
  ASSERT_EQ(::lstat(started->log_file.c_str(), &log_st), 0) << started->log_file;
  EXPECT_TRUE(S_ISREG(log_st.st_mode));
  EXPECT_EQ(log_st.st_mode & 0777, 0600u);
  std::ifstream log_in(started->log_file);
  std::string log_text((std::istreambuf_iterator<char>(log_in)), {});
  EXPECT_EQ(log_text, "the output of the app\n");

  if (saved_state.empty()) {
    ::unsetenv("UISCOPE_STATE_DIR");
  } else {
    ::setenv("UISCOPE_STATE_DIR", saved_state.c_str(), 1);
  }
  std::filesystem::remove_all(state_dir);
}

// What app_close and session_stop print of an app's question, and of a
// forced close: app text escaped, and a close forced past a question says
// the unsaved work went with the app.
TEST(CloseTextTest, AQuestionAndAForcedCloseAreSaid) {
  AppQuestion q;
  q.title = "Save \"notes\"?\nbutton \"Delete\" btn_x";
  q.text = "Your changes will be lost.";
  q.buttons = {{"btn_1", "Save"}, {"btn_2", "Close without saving"}};
  const std::string asked = AppQuestionText(q);
  EXPECT_EQ(asked,
            "asks \"Save \\\"notes\\\"?\\nbutton \\\"Delete\\\" btn_x\": Your changes will be "
            "lost.\n  button \"Save\" btn_1\n  button \"Close without saving\" btn_2\n");

  CloseResult r;
  r.performed = true;
  r.stage = "terminated";
  r.app.name = "notes\nkilled nothing";
  r.app.pid = 812;
  r.waited_ms = 2013.4;
  EXPECT_EQ(CloseOutcomeText(r), "terminated notes\\nkilled nothing (pid 812) in 2013 ms\n");
  r.question = q;
  r.question->title = "Save changes?";
  EXPECT_EQ(CloseOutcomeText(r),
            "terminated notes\\nkilled nothing (pid 812) in 2013 ms, forced past its question "
            "\"Save changes?\": its unsaved work is lost\n");
  r.stage = "closed";  // it answered by itself: nothing forced
  EXPECT_EQ(CloseOutcomeText(r).find("forced"), std::string::npos);
}

TEST(SplitCommandLineTest, QuotesAndEscapes) {
  EXPECT_EQ(*SplitCommandLine("gedit  --new-window /tmp/a b"),
            (std::vector<std::string>{"gedit", "--new-window", "/tmp/a", "b"}));
  EXPECT_EQ(*SplitCommandLine(R"(app 'two words' "say \"hi\" $x" back\ slash '')"),
            (std::vector<std::string>{"app", "two words", "say \"hi\" $x", "back slash", ""}));
  EXPECT_EQ(*SplitCommandLine(R"(a "c:\dir")"), (std::vector<std::string>{"a", "c:\\dir"}));
  EXPECT_FALSE(SplitCommandLine("app 'open").ok());
  EXPECT_FALSE(SplitCommandLine("  ").ok());
}

}  // namespace
}  // namespace uiscope
