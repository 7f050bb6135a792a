// What the deny list hides besides trees (engine/privacy.h): which windows
// are hidden, the screen areas they show, and input that would reach them.
#include "engine/privacy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "support/fake_accessibility.h"

namespace uiscope {
namespace {

// login-app (pid 4242) plus KeePassXC (pid 5151) on the bus.
std::vector<Node> TwoApps() {
  auto apps = test::LoadFixtureTree(std::string(UISCOPE_TREE_FIXTURES) + "/login.json");
  Node vault = apps.front();
  vault.name = "KeePassXC";
  vault.pid = 5151;
  apps.push_back(vault);
  return apps;
}

bool Denied(const std::string& app) {
  return app == "KeePassXC" || app == "keepassxc" || app == "Seahorse";
}

WindowInfo Top(unsigned long id, int pid, Rect bounds, std::string app_class = "") {
  WindowInfo t;
  t.id = id;
  t.pid = pid;
  t.bounds = bounds;
  t.frame = bounds;
  t.app_class = std::move(app_class);
  return t;
}

TEST(Subtract, CutsAHoleIntoBands) {
  const Rect a{0, 0, 100, 100};
  EXPECT_EQ(Subtract(a, {}), std::vector<Rect>{a});
  EXPECT_TRUE(Subtract(a, {Rect{-10, -10, 200, 200}}).empty());
  auto parts = Subtract(a, {Rect{25, 25, 50, 50}});
  ASSERT_EQ(parts.size(), 4u);
  long area = 0;
  for (const Rect& p : parts) {
    area += static_cast<long>(p.w) * p.h;
    EXPECT_TRUE(Intersect(p, Rect{25, 25, 50, 50}).Empty());
  }
  EXPECT_EQ(area, 100 * 100 - 50 * 50);
  EXPECT_EQ(Subtract(a, {Rect{200, 200, 10, 10}}), std::vector<Rect>{a});
}

TEST(HiddenWindows, NothingHiddenWithoutADenyList) {
  test::FakeAccessibility ax(TwoApps());
  Observer observer(ax, Frame{1920, 1080, 1});
  HiddenWindows hidden = HiddenWindows::Of(observer);
  EXPECT_TRUE(hidden.empty());
  EXPECT_FALSE(hidden.IsHidden(Top(1, 5151, Rect{0, 0, 10, 10})));
  EXPECT_TRUE(hidden.Regions({Top(1, 5151, Rect{0, 0, 10, 10})}, {1}).empty());
}

TEST(HiddenWindows, ByAccessibleProcessByWmClassNotOthers) {
  test::FakeAccessibility ax(TwoApps());
  Observer observer(ax, Frame{1920, 1080, 1});
  observer.set_hide_app(Denied);
  HiddenWindows hidden = HiddenWindows::Of(observer);
  ASSERT_FALSE(hidden.empty());
  EXPECT_TRUE(hidden.IsHidden(Top(1, 5151, Rect{})));           // KeePassXC's pid on the bus
  EXPECT_TRUE(hidden.IsHidden(Top(2, 0, Rect{}, "Seahorse")));  // no accessibility
  EXPECT_FALSE(hidden.IsHidden(Top(3, 4242, Rect{}, "Login-app")));
  // This process's name (the test binary) is not denied.
  EXPECT_FALSE(hidden.IsHidden(Top(4, static_cast<int>(getpid()), Rect{})));
  auto visible = hidden.Visible({Top(1, 5151, Rect{}), Top(3, 4242, Rect{})});
  ASSERT_EQ(visible.size(), 1u);
  EXPECT_EQ(visible[0].id, 3u);
}

TEST(HiddenWindows, RegionsLeaveAllowedWindowsOnTopVisible) {
  test::FakeAccessibility ax(TwoApps());
  Observer observer(ax, Frame{1920, 1080, 1});
  observer.set_hide_app(Denied);
  HiddenWindows hidden = HiddenWindows::Of(observer);
  const std::vector<WindowInfo> windows = {Top(1, 5151, Rect{0, 0, 400, 300}),
                                              Top(2, 4242, Rect{200, 0, 400, 300})};
  // The allowed window above the hidden one: only the uncovered part is masked.
  auto under = hidden.Regions(windows, {1, 2});
  ASSERT_EQ(under.size(), 1u);
  EXPECT_EQ(under[0], (Rect{0, 0, 200, 300}));
  // The hidden window on top: all of it.
  auto over = hidden.Regions(windows, {2, 1});
  ASSERT_EQ(over.size(), 1u);
  EXPECT_EQ(over[0], (Rect{0, 0, 400, 300}));
  // Not in the stacking order: all of it (the safe mistake).
  EXPECT_EQ(hidden.Regions(windows, {2}), (std::vector<Rect>{Rect{0, 0, 400, 300}}));
}

TEST(HiddenWindows, InputReachingAHiddenWindow) {
  test::FakeAccessibility ax(TwoApps());
  Observer observer(ax, Frame{1920, 1080, 1});
  observer.set_hide_app(Denied);
  HiddenWindows hidden = HiddenWindows::Of(observer);
  WindowInfo vault;
  vault.id = 1;
  vault.pid = 5151;
  vault.bounds = Rect{0, 0, 400, 300};
  WindowInfo app;
  app.id = 2;
  app.pid = 4242;
  app.bounds = Rect{200, 0, 400, 300};
  const std::vector<WindowInfo> bottom_to_top = {vault, app};
  EXPECT_TRUE(InputReachesHiddenWindow(hidden, bottom_to_top, {Point{50, 50}}, std::nullopt));
  EXPECT_FALSE(InputReachesHiddenWindow(hidden, bottom_to_top, {Point{250, 50}}, std::nullopt));
  EXPECT_TRUE(InputReachesHiddenWindow(hidden, bottom_to_top, {}, vault));  // keys to it
  EXPECT_FALSE(InputReachesHiddenWindow(hidden, bottom_to_top, {}, app));
  vault.visible = false;  // minimised: the click lands on the desktop
  EXPECT_FALSE(InputReachesHiddenWindow(hidden, {vault, app}, {Point{50, 50}}, std::nullopt));
}

}  // namespace
}  // namespace uiscope
