// Desktop tests of the AT-SPI backend against the GTK3 fixture on a real
// headless desktop (Xvfb + D-Bus + AT-SPI + openbox).
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "platform/accessibility.h"
#include "support/desktop_fixture.h"
#include "support/tree_queries.h"

namespace uiscope {
namespace {

using std::chrono::milliseconds;
using test::CountRole;
using test::FindNode;
using test::TestDesktop;

AtspiOptions OptionsFor(const DesktopInfo& info) {
  AtspiOptions o;
  o.session_bus_address = info.dbus_address;
  o.display = info.display_name;
  return o;
}

// Polls until the app with `pid` shows a window on the accessibility bus.
Result<TreeResult> WaitForTree(Accessibility& ax, TreeRequest request) {
  Result<TreeResult> tree = MakeError(ErrorCode::kNotFound, "not yet");
  test::WaitUntil(
      [&] {
        tree = ax.Tree(request);
        return tree.ok() && !tree->apps.empty() && !tree->apps[0].children.empty();
      },
      milliseconds(10000));
  return tree;
}

void ExpectNear(const Rect& actual, const test::ScreenBox& expected, const char* what) {
  EXPECT_NEAR(actual.x, expected.x, 2) << what;
  EXPECT_NEAR(actual.y, expected.y, 2) << what;
  EXPECT_NEAR(actual.w, expected.w, 2) << what;
  EXPECT_NEAR(actual.h, expected.h, 2) << what;
}

class AtspiTreeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(desktop_.ok()) << desktop_.error();
    fixture_ = desktop_.LaunchFixture();
    ASSERT_NE(fixture_, nullptr);
    auto ax = ConnectAtspi(OptionsFor(desktop_.info()));
    ASSERT_TRUE(ax.ok()) << ax.error().ToString();
    ax_ = std::move(ax).value();
  }

  TreeRequest ForFixture() const {
    TreeRequest r;
    r.pid = fixture_->pid();
    return r;
  }

  TestDesktop& desktop_ = TestDesktop::Shared();
  std::unique_ptr<Process> fixture_;
  std::unique_ptr<Accessibility> ax_;
};

TEST(ToolkitLabelTest, NamesTheToolkitInOneWord) {
  auto label = [](std::string name, std::string toolkit, std::string version) {
    // pid 0: no process, no command line (Chromium is the browser).
    return ToolkitLabel(AppInfo{std::move(name), 0, std::move(toolkit), std::move(version), ""});
  };
  EXPECT_EQ(label("gedit", "GTK", "3.24.38"), "gtk3");
  EXPECT_EQ(label("gtk4-demo", "GTK", "4.8.3"), "gtk4");
  EXPECT_EQ(label("GNU Image Manipulation Program", "GAIL", "2.24.33"), "gtk2");
  EXPECT_EQ(label("kcalc", "Qt", "5.15.8"), "qt5");
  EXPECT_EQ(label("Chromium", "Chromium", "116"), "chromium");
  EXPECT_EQ(label("soffice", "gtk", "3.24.38"), "libreoffice-vcl");
  EXPECT_EQ(label("app", "Tk", ""), "tk");
  EXPECT_EQ(label("app", "", ""), "");
}

TEST_F(AtspiTreeTest, FixtureTreeHasExpectedWidgetsWithRealGeometry) {
  auto tree = WaitForTree(*ax_, ForFixture());
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  ASSERT_EQ(tree->apps.size(), 1u);
  const Node& app = tree->apps[0];
  EXPECT_EQ(app.role, Role::kApplication);
  EXPECT_EQ(app.name, "uiscope-fixture");
  EXPECT_EQ(app.pid, fixture_->pid());

  const Node* window = FindNode(tree->apps, Role::kWindow, "uiscope fixture");
  ASSERT_NE(window, nullptr);
  ASSERT_TRUE(window->bounds);
  auto geometry = test::FixtureBox(*fixture_, "geometry");
  ASSERT_TRUE(geometry.ok()) << geometry.error().ToString();
  // GTK3 reports the window with its window-manager frame (title bar and
  // border); the client area the fixture reports lies inside it.
  Rect client{geometry->x, geometry->y, geometry->w, geometry->h};
  EXPECT_TRUE(window->bounds->Contains(client));
  EXPECT_LE(window->bounds->w - client.w, 10);
  EXPECT_LE(window->bounds->h - client.h, 40);
  EXPECT_NEAR(window->bounds->Bottom(), client.Bottom(), 6);

  struct Expected {
    Role role;
    const char* name;
    const char* widget;  // fixture control name for the real geometry
  };
  for (const Expected& e : {Expected{Role::kTextField, "Email", "email"},
                            Expected{Role::kTextField, "Password", "password"},
                            Expected{Role::kCheckBox, "Remember me", "remember"},
                            Expected{Role::kButton, "Login", "login"},
                            Expected{Role::kLabel, "Not logged in", "status"},
                            Expected{Role::kButton, "Add row", "add_row"},
                            Expected{Role::kSlider, "Volume", "volume"}}) {
    const Node* node = FindNode(tree->apps, e.role, e.name);
    ASSERT_NE(node, nullptr) << RoleName(e.role) << " \"" << e.name << "\" missing";
    ASSERT_TRUE(node->bounds) << e.name;
    auto box = test::FixtureBox(*fixture_, std::string("widget ") + e.widget);
    ASSERT_TRUE(box.ok()) << box.error().ToString();
    ExpectNear(*node->bounds, *box, e.name);
    EXPECT_TRUE(node->Has(State::kShowing)) << e.name;
    EXPECT_TRUE(node->Has(State::kEnabled)) << e.name;
  }
  EXPECT_NE(FindNode(tree->apps, Role::kTab, "General"), nullptr);
  EXPECT_NE(FindNode(tree->apps, Role::kTab, "Advanced"), nullptr);
  EXPECT_NE(FindNode(tree->apps, Role::kMenu, "File"), nullptr);
  EXPECT_NE(FindNode(tree->apps, Role::kLabel, "Row 1"), nullptr);
  EXPECT_EQ(CountRole(tree->apps, Role::kCanvas), 1);

  const Node* login = FindNode(tree->apps, Role::kButton, "Login");
  EXPECT_NE(std::find(login->actions.begin(), login->actions.end(), "click"), login->actions.end());
  const Node* volume = FindNode(tree->apps, Role::kSlider, "Volume");
  EXPECT_EQ(volume->value, "25");
  const Node* password = FindNode(tree->apps, Role::kTextField, "Password");
  EXPECT_TRUE(password->Has(State::kPassword));
  EXPECT_TRUE(password->value.empty());
}

TEST_F(AtspiTreeTest, ObservingLeavesNoWarningInTheApp) {
  // Calls on interfaces an object lacks make GTK's bridge log CRITICALs.
  TreeRequest r = ForFixture();
  ASSERT_TRUE(WaitForTree(*ax_, r).ok());
  r.include_hidden = true;
  ASSERT_TRUE(ax_->Tree(r).ok());
  ASSERT_TRUE(test::FixtureCommand(*fixture_, "status").ok());  // flushes the app's output
  std::string log = FileTail(desktop_.last_log(), 1000);
  EXPECT_EQ(log.find("CRITICAL"), std::string::npos) << log;
  EXPECT_EQ(log.find("WARNING"), std::string::npos) << log;
}

TEST_F(AtspiTreeTest, ReadsEntryTextButNeverPasswordText) {
  ASSERT_TRUE(test::FixtureCommand(*fixture_, "set-email ada@example.org").ok());
  ASSERT_TRUE(test::FixtureCommand(*fixture_, "set-password hunter2-secret").ok());
  auto tree = WaitForTree(*ax_, ForFixture());
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(FindNode(tree->apps, Role::kTextField, "Email")->value, "ada@example.org");
  bool leaked = false;
  ForEachNode(tree->apps, [&](const Node& n, int) {
    leaked |=
        n.value.find("hunter2") != std::string::npos || n.name.find("hunter2") != std::string::npos;
  });
  EXPECT_FALSE(leaked);
}

TEST_F(AtspiTreeTest, UnknownAppErrorListsTheAppsPresent) {
  ASSERT_TRUE(WaitForTree(*ax_, ForFixture()).ok());
  TreeRequest r;
  r.app_name = "no-such-app";
  auto tree = ax_->Tree(r);
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.error().code, ErrorCode::kNotFound);
  EXPECT_NE(tree.error().message.find("uiscope-fixture"), std::string::npos)
      << tree.error().message;
}

TEST_F(AtspiTreeTest, AppThatStopsAnsweringTimesOutWithinTwoSeconds) {
  ASSERT_TRUE(WaitForTree(*ax_, ForFixture()).ok());
  ASSERT_TRUE(test::FixtureCommand(*fixture_, "hang 6000").ok());
  TreeRequest r = ForFixture();
  r.timeout = milliseconds(1500);
  auto start = std::chrono::steady_clock::now();
  auto tree = ax_->Tree(r);
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed, milliseconds(2000));
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.error().code, ErrorCode::kTimeout) << tree.error().ToString();
  // The cause and the remedy, naming the app: not a bus or "not found" story.
  EXPECT_NE(tree.error().message.find("not answering"), std::string::npos) << tree.error().message;
  EXPECT_NE(tree.error().message.find("(pid " + std::to_string(fixture_->pid()) + ")"),
            std::string::npos)
      << tree.error().message;
  EXPECT_NE(tree.error().message.find("close it"), std::string::npos) << tree.error().message;
}

TEST_F(AtspiTreeTest, AppKilledDuringAWalkHasExitedNotTheBusLauncher) {
  ASSERT_TRUE(WaitForTree(*ax_, ForFixture()).ok());
  const int pid = fixture_->pid();
  // Hung, the app leaves the walk waiting on its socket; it dies there.
  ASSERT_TRUE(test::FixtureCommand(*fixture_, "hang 6000").ok());
  TreeRequest r = ForFixture();
  r.timeout = milliseconds(4000);
  Result<TreeResult> tree = MakeError(ErrorCode::kInternal, "not run");
  auto start = std::chrono::steady_clock::now();
  std::thread walk([&] { tree = ax_->Tree(r); });
  // Not a wait for an effect: the moment of the crash, well inside the walk.
  std::this_thread::sleep_for(milliseconds(300));
  ::kill(pid, SIGKILL);
  walk.join();
  auto elapsed = std::chrono::steady_clock::now() - start;
  std::cout << "[ measured ] walk of an app killed 300 ms in: "
            << std::chrono::duration<double, std::milli>(elapsed).count() << " ms\n";
  ASSERT_TRUE(fixture_->Wait(milliseconds(5000)).ok());
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.error().code, ErrorCode::kStale) << tree.error().ToString();
  EXPECT_NE(tree.error().message.find("exited"), std::string::npos) << tree.error().message;
  EXPECT_NE(tree.error().message.find("(pid " + std::to_string(pid) + ")"), std::string::npos)
      << tree.error().message;
  EXPECT_EQ(tree.error().message.find("launcher"), std::string::npos) << tree.error().message;
  EXPECT_LT(elapsed, milliseconds(4000));

  // Asked again, between walks: still "exited", not "no such process".
  auto again = ax_->Tree(ForFixture());
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, ErrorCode::kStale) << again.error().ToString();
  EXPECT_NE(again.error().message.find("exited"), std::string::npos) << again.error().message;
}

// Mousepad pads its menu items' names for the accelerator column
// ("Save      "); the fixture's "Save" item is padded alike.
TEST_F(AtspiTreeTest, NamesAreTrimmedOfPadding) {
  TreeRequest r = ForFixture();
  r.include_hidden = true;  // the menu is closed
  Result<TreeResult> tree = MakeError(ErrorCode::kNotFound, "not yet");
  test::WaitUntil(
      [&] {
        tree = ax_->Tree(r);
        return tree.ok() && FindNode(tree->apps, Role::kMenuItem, "New") != nullptr;
      },
      milliseconds(10000));
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_NE(FindNode(tree->apps, Role::kMenuItem, "Save"), nullptr);
  ForEachNode(tree->apps, [](const Node& n, int) {
    EXPECT_EQ(n.name.find("  "), std::string::npos) << '"' << n.name << '"';
    if (!n.name.empty()) {
      EXPECT_NE(n.name.back(), ' ') << '"' << n.name << '"';
    }
  });
}

// GTK 2 (GAIL) never marks an open menu's items "showing" and keeps their
// state and extents once the menu closes: GIMP 2.10's open menus were
// pruned whole. Items inside an open popup window are shown; closed, pruned.
TEST(AtspiGtk2Test, OpenMenuItemsAreObservedAndClosedOnesPruned) {
#ifndef UISCOPE_FIXTURE_GTK2
  GTEST_SKIP() << "GTK 2's headers (libgtk2.0-dev) were missing at build time";
#else
  TestDesktop& desktop = TestDesktop::Shared();
  ASSERT_TRUE(desktop.ok()) << desktop.error();
  SpawnOptions options;
  options.argv = {UISCOPE_FIXTURE_GTK2};
  options.env = {{"GTK_MODULES", "gail:atk-bridge"}};
  options.unset_env = {"NO_AT_BRIDGE"};
  options.pipe_stdin = true;
  std::unique_ptr<Process> app = desktop.Launch(options);
  ASSERT_NE(app, nullptr);
  auto ax = ConnectAtspi(OptionsFor(desktop.info()));
  ASSERT_TRUE(ax.ok()) << ax.error().ToString();
  TreeRequest request;
  request.pid = app->pid();
  auto tree = WaitForTree(**ax, request);
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  ASSERT_NE(FindNode(tree->apps, Role::kMenu, "File"), nullptr);
  EXPECT_EQ(FindNode(tree->apps, Role::kMenuItem, "New"), nullptr) << "the menu is closed";

  ASSERT_TRUE(app->WriteLine("open").ok());
  const Node* item = nullptr;
  EXPECT_TRUE(test::WaitUntil(
      [&] {
        tree = (*ax)->Tree(request);
        item = tree.ok() ? FindNode(tree->apps, Role::kMenuItem, "Quit") : nullptr;
        return item != nullptr;
      },
      milliseconds(10000)))
      << "the open menu's items are observed";
  ASSERT_NE(item, nullptr);
  ASSERT_TRUE(item->bounds);
  const Node* file = FindNode(tree->apps, Role::kMenu, "File");
  ASSERT_NE(file, nullptr);
  ASSERT_TRUE(file->bounds);
  EXPECT_GE(item->bounds->y, file->bounds->Bottom() - 2) << "below the menu bar";
  EXPECT_NE(FindNode(tree->apps, Role::kMenuItem, "New"), nullptr);

  ASSERT_TRUE(app->WriteLine("close").ok());
  EXPECT_TRUE(test::WaitUntil(
      [&] {
        tree = (*ax)->Tree(request);
        return tree.ok() && FindNode(tree->apps, Role::kMenu, "File") != nullptr &&
               FindNode(tree->apps, Role::kMenuItem, "Quit") == nullptr;
      },
      milliseconds(10000)))
      << "a closed menu's items are pruned, though GAIL reports them as before";
#endif
}

TEST_F(AtspiTreeTest, AppThatQuitIsReportedNotHung) {
  ASSERT_TRUE(WaitForTree(*ax_, ForFixture()).ok());
  int pid = fixture_->pid();
  ::kill(pid, SIGKILL);
  ASSERT_TRUE(fixture_->Wait(milliseconds(5000)).ok());
  TreeRequest r;
  r.pid = pid;
  auto start = std::chrono::steady_clock::now();
  auto tree = ax_->Tree(r);
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(2500));
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.error().code, ErrorCode::kStale) << tree.error().ToString();
  EXPECT_NE(tree.error().message.find("exited"), std::string::npos) << tree.error().message;
}

TEST(AtspiConnectTest, NoSessionNamesSessionStart) {
  // Without DISPLAY and DBUS_SESSION_BUS_ADDRESS there is nothing to reach.
  std::string display = std::getenv("DISPLAY") ? std::getenv("DISPLAY") : "";
  std::string bus =
      std::getenv("DBUS_SESSION_BUS_ADDRESS") ? std::getenv("DBUS_SESSION_BUS_ADDRESS") : "";
  unsetenv("DISPLAY");
  unsetenv("DBUS_SESSION_BUS_ADDRESS");
  auto ax = ConnectAtspi(AtspiOptions{});
  if (!display.empty()) setenv("DISPLAY", display.c_str(), 1);
  if (!bus.empty()) setenv("DBUS_SESSION_BUS_ADDRESS", bus.c_str(), 1);
  ASSERT_FALSE(ax.ok());
  EXPECT_EQ(ax.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(ax.error().message.find("uiscope session start"), std::string::npos)
      << ax.error().message;
}

TEST(AtspiConnectTest, UnreachableBusIsAClearError) {
  AtspiOptions o;
  o.session_bus_address = "unix:path=/nonexistent/uiscope-test-bus";
  o.display = ":9999";  // no X server: no AT_SPI_BUS fallback either
  o.connect_timeout = milliseconds(500);
  auto ax = ConnectAtspi(o);
  ASSERT_FALSE(ax.ok());
  EXPECT_EQ(ax.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(ax.error().message.find("accessibility bus is unreachable"), std::string::npos)
      << ax.error().message;
}

class AtspiLargeTreeTest : public ::testing::Test {};

TEST_F(AtspiLargeTreeTest, ScrolledOutRowsArePrunedUnlessAllIsAsked) {
  TestDesktop& desktop = TestDesktop::Shared();
  ASSERT_TRUE(desktop.ok()) << desktop.error();
  auto fixture = desktop.LaunchFixture({"--rows", "1000"}, milliseconds(30000));
  ASSERT_NE(fixture, nullptr);
  auto ax = ConnectAtspi(OptionsFor(desktop.info()));
  ASSERT_TRUE(ax.ok()) << ax.error().ToString();
  TreeRequest r;
  r.pid = fixture->pid();
  auto shown = WaitForTree(**ax, r);
  ASSERT_TRUE(shown.ok()) << shown.error().ToString();
  size_t shown_nodes = CountNodes(shown->apps);
  EXPECT_LT(shown_nodes, 300u);
  EXPECT_NE(FindNode(shown->apps, Role::kLabel, "Row 1"), nullptr);
  EXPECT_EQ(FindNode(shown->apps, Role::kLabel, "Row 900"), nullptr);

  r.include_hidden = true;
  r.timeout = milliseconds(10000);
  auto all = (*ax)->Tree(r);
  ASSERT_TRUE(all.ok()) << all.error().ToString();
  EXPECT_GT(CountNodes(all->apps), 2000u);
  EXPECT_NE(FindNode(all->apps, Role::kLabel, "Row 900"), nullptr);
  EXPECT_GE(CountRole(all->apps, Role::kListItem), 1000);

  r.max_nodes = 500;
  auto capped = (*ax)->Tree(r);
  ASSERT_TRUE(capped.ok());
  EXPECT_LE(CountNodes(capped->apps), 500u);
  ASSERT_FALSE(capped->warnings.empty());
  EXPECT_NE(capped->warnings[0].find("capped"), std::string::npos);
}

}  // namespace
}  // namespace uiscope
