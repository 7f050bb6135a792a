// The GTK3 fixture in a headless desktop, driven through its control channel.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "session/headless_desktop.h"
#include "session/process.h"
#include "support/desktop_fixture.h"

namespace uiscope {
namespace {

using std::chrono::milliseconds;
using test::FixtureBox;
using test::FixtureCommand;
using test::ScreenBox;

bool Inside(const ScreenBox& inner, const ScreenBox& outer) {
  return inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.w <= outer.x + outer.w &&
         inner.y + inner.h <= outer.y + outer.h;
}

TEST(FixtureAppTest, ControlChannelDrivesTheLoginForm) {
  test::TestDesktop desktop;
  ASSERT_TRUE(desktop.ok()) << desktop.error();
  auto app = desktop.LaunchFixture();
  ASSERT_NE(app, nullptr);

  auto window = FixtureBox(*app, "geometry");
  ASSERT_TRUE(window.ok()) << window.error().ToString();
  // Default size, placed at --position (frame at 100,80; the client area is
  // below and right of the decorations).
  EXPECT_EQ(window->w, 900);
  EXPECT_EQ(window->h, 700);
  EXPECT_GE(window->x, 100);
  EXPECT_GE(window->y, 80);
  EXPECT_LT(window->x, 100 + 50);
  EXPECT_LT(window->y, 80 + 80);

  auto login = FixtureBox(*app, "widget login");
  ASSERT_TRUE(login.ok()) << login.error().ToString();
  EXPECT_GT(login->w, 0);
  EXPECT_GT(login->h, 0);
  EXPECT_TRUE(Inside(*login, *window));

  EXPECT_EQ(FixtureCommand(*app, "status").value(), "Not logged in");
  ASSERT_TRUE(FixtureCommand(*app, "set-email a@b.c").ok());
  ASSERT_TRUE(FixtureCommand(*app, "click-login").ok());
  auto status = FixtureCommand(*app, "status");
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(*status, "Logged in as a@b.c");

  EXPECT_EQ(FixtureCommand(*app, "insert-row").value(), "New row 1");
  EXPECT_EQ(FixtureCommand(*app, "insert-row").value(), "New row 2");

  auto unknown = FixtureCommand(*app, "fly");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("error"), std::string::npos);

  ASSERT_TRUE(FixtureCommand(*app, "quit").ok());
  auto code = app->Wait(milliseconds(5000));
  ASSERT_TRUE(code.ok()) << code.error().ToString();
  EXPECT_EQ(*code, 0);
}

TEST(FixtureAppTest, WidgetsMoveAndCanvasReportScreenCoordinates) {
  test::TestDesktop desktop;
  ASSERT_TRUE(desktop.ok()) << desktop.error();
  auto app = desktop.LaunchFixture({"--position", "40,30", "--title", "moved"});
  ASSERT_NE(app, nullptr);

  auto window = FixtureBox(*app, "geometry");
  ASSERT_TRUE(window.ok()) << window.error().ToString();
  for (const char* name : {"email", "password", "remember", "login", "status", "add_row", "list",
                           "volume", "canvas", "notebook"}) {
    auto box = FixtureBox(*app, std::string("widget ") + name);
    ASSERT_TRUE(box.ok()) << name << ": " << box.error().ToString();
    EXPECT_TRUE(Inside(*box, *window)) << name;
    EXPECT_GT(box->w * box->h, 0) << name;
  }
  EXPECT_FALSE(FixtureCommand(*app, "widget nope").ok());

  auto canvas = FixtureBox(*app, "widget canvas");
  ASSERT_TRUE(canvas.ok());
  EXPECT_EQ(canvas->w, 560);
  EXPECT_EQ(canvas->h, 160);
  auto shapes_line = FixtureCommand(*app, "canvas");
  ASSERT_TRUE(shapes_line.ok());
  auto shapes = nlohmann::json::parse(*shapes_line);
  ASSERT_EQ(shapes.size(), 7u);
  EXPECT_EQ(shapes[0]["label"], "OK");
  EXPECT_EQ(shapes[0]["role"], "button");
  EXPECT_EQ(shapes[0]["x"], canvas->x + 20);
  EXPECT_EQ(shapes[0]["y"], canvas->y + 24);
  EXPECT_EQ(shapes[3]["role"], "text_field");
  EXPECT_EQ(shapes[4]["role"], "check_box");
  EXPECT_EQ(shapes[5]["role"], "icon");
  EXPECT_EQ(shapes[6]["role"], "slider");
  for (const auto& s : shapes) {
    EXPECT_LE(s["x"].get<int>() + s["w"].get<int>(), canvas->x + canvas->w) << s.dump();
    EXPECT_LE(s["y"].get<int>() + s["h"].get<int>(), canvas->y + canvas->h) << s.dump();
  }

  // Moving the window moves everything by the same amount.
  auto moved = FixtureBox(*app, "move 300 200");
  ASSERT_TRUE(moved.ok()) << moved.error().ToString();
  EXPECT_EQ(moved->x - window->x, 300 - 40);
  EXPECT_EQ(moved->y - window->y, 200 - 30);
  auto canvas_after = FixtureBox(*app, "widget canvas");
  ASSERT_TRUE(canvas_after.ok());
  EXPECT_EQ(canvas_after->x - canvas->x, 260);
  EXPECT_EQ(canvas_after->y - canvas->y, 170);
}

TEST(FixtureAppTest, DescribeCanvasNeedsNoDisplay) {
  SpawnOptions options;
  options.argv = {UISCOPE_FIXTURE_GTK3, "--describe-canvas"};
  options.unset_env = {"DISPLAY"};
  options.capture_stdout = true;
  auto describe = Process::Spawn(options);
  ASSERT_TRUE(describe.ok()) << describe.error().ToString();
  auto line = (*describe)->ReadLine(milliseconds(5000));
  ASSERT_TRUE(line.ok()) << line.error().ToString();
  auto shapes = nlohmann::json::parse(*line);
  ASSERT_EQ(shapes.size(), 7u);
  EXPECT_EQ(shapes[1]["label"], "Cancel");
  EXPECT_EQ(shapes[4]["label"], "Sync");
  EXPECT_EQ(shapes[3]["label"], "Search\u2026");
  EXPECT_EQ((*describe)->Wait(milliseconds(5000)).value(), 0);
}

TEST(FixtureAppTest, HangBlocksTheMainLoopThenRecovers) {
  test::TestDesktop desktop;
  ASSERT_TRUE(desktop.ok()) << desktop.error();
  auto app = desktop.LaunchFixture();
  ASSERT_NE(app, nullptr);
  ASSERT_TRUE(FixtureCommand(*app, "hang 700").ok());
  // While it hangs, commands are not answered...
  auto during = FixtureCommand(*app, "status", milliseconds(200));
  ASSERT_FALSE(during.ok());
  EXPECT_EQ(during.error().code, ErrorCode::kTimeout);
  // ...and afterwards the queued one is.
  auto late = app->ReadLine(milliseconds(5000));
  ASSERT_TRUE(late.ok());
  EXPECT_EQ(*late, "ok Not logged in");
}

TEST(FixtureAppTest, ThousandRowsStartQuickly) {
  test::TestDesktop desktop;
  ASSERT_TRUE(desktop.ok()) << desktop.error();
  const auto start = std::chrono::steady_clock::now();
  auto app = desktop.LaunchFixture({"--rows", "1000", "--name", "big-list"});
  ASSERT_NE(app, nullptr);
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(8000));
  EXPECT_EQ(FixtureCommand(*app, "insert-row").value(), "New row 1");
}

TEST(FixtureAppTest, EndOfStdinDoesNotQuit) {
  test::TestDesktop desktop;
  ASSERT_TRUE(desktop.ok()) << desktop.error();
  auto app = desktop.LaunchFixture();
  ASSERT_NE(app, nullptr);
  app->CloseStdin();
  auto code = app->Wait(milliseconds(300));
  EXPECT_FALSE(code.ok()) << "the fixture exited on end of stdin";
}

TEST(FixtureAppTest, WithoutWindowManagerTheClientAreaIsAtThePosition) {
  DesktopOptions options;
  options.window_manager = false;
  test::TestDesktop desktop(options);
  ASSERT_TRUE(desktop.ok()) << desktop.error();
  auto app = desktop.LaunchFixture({"--position", "100,80"});
  ASSERT_NE(app, nullptr);
  auto window = FixtureBox(*app, "geometry");
  ASSERT_TRUE(window.ok()) << window.error().ToString();
  EXPECT_EQ(*window, (ScreenBox{100, 80, 900, 700}));  // no decorations
}

TEST(TestSupportTest, SharedDesktopIsOnePerProcess) {
  test::TestDesktop& shared = test::TestDesktop::Shared();
  ASSERT_TRUE(shared.ok()) << shared.error();
  EXPECT_EQ(&shared, &test::TestDesktop::Shared());
  EXPECT_TRUE(FindSession(shared.info().id).ok());
  EXPECT_EQ(SessionStateDir(), test::TestStateDir());
}

TEST(TestSupportTest, WaitUntilPollsUntilTrueOrTimeout) {
  const auto start = std::chrono::steady_clock::now();
  int calls = 0;
  EXPECT_TRUE(test::WaitUntil([&] { return ++calls == 3; }, milliseconds(5000)));
  EXPECT_EQ(calls, 3);
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(1000));
  EXPECT_FALSE(test::WaitUntil([] { return false; }, milliseconds(50)));
}

}  // namespace
}  // namespace uiscope
