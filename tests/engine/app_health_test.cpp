// The circuit breaker (engine/app_health.h) and the X11 windows of apps
// whose tree cannot be read (engine/x11_windows_nodes.h), over the fake
// accessibility and fake windows: issue 15 §3 and §5.
#include "engine/app_health.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "core/ids.h"
#include "engine/act.h"
#include "engine/observe.h"
#include "support/fake_accessibility.h"
#include "support/fake_capture.h"
#include "support/fake_input.h"
#include "support/fake_windows.h"

namespace uiscope {
namespace {

using std::chrono::milliseconds;

Node App(const std::string& name, int pid) {
  Node app;
  app.role = Role::kApplication;
  app.name = name;
  app.app = name;
  app.pid = pid;
  Node window;
  window.role = Role::kWindow;
  window.name = name + " window";
  window.bounds = Rect{10, 10, 300, 200};
  window.app = name;
  window.pid = pid;
  window.states.Set(State::kShowing);
  Node button;
  button.role = Role::kButton;
  button.name = "OK";
  button.bounds = Rect{20, 20, 60, 24};
  button.app = name;
  button.pid = pid;
  button.states.Set(State::kShowing);
  window.children.push_back(button);
  app.children.push_back(window);
  return app;
}

WindowInfo XWindow(uint64_t id, const std::string& title, const std::string& instance, int pid) {
  WindowInfo w;
  w.id = id;
  w.title = title;
  w.app_instance = instance;
  w.app_class = instance;
  w.pid = pid;
  w.bounds = Rect{10, 10, 300, 200};
  return w;
}

const Node* AppNode(const Observation& obs, int pid) {
  for (const Node& r : obs.snapshot.roots) {
    if (r.pid == pid) return &r;
  }
  return nullptr;
}

bool Warned(const Observation& obs, const std::string& part) {
  for (const std::string& w : obs.warnings) {
    if (w.find(part) != std::string::npos) return true;
  }
  return false;
}

class BreakerTest : public ::testing::Test {
 protected:
  BreakerTest()
      : fake_({App("alpha", 100), App("beta", 200)}),
        windows_({XWindow(1, "alpha window", "alpha", 100), XWindow(2, "beta window", "beta", 200),
                  XWindow(3, "xterm", "xterm", 300)}) {}

  Result<Observation> ObserveAll(Observer& observer) {
    ObserveRequest r;
    r.timeout = milliseconds(2000);
    return observer.Observe(r);
  }

  test::FakeAccessibility fake_;
  test::FakeWindows windows_;
};

TEST_F(BreakerTest, AHungAppCostsItsDeadlineOnceThenOnlyAProbe) {
  Observer observer(fake_, Frame{800, 600, 1.0});
  observer.set_windows(&windows_);
  fake_.hung.insert(100);

  // First: the walk waits out alpha's deadline; its window is still there,
  // from X11, and beta is complete.
  auto first = ObserveAll(observer);
  ASSERT_TRUE(first.ok()) << first.error().ToString();
  EXPECT_EQ(fake_.waited_ms, 2000);
  ASSERT_EQ(first->unanswered.size(), 1u);
  EXPECT_EQ(first->unanswered[0].pid, 100);
  const Node* alpha = AppNode(*first, 100);
  ASSERT_NE(alpha, nullptr);
  EXPECT_EQ(alpha->source, Source::kX11);
  EXPECT_EQ(alpha->name, "alpha");
  ASSERT_EQ(alpha->children.size(), 1u);
  EXPECT_EQ(alpha->children[0].role, Role::kWindow);
  EXPECT_EQ(alpha->children[0].name, "alpha window");
  EXPECT_EQ(alpha->children[0].source, Source::kX11);
  EXPECT_FALSE(alpha->children[0].id.empty());
  const Node* beta = AppNode(*first, 200);
  ASSERT_NE(beta, nullptr);
  EXPECT_EQ(beta->source, Source::kAx);
  EXPECT_EQ(CountNodes(beta->children), 2u);

  // Second: one probe, no walk of alpha, the same window ID, and a warning
  // naming the app and since when it is silent.
  fake_.waited_ms = 0;
  auto second = ObserveAll(observer);
  ASSERT_TRUE(second.ok()) << second.error().ToString();
  EXPECT_EQ(fake_.waited_ms, AppHealth::kProbeTimeout.count());
  ASSERT_EQ(fake_.requests().size(), 2u);
  EXPECT_EQ(fake_.requests()[1].skip_buses, std::vector<std::string>{":1.alpha"});
  EXPECT_TRUE(Warned(*second, "alpha (pid 100)")) << ::testing::PrintToString(second->warnings);
  EXPECT_TRUE(Warned(*second, "not answering since "))
      << ::testing::PrintToString(second->warnings);
  ASSERT_NE(AppNode(*second, 100), nullptr);
  EXPECT_EQ(AppNode(*second, 100)->children.at(0).id, alpha->children[0].id);
  ASSERT_EQ(second->unanswered.size(), 1u);

  // It answers again: walked, its tree back, no warning, no probe next time.
  fake_.hung.clear();
  auto third = ObserveAll(observer);
  ASSERT_TRUE(third.ok());
  // The others are walked first; alpha answers the probe after, and is
  // walked then.
  ASSERT_EQ(fake_.requests().size(), 4u);
  EXPECT_EQ(fake_.requests()[2].skip_buses, std::vector<std::string>{":1.alpha"});
  EXPECT_EQ(fake_.requests()[3].pid, 100);
  ASSERT_NE(AppNode(*third, 100), nullptr);
  EXPECT_EQ(AppNode(*third, 100)->source, Source::kAx);
  EXPECT_TRUE(third->unanswered.empty());
  EXPECT_TRUE(third->warnings.empty()) << ::testing::PrintToString(third->warnings);
  const size_t probes = fake_.probes.size();
  ASSERT_TRUE(ObserveAll(observer).ok());
  EXPECT_EQ(fake_.probes.size(), probes) << "a healthy app was probed";
}

TEST_F(BreakerTest, AnElementOfASkippedAppIsNotAnswering) {
  Observer observer(fake_, Frame{800, 600, 1.0});
  observer.set_windows(&windows_);
  auto before = ObserveAll(observer);
  ASSERT_TRUE(before.ok());
  std::string ok_id;
  ForEachNode(AppNode(*before, 100)->children, [&](const Node& n, int) {
    if (n.role == Role::kButton) ok_id = n.id;
  });
  fake_.hung.insert(100);
  ASSERT_TRUE(ObserveAll(observer).ok());
  ASSERT_TRUE(ObserveAll(observer).ok());  // skipped by the breaker now
  auto why = observer.WhyMissing(ok_id);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(why->code, ErrorCode::kTimeout);
  EXPECT_NE(why->message.find("alpha (pid 100)"), std::string::npos) << why->message;
}

TEST_F(BreakerTest, RefreshOfASkippedAppKeepsItsX11Windows) {
  Observer observer(fake_, Frame{800, 600, 1.0});
  observer.set_windows(&windows_);
  fake_.hung.insert(100);
  ASSERT_TRUE(ObserveAll(observer).ok());
  fake_.waited_ms = 0;
  auto refreshed = observer.RefreshApp(100, milliseconds(2000));
  ASSERT_TRUE(refreshed.ok()) << refreshed.error().ToString();
  EXPECT_EQ(fake_.waited_ms, AppHealth::kProbeTimeout.count()) << "the hung app was walked";
  const Node* alpha = AppNode(*refreshed, 100);
  ASSERT_NE(alpha, nullptr);
  EXPECT_EQ(alpha->source, Source::kX11);
  ASSERT_NE(AppNode(*refreshed, 200), nullptr);
  ASSERT_EQ(refreshed->unanswered.size(), 1u);
}

TEST_F(BreakerTest, TheFileCarriesTheBreakerToTheNextProcess) {
  const std::string dir = ::testing::TempDir() + "/breaker" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::string file = AppHealthFile(dir, ":7");
  std::filesystem::remove(file);
  // A record names a live process (one that is gone is dropped on loading).
  const int live = ::getpid();
  fake_.apps()[1].pid = live;
  windows_.windows()[1].pid = live;
  fake_.hung.insert(live);
  {
    Observer first(fake_, Frame{800, 600, 1.0});
    first.set_windows(&windows_);
    first.set_app_health_file(file);
    ASSERT_TRUE(ObserveAll(first).ok());
  }
  ASSERT_TRUE(std::filesystem::exists(file));
  // A new observer (a new CLI call) skips beta at once.
  Observer second(fake_, Frame{800, 600, 1.0});
  second.set_windows(&windows_);
  second.set_app_health_file(file);
  fake_.waited_ms = 0;
  auto obs = ObserveAll(second);
  ASSERT_TRUE(obs.ok());
  EXPECT_EQ(fake_.waited_ms, AppHealth::kProbeTimeout.count());
  EXPECT_EQ(fake_.requests().back().skip_buses, std::vector<std::string>{":1.beta"});
  EXPECT_TRUE(Warned(*obs, "beta (pid " + std::to_string(live) + ")"));
  // Another display's file knows nothing of it.
  EXPECT_NE(AppHealthFile(dir, ":8"), file);
  std::filesystem::remove_all(dir);
}

TEST_F(BreakerTest, AGoneAppIsForgotten) {
  AppHealth health;
  health.Trip(AppInfo{"ghost", 900, "", "", ":1.ghost"}, AppHealth::WallClock::now());
  health.Trip(AppInfo{"alpha", 100, "", "", ":1.alpha"}, AppHealth::WallClock::now());
  fake_.hung.insert(100);
  auto silent = health.ProbeTripped(fake_, AppHealth::WallClock::now());
  ASSERT_EQ(silent.size(), 1u);
  EXPECT_EQ(silent[0].app.name, "alpha");
  EXPECT_EQ(health.records().size(), 1u);
}

TEST(DescribeSinceTest, SaysTheClockAndHowLongAgo) {
  const auto since =
      AppHealth::WallClock::time_point(std::chrono::seconds(20 * 3600 + 31 * 60 + 5));
  EXPECT_EQ(DescribeSince(since, since + std::chrono::seconds(12)),
            "since 20:31:05 UTC (12 s ago)");
}

TEST_F(BreakerTest, AnAppWithoutAccessibilityIsObservedFromItsWindows) {
  Observer observer(fake_, Frame{800, 600, 1.0});
  observer.set_windows(&windows_);
  ObserveRequest r;
  r.app = "xterm";
  auto obs = observer.Observe(r);
  ASSERT_TRUE(obs.ok()) << obs.error().ToString();
  ASSERT_EQ(obs->snapshot.roots.size(), 1u);
  const Node& app = obs->snapshot.roots[0];
  EXPECT_EQ(app.name, "xterm");
  EXPECT_EQ(app.source, Source::kX11);
  ASSERT_EQ(app.children.size(), 1u);
  EXPECT_EQ(app.children[0].name, "xterm");
  EXPECT_TRUE(Warned(*obs, "no accessibility tree")) << ::testing::PrintToString(obs->warnings);
  // By pid the same, with the same IDs.
  ObserveRequest by_pid;
  by_pid.pid = 300;
  auto again = observer.Observe(by_pid);
  ASSERT_TRUE(again.ok()) << again.error().ToString();
  EXPECT_EQ(again->snapshot.roots.at(0).children.at(0).id, app.children[0].id);
  // A name nothing has is still NotFound.
  ObserveRequest nothing;
  nothing.app = "nosuchapp";
  auto none = observer.Observe(nothing);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, ErrorCode::kNotFound);
}

TEST_F(BreakerTest, AScopedRequestForASkippedAppShowsItsWindows) {
  Observer observer(fake_, Frame{800, 600, 1.0});
  observer.set_windows(&windows_);
  fake_.hung.insert(100);
  ASSERT_TRUE(ObserveAll(observer).ok());
  fake_.waited_ms = 0;
  ObserveRequest r;
  r.app = "alpha";
  auto obs = observer.Observe(r);
  ASSERT_TRUE(obs.ok()) << obs.error().ToString();
  EXPECT_EQ(fake_.waited_ms, AppHealth::kProbeTimeout.count());
  ASSERT_EQ(obs->snapshot.roots.size(), 1u);
  EXPECT_EQ(obs->snapshot.roots[0].source, Source::kX11);
  ASSERT_EQ(obs->unanswered.size(), 1u);
  EXPECT_TRUE(Warned(*obs, "not answering since"));
}

// Input never waits on a hung app's accessibility, and a window known only
// from X11 takes clicks and keys by ID: through the window system and
// XTest, with no accessibility call at all.
TEST(X11WindowActionsTest, AWindowKnownFromX11TakesInputByIdWithoutAccessibility) {
  auto ax = std::make_unique<test::FakeAccessibility>(std::vector<Node>{App("alpha", 100)});
  test::FakeAccessibility* fake = ax.get();
  auto input = std::make_unique<test::FakeInput>();
  test::FakeInput* events = input.get();
  WindowInfo alpha = XWindow(1, "alpha window", "alpha", 100);
  WindowInfo xterm = XWindow(3, "user@host: ~", "xterm", 300);
  xterm.bounds = Rect{400, 300, 200, 100};
  alpha.focused = true;
  auto windows = std::make_unique<test::FakeWindows>(std::vector<WindowInfo>{alpha, xterm});
  test::FakeWindows* x = windows.get();
  Workspace workspace(FakeDesktopParts{std::move(ax), Frame{1920, 1080, 1.0}, std::move(input),
                                       std::move(windows),
                                       std::make_unique<test::FakeCapture>(1920, 1080)});
  fake->hung.insert(100);
  std::string xterm_id;
  std::string alpha_id;
  {
    auto lease = workspace.Acquire();
    ASSERT_TRUE(lease.ok());
    auto obs = lease->observer->Observe(ObserveRequest{});
    ASSERT_TRUE(obs.ok()) << obs.error().ToString();
    ForEachNode(obs->snapshot.roots, [&](const Node& n, int) {
      if (n.role != Role::kWindow || n.source != Source::kX11) return;
      if (n.pid == 300) xterm_id = n.id;
      if (n.pid == 100) alpha_id = n.id;
    });
  }
  ASSERT_FALSE(xterm_id.empty()) << "an app without accessibility is missing from the desktop";
  ASSERT_FALSE(alpha_id.empty()) << "the hung app's window is missing";

  auto act = [&](ActionRequest r) -> Result<ActionResult> {
    auto lease = workspace.Acquire("", Workspace::Need::kHands);
    if (!lease.ok()) return lease.error();
    r.verify.settle = milliseconds(30);
    return PerformAction(*lease, r);
  };
  ActionRequest click;
  click.kind = ActionKind::kClick;
  click.target.id = xterm_id;
  auto clicked = act(click);
  ASSERT_TRUE(clicked.ok()) << clicked.error().ToString();
  EXPECT_EQ(clicked->via, "xtest");
  EXPECT_EQ(events->events().back(), "click left 500,350 x1");

  ActionRequest keys;
  keys.kind = ActionKind::kPressKeys;
  keys.target.id = alpha_id;
  keys.keys = {"ctrl+c"};
  const size_t walks_before = fake->requests().size();
  auto pressed = act(keys);
  ASSERT_TRUE(pressed.ok()) << pressed.error().ToString();
  EXPECT_EQ(pressed->via, "xtest");
  EXPECT_EQ(events->events().back(), "chord ctrl+c");
  EXPECT_EQ(x->calls().back(), "activate 1") << "keys go to the hung app's window";
  // Every observation the action made (resolving, verifying) probed the
  // hung app at most; none walked it.
  for (size_t i = walks_before; i < fake->requests().size(); ++i) {
    const TreeRequest& t = fake->requests()[i];
    const bool skips = std::find(t.skip_buses.begin(), t.skip_buses.end(), ":1.alpha") !=
                       t.skip_buses.end();
    EXPECT_TRUE(t.pid != 100 && (t.pid != 0 || skips)) << "request " << i << " walked alpha";
  }
  EXPECT_FALSE(fake->probes.empty());
  for (const std::string& p : fake->probes) EXPECT_EQ(p, "probe alpha:silent");
  EXPECT_TRUE(fake->calls().empty()) << ::testing::PrintToString(fake->calls());
}

}  // namespace
}  // namespace uiscope
