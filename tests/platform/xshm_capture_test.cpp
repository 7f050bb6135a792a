// XShmCapture against a real X server showing the GTK3 fixture: the shared
// memory path returns exactly XGetImage's pixels, regions and windows map to
// the right screen rectangles, the fallback works, the segment persists, and
// tile hashes and XDamage localise a change to the widget that changed.
#include "platform/x11/xshm_capture.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "platform/x11/ximage_capture.h"
#include "platform/x11/x11_windows.h"
#include "support/desktop_fixture.h"

// Xlib last: its macros (None, Status, Bool) clash with gtest and uiscope.
#include <X11/Xlib.h>
#undef Status

namespace uiscope {
namespace {

using test::WaitUntil;

Rect ToRect(const test::ScreenBox& b) { return {b.x, b.y, b.w, b.h}; }

Image Crop(const Image& image, const Rect& r) {
  Image out = MakeImage(r.w, r.h);
  for (int y = 0; y < r.h; ++y)
    std::copy_n(image.Pixel(r.x, r.y + y), static_cast<size_t>(r.w) * 3, out.Pixel(0, y));
  return out;
}

class XShmCaptureTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // A blinking text caret would make two captures of an unchanged screen
    // differ; GTK reads this before the fixture starts.
    config_dir_ = new std::string(test::TestStateDir() + "/gtk-config");
    std::filesystem::create_directories(*config_dir_ + "/gtk-3.0");
    std::ofstream(*config_dir_ + "/gtk-3.0/settings.ini") << "[Settings]\ngtk-cursor-blink=false\n";
    setenv("XDG_CONFIG_HOME", config_dir_->c_str(), 1);
    test::TestDesktop& desktop = test::TestDesktop::Shared();
    if (desktop.ok()) fixture_ = desktop.LaunchFixture({"--position", "120,90"}).release();
  }
  static void TearDownTestSuite() {
    delete fixture_;
    fixture_ = nullptr;
  }

  void SetUp() override {
    ASSERT_TRUE(desktop_.ok()) << desktop_.error();
    ASSERT_NE(fixture_, nullptr);
    auto display = x11::X11Display::Open(desktop_.info().display_name);
    ASSERT_TRUE(display.ok()) << display.error().ToString();
    display_ = std::move(display).value();
  }

  uint64_t FixtureWindow() {
    auto listed = x11::ListClientWindows(*display_);
    if (!listed.ok()) return 0;
    for (const WindowInfo& t : *listed) {
      if (t.pid == fixture_->pid()) return t.id;
    }
    return 0;
  }

  // Captures `region` until the screen has been still for 300 ms (same
  // pixels, and no damage where XDamage reports it), returning the last
  // frame; damage seen on the way is appended to `damage`. GTK may draw in
  // several steps with pauses between them under load, so two equal
  // captures in a row are not enough.
  CapturedFrame Settled(ScreenCapture& capture, const Rect& region,
                        std::vector<Rect>* damage = nullptr) {
    using Clock = std::chrono::steady_clock;
    CapturedFrame last;
    auto still_since = Clock::now();
    bool settled = WaitUntil(
        [&] {
          auto f = capture.CaptureRegion(region);
          if (!f.ok()) return false;
          const bool changed =
              f->frame_hash != last.frame_hash || (f->damage && !f->damage->empty());
          if (damage && f->damage)
            damage->insert(damage->end(), f->damage->begin(), f->damage->end());
          last = std::move(f).value();
          if (changed) still_since = Clock::now();
          return Clock::now() - still_since >= std::chrono::milliseconds(300);
        },
        std::chrono::milliseconds(10000));
    EXPECT_TRUE(settled) << "the screen never stopped changing";
    return last;
  }

  test::TestDesktop& desktop_ = test::TestDesktop::Shared();
  std::unique_ptr<x11::X11Display> display_;
  static Process* fixture_;
  static std::string* config_dir_;
};

Process* XShmCaptureTest::fixture_ = nullptr;
std::string* XShmCaptureTest::config_dir_ = nullptr;

TEST_F(XShmCaptureTest, SharedMemoryCaptureEqualsXGetImage) {
  auto capture = x11::XShmCapture::Create(*display_);
  EXPECT_EQ(capture->method(), "xshm");
  EXPECT_EQ(capture->screen_width(), 1920);
  EXPECT_EQ(capture->screen_height(), 1080);
  CapturedFrame frame;
  Result<Image> reference = MakeError(ErrorCode::kInternal, "none");
  ASSERT_TRUE(WaitUntil([&] {
    auto f = capture->CaptureScreen();
    reference = x11::CaptureRegion(*display_, {0, 0, 1920, 1080});
    if (!f.ok() || !reference.ok()) return false;
    frame = std::move(f).value();
    return frame.image.rgb == reference->rgb;
  })) << "XShm and XGetImage pixels differ";
  EXPECT_EQ(frame.method, "xshm");
  EXPECT_EQ(frame.region, (Rect{0, 0, 1920, 1080}));
  EXPECT_EQ(frame.image.width, 1920);
  EXPECT_EQ(frame.image.height, 1080);
  EXPECT_EQ(frame.screen_width, 1920);
  EXPECT_EQ(frame.tiles.columns, 30);
  EXPECT_EQ(frame.tiles.rows, 17);
  EXPECT_EQ(frame.frame_hash, FrameHash(frame.tiles));
  // Inside the fixture's window: not the black root background.
  auto geometry = test::FixtureBox(*fixture_, "geometry");
  ASSERT_TRUE(geometry.ok());
  const uint8_t* p = frame.image.Pixel(geometry->x + geometry->w / 2, geometry->y + 5);
  EXPECT_GT(p[0] + p[1] + p[2], 300);
}

TEST_F(XShmCaptureTest, RegionAndWindowMapToTheirScreenRectangles) {
  auto capture = x11::XShmCapture::Create(*display_);
  auto geometry = test::FixtureBox(*fixture_, "geometry");
  ASSERT_TRUE(geometry.ok()) << geometry.error().ToString();
  const Rect window_rect = ToRect(*geometry);
  const uint64_t window = FixtureWindow();
  ASSERT_NE(window, 0u);

  ASSERT_TRUE(WaitUntil([&] {
    auto full = capture->CaptureScreen();
    auto by_window = capture->CaptureWindow(window);
    auto by_region = capture->CaptureRegion(window_rect);
    if (!full.ok() || !by_window.ok() || !by_region.ok()) return false;
    EXPECT_EQ(by_window->region, window_rect);
    EXPECT_EQ(by_region->region, window_rect);
    return by_window->image.rgb == Crop(full->image, window_rect).rgb &&
           by_region->image.rgb == by_window->image.rgb;
  })) << "window / region pixels differ from the same area of the full frame";

  // Partly off screen: clipped, and the region says where the image is.
  auto corner = capture->CaptureRegion({1900, 1000, 100, 100});
  ASSERT_TRUE(corner.ok()) << corner.error().ToString();
  EXPECT_EQ(corner->region, (Rect{1900, 1000, 20, 80}));
  EXPECT_EQ(corner->image.width, 20);
  EXPECT_EQ(corner->image.height, 80);
}

TEST_F(XShmCaptureTest, BadRequestsAreClearErrors) {
  auto capture = x11::XShmCapture::Create(*display_);
  auto outside = capture->CaptureRegion({2000, 50, 10, 10});
  ASSERT_FALSE(outside.ok());
  EXPECT_EQ(outside.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(outside.error().message.find("1920x1080"), std::string::npos)
      << outside.error().message;
  auto empty = capture->CaptureRegion({10, 10, 0, 5});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, ErrorCode::kInvalidArgument);

  auto unknown = capture->CaptureWindow(0x7ffffff1);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);
  EXPECT_NE(unknown.error().message.find("0x7ffffff1"), std::string::npos);

  // A window that exists but is not mapped.
  Display* d = display_->raw();
  Window hidden = XCreateSimpleWindow(d, DefaultRootWindow(d), 10, 10, 50, 50, 0, 0, 0);
  XSync(d, False);
  auto unmapped = capture->CaptureWindow(hidden);
  ASSERT_FALSE(unmapped.ok());
  EXPECT_EQ(unmapped.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(unmapped.error().message.find("not viewable"), std::string::npos);
  XDestroyWindow(d, hidden);
  XSync(d, False);

  // The capture still works after all that.
  EXPECT_TRUE(capture->CaptureRegion({0, 0, 8, 8}).ok());
}

TEST_F(XShmCaptureTest, ForcedFallbackUsesXGetImageWithTheSamePixels) {
  CaptureOptions options;
  options.use_shm = false;
  auto fallback = x11::XShmCapture::Create(*display_, options);
  auto shm = x11::XShmCapture::Create(*display_);
  EXPECT_EQ(fallback->method(), "xgetimage");
  ASSERT_TRUE(WaitUntil([&] {
    auto a = fallback->CaptureScreen();
    auto b = shm->CaptureScreen();
    if (!a.ok() || !b.ok()) return false;
    EXPECT_EQ(a->method, "xgetimage");
    EXPECT_EQ(b->method, "xshm");
    return a->image.rgb == b->image.rgb && a->frame_hash == b->frame_hash;
  }));
  EXPECT_EQ(fallback->shm_capacity(), 0u);
  EXPECT_EQ(fallback->shm_allocations(), 0);
}

TEST_F(XShmCaptureTest, TheSegmentPersistsAndGrowsOnlyWhenNeeded) {
  auto capture = x11::XShmCapture::Create(*display_);
  ASSERT_TRUE(capture->CaptureRegion({0, 0, 100, 100}).ok());
  EXPECT_EQ(capture->shm_allocations(), 1);
  const size_t small = capture->shm_capacity();
  EXPECT_GE(small, 100u * 100 * 4);
  EXPECT_LT(small, 1920u * 1080 * 4);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(capture->CaptureScreen().ok());
  EXPECT_EQ(capture->shm_allocations(), 2);  // grew once for the full screen
  EXPECT_GE(capture->shm_capacity(), 1920u * 1080 * 4);
  ASSERT_TRUE(capture->CaptureRegion({5, 5, 50, 50}).ok());
  EXPECT_EQ(capture->shm_allocations(), 2);  // never shrinks
}

TEST_F(XShmCaptureTest, TileHashesAndDamageLocaliseAChangeToTheWidget) {
  auto capture = x11::XShmCapture::Create(*display_);
  ASSERT_TRUE(capture->damage_tracking());
  auto email = test::FixtureBox(*fixture_, "widget email");
  ASSERT_TRUE(email.ok()) << email.error().ToString();
  // GTK may repaint the entry's frame and focus ring just outside it.
  const Rect around_email = {email->x - 4, email->y - 4, email->w + 8, email->h + 8};
  const Rect screen{0, 0, 1920, 1080};

  ASSERT_TRUE(test::FixtureCommand(*fixture_, "set-email a").ok());
  // Still means: the same pixels and XDamage reporting nothing, for a while.
  CapturedFrame before = Settled(*capture, screen);
  ASSERT_TRUE(before.damage.has_value());
  EXPECT_TRUE(before.damage->empty());

  ASSERT_TRUE(test::FixtureCommand(*fixture_, "set-email foo@example.org").ok());
  std::vector<Rect> damage;
  ASSERT_TRUE(WaitUntil([&] {
    auto f = capture->CaptureScreen();
    if (!f.ok()) return false;
    if (f->damage) damage.insert(damage.end(), f->damage->begin(), f->damage->end());
    return f->frame_hash != before.frame_hash;
  })) << "the email field never changed on screen";
  CapturedFrame after = Settled(*capture, screen, &damage);  // GTK may draw in steps

  const std::vector<Rect> changed = ChangedTiles(before.tiles, after.tiles);
  ASSERT_FALSE(changed.empty());
  EXPECT_LE(changed.size(), 20u) << "a one-field change should touch a few tiles, not the frame";
  for (const Rect& tile : changed) {
    EXPECT_FALSE(Intersect(tile, around_email).Empty())
        << "tile " << tile.x << "," << tile.y << " changed, away from the email field at "
        << email->x << "," << email->y << "," << email->w << "," << email->h;
  }
  ASSERT_FALSE(damage.empty());
  for (const Rect& d : damage) {
    EXPECT_TRUE(around_email.Contains(d) || !Intersect(d, around_email).Empty())
        << "damage " << d.x << "," << d.y << "," << d.w << "," << d.h;
  }
}

TEST_F(XShmCaptureTest, OwnConnectionCaptureWorksOnItsOwn) {
  auto capture = OpenScreenCapture(desktop_.info().display_name);
  ASSERT_TRUE(capture.ok()) << capture.error().ToString();
  auto frame = (*capture)->CaptureScreen();
  ASSERT_TRUE(frame.ok()) << frame.error().ToString();
  EXPECT_EQ(frame->image.width, 1920);
  auto missing = OpenScreenCapture(":9999");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kUnavailable);
}

TEST_F(XShmCaptureTest, ServerGoingAwayIsUnavailableNotACrash) {
  test::TestDesktop own;
  ASSERT_TRUE(own.ok()) << own.error();
  auto capture = OpenScreenCapture(own.info().display_name);
  ASSERT_TRUE(capture.ok());
  ASSERT_TRUE((*capture)->CaptureScreen().ok());
  ASSERT_TRUE(own.desktop()->Stop().ok());
  auto after = (*capture)->CaptureScreen();
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.error().code, ErrorCode::kUnavailable) << after.error().ToString();
  capture->reset();  // detaching from a dead server must not hang or crash
}

// A 16-bit screen goes through the generic conversion (5-6-5 masks scaled
// to 8 bits): the fixture looks the same as on the 24-bit screen, within
// the 16-bit quantisation.
TEST_F(XShmCaptureTest, SixteenBitScreenConvertsToTheSameColours) {
  DesktopOptions options;
  options.depth = 16;
  test::TestDesktop deep16(options);
  ASSERT_TRUE(deep16.ok()) << deep16.error();
  auto app = deep16.LaunchFixture({"--position", "120,90"});
  ASSERT_NE(app, nullptr);
  auto geometry16 = test::FixtureBox(*app, "geometry");
  auto geometry24 = test::FixtureBox(*fixture_, "geometry");
  ASSERT_TRUE(geometry16.ok() && geometry24.ok());
  ASSERT_EQ(geometry16->w, geometry24->w);
  ASSERT_EQ(geometry16->h, geometry24->h);

  auto capture16 = OpenScreenCapture(deep16.info().display_name);
  ASSERT_TRUE(capture16.ok());
  auto capture24 = x11::XShmCapture::Create(*display_);
  CapturedFrame a = Settled(**capture16, ToRect(*geometry16));
  CapturedFrame b = Settled(*capture24, ToRect(*geometry24));
  ASSERT_EQ(a.image.rgb.size(), b.image.rgb.size());
  double diff = 0;
  int white16 = 0;
  for (size_t i = 0; i < a.image.rgb.size(); ++i) {
    diff += std::abs(int(a.image.rgb[i]) - int(b.image.rgb[i]));
    white16 += a.image.rgb[i] == 255;
  }
  EXPECT_LT(diff / a.image.rgb.size(), 6.0);
  EXPECT_GT(white16, 1000) << "5- and 6-bit channels must scale to full 255";
}

}  // namespace
}  // namespace uiscope
