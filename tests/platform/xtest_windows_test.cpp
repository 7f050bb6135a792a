// The X11 input and window backends against the GTK3 fixture on a headless
// desktop, with and without a window manager.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>

#include "core/keys.h"
#include "platform/x11/x11_windows.h"
#include "platform/x11/xtest_input.h"
#include "support/desktop_fixture.h"

// After gtest, whose templates Xlib's macros (None, Bool) would break.
#include <X11/Xlib.h>
// Xlib #defines Status as int; below, Status is uiscope::Status.
#undef Status

namespace uiscope {
namespace {

using std::chrono::milliseconds;
using test::FixtureBox;
using test::FixtureCommand;
using test::TestDesktop;
using test::WaitUntil;

Point Center(const test::ScreenBox& b) { return Point{b.x + b.w / 2, b.y + b.h / 2}; }

// The whole core keyboard map, to see that typing leaves it as it was.
std::vector<KeySym> Keymap(const std::string& display_name) {
  Display* d = XOpenDisplay(display_name.c_str());
  if (d == nullptr) return {};
  int min = 0, max = 0, per = 0;
  XDisplayKeycodes(d, &min, &max);
  KeySym* raw = XGetKeyboardMapping(d, static_cast<KeyCode>(min), max - min + 1, &per);
  std::vector<KeySym> out(raw, raw + (max - min + 1) * per);
  XFree(raw);
  XCloseDisplay(d);
  return out;
}

class XTestInputTest : public ::testing::Test {
 protected:
  static TestDesktop& desktop() { return TestDesktop::Shared(); }

  void SetUp() override {
    ASSERT_TRUE(desktop().ok()) << desktop().error();
    fixture_ = desktop().LaunchFixture();
    ASSERT_NE(fixture_, nullptr);
    x11::XTestOptions options;
    options.max_spare_codes = 2;  // rebinding from the third distinct character on
    options.remap_settle = milliseconds(300);
    auto input = x11::XTestInput::Open(desktop().info().display_name, options);
    ASSERT_TRUE(input.ok()) << input.error().ToString();
    input_ = std::move(input).value();
  }

  // Clicks the email field so typed keys go there.
  void FocusEmail() {
    auto box = FixtureBox(*fixture_, "widget email");
    ASSERT_TRUE(box.ok());
    ASSERT_TRUE(input_->Click(Center(*box), MouseButton::kLeft, 1).ok());
    ASSERT_TRUE(WaitUntil([&] { return *FixtureCommand(*fixture_, "focus") == "email"; }));
  }

  std::string Email() { return FixtureCommand(*fixture_, "text email").value(); }

  std::unique_ptr<Process> fixture_;
  std::unique_ptr<x11::XTestInput> input_;
};

TEST_F(XTestInputTest, MovesAndClicksWhereTheScreenSays) {
  ASSERT_TRUE(input_->MovePointer(Point{321, 123}).ok());
  auto at = input_->PointerPosition();
  ASSERT_TRUE(at.ok());
  EXPECT_EQ(*at, (Point{321, 123}));
  auto login = FixtureBox(*fixture_, "widget login");
  ASSERT_TRUE(login.ok());
  ASSERT_TRUE(input_->Click(Center(*login), MouseButton::kLeft, 1).ok());
  EXPECT_TRUE(
      WaitUntil([&] { return *FixtureCommand(*fixture_, "status") == "Please enter an email"; }));
  EXPECT_EQ(*input_->PointerPosition(), Center(*login));
}

TEST_F(XTestInputTest, TypesUnicodeInOrderAndRestoresTheKeymap) {
  FocusEmail();
  const std::vector<KeySym> before = Keymap(desktop().info().display_name);
  // Six characters the US keymap lacks, through two spare codes: rebound
  // four times while typing.
  const std::string text = "a€b東c京dÄeßf😀 Done!";
  ASSERT_TRUE(input_->TypeText(text).ok());
  EXPECT_TRUE(WaitUntil([&] { return Email() == text; })) << Email();
  EXPECT_GE(input_->spare_bindings(), 6);
  EXPECT_EQ(Keymap(desktop().info().display_name), before) << "spare codes restored";
}

// When the app shows a wrong character (a key translated with a stale
// keymap, which Chromium did after rebindings), the backend erases back to
// it and types the rest again. The wrong character is faked here: the
// first check claims the last two characters sent are wrong.
TEST_F(XTestInputTest, RetypesFromTheFirstCharacterTheAppGotWrong) {
  FocusEmail();
  const std::string text = "a€b東c京dÄeßf";
  const std::u32string chars = DecodeUtf8(text).value();
  int checks = 0;
  TypeOptions options;
  options.wait_handled = [&](size_t typed) -> TypedShown {
    ++checks;
    std::u32string shown;
    WaitUntil([&] {
      auto now = DecodeUtf8(Email());
      shown = now.ok() ? *now : U"";
      return shown.size() >= typed;
    });
    if (checks == 1) return {typed - 2, typed};
    const auto right = std::mismatch(shown.begin(), shown.end(), chars.begin()).first;
    return {static_cast<size_t>(right - shown.begin()), shown.size()};
  };
  ASSERT_TRUE(input_->TypeText(text, options).ok());
  EXPECT_EQ(Email(), text);
  EXPECT_EQ(input_->retyped(), 2);
  EXPECT_GE(checks, 4) << "before each rebinding, and before the keymap is restored";
}

TEST_F(XTestInputTest, ChordsReachTheApp) {
  FocusEmail();
  ASSERT_TRUE(input_->TypeText("hello").ok());
  ASSERT_TRUE(WaitUntil([&] { return Email() == "hello"; }));
  ASSERT_TRUE(input_->PressChord(*ParseKeyChord("ctrl+a")).ok());
  ASSERT_TRUE(input_->PressChord(*ParseKeyChord("BackSpace")).ok());
  EXPECT_TRUE(WaitUntil([&] { return Email().empty(); })) << Email();
  ASSERT_TRUE(input_->PressChord(*ParseKeyChord("Tab")).ok());
  EXPECT_TRUE(WaitUntil([&] { return *FixtureCommand(*fixture_, "focus") != "email"; }));
  // Uppercase through Shift, punctuation on shifted levels.
  ASSERT_TRUE(input_->PressChord(*ParseKeyChord("shift+Tab")).ok());
  ASSERT_TRUE(WaitUntil([&] { return *FixtureCommand(*fixture_, "focus") == "email"; }));
  ASSERT_TRUE(input_->TypeText("A!Z").ok());
  EXPECT_TRUE(WaitUntil([&] { return Email() == "A!Z"; })) << Email();
}

TEST_F(XTestInputTest, ScrollAndDrag) {
  auto volume = FixtureBox(*fixture_, "widget volume");
  ASSERT_TRUE(volume.ok());
  const Point from = Center(*volume);
  const Point to{volume->x + volume->w - 5, from.y};
  ASSERT_TRUE(input_->Drag(from, to, MouseButton::kLeft).ok());
  EXPECT_TRUE(WaitUntil([&] {
    return std::atof(FixtureCommand(*fixture_, "value volume")->c_str()) > 90;
  })) << *FixtureCommand(*fixture_, "value volume");
  // Nothing stays pressed.
  Display* d = XOpenDisplay(desktop().info().display_name.c_str());
  ASSERT_NE(d, nullptr);
  Window root = 0, child = 0;
  int rx = 0, ry = 0, wx = 0, wy = 0;
  unsigned int mask = 0;
  XQueryPointer(d, DefaultRootWindow(d), &root, &child, &rx, &ry, &wx, &wy, &mask);
  XCloseDisplay(d);
  EXPECT_EQ(mask & (Button1Mask | Button2Mask | Button3Mask), 0u);
}

TEST_F(XTestInputTest, ASingleEventIsCheap) {
  // A gross bound (the target is < 1 ms; bench_act measures it).
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(input_->RawButtonEvent(8, true).ok());
    ASSERT_TRUE(input_->RawButtonEvent(8, false).ok());
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(ms / 100, 10.0);
}

TEST(X11WindowsTest, WithAWindowManager) {
  TestDesktop& desktop = TestDesktop::Shared();
  ASSERT_TRUE(desktop.ok());
  auto first = desktop.LaunchFixture({"--title", "one", "--position", "10,10"});
  auto second = desktop.LaunchFixture({"--title", "two", "--position", "400,300", "--name", "two"});
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  auto windows = x11::X11Windows::Open(desktop.info().display_name);
  ASSERT_TRUE(windows.ok());
  EXPECT_TRUE((*windows)->has_window_manager());
  auto list = (*windows)->ListWindows();
  ASSERT_TRUE(list.ok());
  const WindowInfo* one = nullptr;
  const WindowInfo* two = nullptr;
  for (const WindowInfo& w : *list) {
    if (w.pid == first->pid()) one = &w;
    if (w.pid == second->pid()) two = &w;
  }
  ASSERT_NE(one, nullptr);
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(one->title, "one");
  EXPECT_EQ(one->app_instance, "uiscope-fixture");
  EXPECT_EQ(two->app_instance, "two");
  EXPECT_TRUE(one->visible);
  auto geometry = FixtureBox(*first, "geometry");
  ASSERT_TRUE(geometry.ok());
  EXPECT_EQ(one->bounds, (Rect{geometry->x, geometry->y, geometry->w, geometry->h}));

  const uint64_t one_id = one->id, two_id = two->id;
  ASSERT_TRUE((*windows)->Activate(one_id, milliseconds(3000)).ok());
  EXPECT_EQ(*(*windows)->ActiveWindow(), one_id);
  ASSERT_TRUE((*windows)->Activate(two_id, milliseconds(3000)).ok());
  EXPECT_EQ(*(*windows)->ActiveWindow(), two_id);
  auto stacked = (*windows)->ListWindows();
  EXPECT_EQ(stacked->back().id, two_id) << "raised to the top of the stacking order";

  ASSERT_TRUE((*windows)->Close(two_id).ok());
  EXPECT_TRUE(second->Wait(milliseconds(5000)).ok()) << "the app quit when its window closed";
  EXPECT_EQ((*windows)->Close(two_id).error().code, ErrorCode::kNotFound);
  EXPECT_EQ((*windows)->Activate(two_id, milliseconds(100)).error().code, ErrorCode::kNotFound);
}

TEST(X11WindowsTest, WithoutAWindowManager) {
  DesktopOptions options;
  options.window_manager = false;
  TestDesktop desktop(options);
  ASSERT_TRUE(desktop.ok());
  auto fixture = desktop.LaunchFixture();
  ASSERT_NE(fixture, nullptr);
  auto windows = x11::X11Windows::Open(desktop.info().display_name);
  ASSERT_TRUE(windows.ok());
  EXPECT_FALSE((*windows)->has_window_manager());
  std::optional<WindowInfo> found;
  ASSERT_TRUE(WaitUntil([&] {
    auto list = (*windows)->ListWindows();
    for (const WindowInfo& w : *list) {
      if (w.pid == fixture->pid()) found = w;
    }
    return found.has_value();
  }));
  EXPECT_EQ(found->title, "uiscope fixture");
  ASSERT_TRUE((*windows)->Activate(found->id, milliseconds(3000)).ok());
  EXPECT_EQ(*(*windows)->ActiveWindow(), found->id);
  ASSERT_TRUE((*windows)->Close(found->id).ok());
  EXPECT_TRUE(fixture->Wait(milliseconds(5000)).ok()) << "WM_DELETE_WINDOW reached the app";
}

}  // namespace
}  // namespace uiscope
