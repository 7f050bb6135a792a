// Verification that tells the truth (issue 15): on the GTK3 fixture under a
// headless desktop, the pixel part of an action's verification is checked
// against captures the test takes itself once the screen is still — a
// dialog an action opens and one it closes are located where their pixels
// changed, with the share that changed; a label that changes away from the
// clicked button is located too. And marks of a window that another covers
// are drawn only where it shows.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "core/ids.h"
#include "engine/act.h"
#include "engine/screenshot.h"
#include "engine/workspace.h"
#include "image/image_diff.h"
#include "platform/x11/x11_display.h"
#include "platform/x11/xshm_capture.h"
#include "support/desktop_fixture.h"
#include "support/fixture_app.h"

namespace uiscope {
namespace {

using std::chrono::milliseconds;

class VerifyDesktopTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // No blinking caret: a still screen must capture identically.
    const std::string config = test::TestStateDir() + "/gtk-config-verify";
    std::filesystem::create_directories(config + "/gtk-3.0");
    std::ofstream(config + "/gtk-3.0/settings.ini") << "[Settings]\ngtk-cursor-blink=false\n";
    setenv("XDG_CONFIG_HOME", config.c_str(), 1);
  }

  void SetUp() override {
    ASSERT_TRUE(desktop().ok()) << desktop().error();
    WorkspaceOptions options;
    options.display = desktop().info().display_name;
    options.start_headless = false;
    workspace_ = std::make_unique<Workspace>(options);
    auto display = x11::X11Display::Open(desktop().info().display_name);
    ASSERT_TRUE(display.ok()) << display.error().ToString();
    display_ = std::move(display).value();
    capture_ = x11::XShmCapture::Create(*display_);
    ASSERT_NE(capture_, nullptr);
  }

  static test::TestDesktop& desktop() { return test::TestDesktop::Shared(); }

  // The screen once two captures 100 ms apart are the same (the test's own
  // view of what the action did, independent of the verifier).
  Image StillScreen() {
    std::optional<Image> last;
    Image still;
    EXPECT_TRUE(test::WaitUntil(
        [&] {
          auto frame = capture_->CaptureScreen();
          if (!frame.ok()) return false;
          const bool same = last && last->rgb == frame->image.rgb;
          last = std::move(frame->image);
          if (same) still = *last;
          return same;
        },
        milliseconds(10000)))
        << "the screen never stood still";
    return still;
  }

  std::string Id(int pid, Role role, const std::string& name) {
    auto lease = workspace_->Acquire();
    EXPECT_TRUE(lease.ok());
    auto obs = lease->observer->Observe(ObserveRequest{});
    EXPECT_TRUE(obs.ok()) << obs.error().message;
    std::string id;
    ForEachNode(obs->snapshot.roots, [&](const Node& n, int) {
      if (id.empty() && n.pid == pid && n.role == role && n.name == name) id = n.id;
    });
    EXPECT_FALSE(id.empty()) << RoleName(role) << " \"" << name << "\" not found";
    return id;
  }

  Result<ActionResult> Act(ActionRequest r) {
    auto lease = workspace_->Acquire("", Workspace::Need::kHands);
    if (!lease.ok()) return lease.error();
    // Generous under load: "none" must mean nothing happened, not "late".
    r.verify.settle = milliseconds(1500);
    auto result = PerformAction(*lease, r);
    if (result.ok()) std::cerr << FormatActionResult(*result);
    return result;
  }

  Result<ActionResult> Keys(const std::string& chord) {
    ActionRequest r;
    r.kind = ActionKind::kPressKeys;
    r.keys = {chord};
    return Act(r);
  }

  std::unique_ptr<Workspace> workspace_;
  std::unique_ptr<x11::X11Display> display_;
  std::unique_ptr<x11::XShmCapture> capture_;
};

// Ctrl+P opens the fixture's 480x320 "Preferences" dialog; Return closes
// it. Each verification names the window and gives the share of it that
// changed, as the test measures it between still screens before and after.
TEST_F(VerifyDesktopTest, ADialogOpenedAndClosedIsWhereThePixelsChanged) {
  auto app = test::LaunchApp(desktop(), test::Toolkit::kGtk3);
  ASSERT_NE(app, nullptr);
  const Image before_open = StillScreen();
  auto opened = Keys("ctrl+p");
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  const Verification& o = *opened->verification;
  EXPECT_EQ(o.effect, "observed");
  ASSERT_EQ(o.windows_opened.size(), 1u) << FormatActionResult(*opened);
  const WindowChange dialog = o.windows_opened[0];
  EXPECT_EQ(dialog.title, "Preferences");
  const Image after_open = StillScreen();
  auto truth = DiffImagesWithin(before_open, after_open, dialog.bounds);
  ASSERT_TRUE(truth.ok());
  std::cerr << "opened: reported " << dialog.changed * 100 << " % of the dialog changed, measured "
            << truth->score * 100 << " %\n";
  EXPECT_GT(truth->score, 0.05) << "the dialog differs from what it covers";
  EXPECT_NEAR(dialog.changed, truth->score, 0.02);
  ASSERT_TRUE(o.pixels.bounds.has_value());
  ASSERT_TRUE(truth->bounds.has_value());
  EXPECT_TRUE(o.pixels.bounds->Contains(*truth->bounds))
      << "the change reported holds the dialog's change";

  const Image before_close = StillScreen();
  auto closed = Keys("Return");
  ASSERT_TRUE(closed.ok()) << closed.error().message;
  const Verification& c = *closed->verification;
  EXPECT_EQ(c.effect, "observed");
  ASSERT_EQ(c.windows_closed.size(), 1u) << FormatActionResult(*closed);
  EXPECT_EQ(c.windows_closed[0].title, "Preferences");
  EXPECT_EQ(c.windows_closed[0].bounds, dialog.bounds);
  const Image after_close = StillScreen();
  auto uncovered = DiffImagesWithin(before_close, after_close, dialog.bounds);
  ASSERT_TRUE(uncovered.ok());
  std::cerr << "closed: reported " << c.windows_closed[0].changed * 100
            << " % of the dialog changed, measured " << uncovered->score * 100 << " %\n";
  EXPECT_GT(uncovered->score, 0.05);
  EXPECT_NEAR(c.windows_closed[0].changed, uncovered->score, 0.02);
  ASSERT_TRUE(c.pixels.bounds.has_value());
  ASSERT_TRUE(uncovered->bounds.has_value());
  EXPECT_TRUE(c.pixels.bounds->Contains(*uncovered->bounds));
  (void)app->Terminate(milliseconds(2000));
}

// "Login" with no email sets the status label below it: the change is
// located there, as its own area, not only in the button's box.
TEST_F(VerifyDesktopTest, ALabelChangingAwayFromTheClickedButtonIsLocated) {
  auto app = test::LaunchApp(desktop(), test::Toolkit::kGtk3);
  ASSERT_NE(app, nullptr);
  auto status = app->Command("widget status");
  ASSERT_TRUE(status.ok());
  Rect status_box;
  ASSERT_EQ(std::sscanf(status->c_str(), "%d %d %d %d", &status_box.x, &status_box.y, &status_box.w,
                        &status_box.h),
            4);
  (void)StillScreen();
  ActionRequest r;
  r.kind = ActionKind::kClick;
  r.target.id = Id(app->pid(), Role::kButton, "Login");
  auto clicked = Act(r);
  ASSERT_TRUE(clicked.ok()) << clicked.error().message;
  ASSERT_EQ(*app->Command("status"), "Please enter an email");
  const Verification& v = *clicked->verification;
  EXPECT_EQ(v.effect, "observed");
  bool located = false;
  for (const Rect& a : v.pixels.areas) located = located || !Intersect(a, status_box).Empty();
  EXPECT_TRUE(located) << "no changed area on the status label " << status_box.x << ","
                       << status_box.y << "," << status_box.w << "," << status_box.h << "\n"
                       << FormatActionResult(*clicked);
  (void)app->Terminate(milliseconds(2000));
}

// Two fixture windows, the second over the first: the first's marks are
// drawn only where it shows; the second's are all there.
TEST_F(VerifyDesktopTest, MarksOfACoveredWindowSkipTheCoveredPart) {
  test::AppOptions under_options;
  under_options.name = "fixture-under";
  under_options.position = std::make_pair(60, 40);
  auto under = test::LaunchApp(desktop(), test::Toolkit::kGtk3, under_options);
  ASSERT_NE(under, nullptr);
  test::AppOptions over_options;
  over_options.name = "fixture-over";
  over_options.position = std::make_pair(300, 160);
  auto over = test::LaunchApp(desktop(), test::Toolkit::kGtk3, over_options);
  ASSERT_NE(over, nullptr);

  Rect over_frame;
  auto x_windows = OpenX11Windows(desktop().info().display_name);
  ASSERT_TRUE(x_windows.ok()) << x_windows.error().message;
  ASSERT_TRUE(test::WaitUntil([&] {
    auto listed = (*x_windows)->ListWindows();
    if (!listed.ok()) return false;
    const std::vector<StackedWindow> stack = StackedWindows(*listed);
    if (stack.empty() || stack.back().pid != over->pid()) return false;
    over_frame = stack.back().frame;
    return true;
  })) << "the second window is not on top";

  auto lease = workspace_->Acquire();
  ASSERT_TRUE(lease.ok());
  // What the tree says of the first window: elements under the second one.
  auto obs = lease->observer->Observe(ObserveRequest{});
  ASSERT_TRUE(obs.ok());
  int under_covered = 0;
  ForEachNode(obs->snapshot.roots, [&](const Node& n, int) {
    if (n.pid == under->pid() && n.role == Role::kButton && n.bounds &&
        over_frame.Contains(*n.bounds)) {
      ++under_covered;
    }
  });
  ASSERT_GT(under_covered, 0) << "the layout leaves no button of the first window covered";

  ScreenshotService service;
  ScreenshotRequest request;
  request.marks = true;
  auto shot = service.Take(*lease, request);
  ASSERT_TRUE(shot.ok()) << shot.error().ToString();
  int under_marks = 0, over_marks = 0;
  for (const ScreenshotMark& m : shot->marks) {
    const Node* n = FindById(obs->snapshot.roots, m.id);
    if (n == nullptr) continue;
    if (n->pid == under->pid()) {
      ++under_marks;
      EXPECT_TRUE(Intersect(m.screen_bounds, over_frame).Empty())
          << m.id << " " << n->name << " is marked under the window above it";
    } else if (n->pid == over->pid()) {
      ++over_marks;
    }
  }
  std::cerr << under_marks << " marks of the covered window, " << over_marks
            << " of the window above; " << under_covered << " buttons of the first covered\n";
  EXPECT_GT(under_marks, 0);
  EXPECT_GT(over_marks, 0);
  bool warned = false;
  for (const std::string& w : shot->warnings)
    warned = warned || w.find("cover") != std::string::npos;
  EXPECT_TRUE(warned);
  lease->lock.unlock();
  (void)under->Terminate(milliseconds(2000));
  (void)over->Terminate(milliseconds(2000));
}

}  // namespace
}  // namespace uiscope
