// Title bars found in screenshots of openbox under three themes of
// different looks (light gradient, flat dark, white with a cut-off second
// window), and the windows TitleBarWindows makes of them: stacking order,
// client areas, IDs that stay. The screenshots are real (Xvfb + openbox + two
// GTK 3 fixture windows; see tests/fixtures/images/make_images.sh).
#include "platform/windows_from_pixels.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "image/image_diff.h"
#include "image/test_decode.h"

namespace uiscope {
namespace {

Image Screenshot(const std::string& name) {
  std::ifstream in(std::string(UISCOPE_TEST_IMAGES) + "/" + name, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  auto image = test::DecodePng(bytes.str());
  EXPECT_TRUE(image.ok()) << name << ": " << image.error().message;
  return image.ok() ? std::move(image).value() : Image{};
}

bool Near(const Rect& a, const Rect& b) {
  return std::abs(a.x - b.x) <= 2 && std::abs(a.y - b.y) <= 2 && std::abs(a.w - b.w) <= 2 &&
         std::abs(a.h - b.h) <= 2;
}

std::string Text(const Rect& r) {
  return std::to_string(r.x) + "," + std::to_string(r.y) + " " + std::to_string(r.w) + "x" +
         std::to_string(r.h);
}

struct Expected {
  const char* file;
  Rect first;
  Rect second;
  bool second_above;  // else the first lies over the second
};

class TitleBarThemeTest : public ::testing::TestWithParam<Expected> {};

TEST_P(TitleBarThemeTest, FindsBothWindowsAndWhichLiesOver) {
  const Expected& e = GetParam();
  const Image screen = Screenshot(e.file);
  ASSERT_TRUE(screen.Valid());
  const std::vector<TitleBar> bars = FindTitleBars(screen);
  std::string found;
  for (const TitleBar& b : bars) found += Text(b.band) + " / ";
  // The menu bars, tab strips, buttons and entries inside are not windows.
  ASSERT_EQ(bars.size(), 2u) << found;
  EXPECT_TRUE(Near(bars[0].band, e.first)) << found;
  EXPECT_TRUE(Near(bars[1].band, e.second)) << found;
  // The client areas go down to the windows' bottom (700 px + the handle).
  EXPECT_GE(bars[0].frame.h, 700) << Text(bars[0].frame);
  EXPECT_GE(bars[1].frame.h, 700) << Text(bars[1].frame);
  if (e.second_above) {
    EXPECT_EQ(bars[1].above, std::vector<size_t>{0});
    EXPECT_TRUE(bars[0].above.empty());
  } else {
    EXPECT_EQ(bars[0].above, std::vector<size_t>{1});
    EXPECT_TRUE(bars[1].above.empty());
  }
}

INSTANTIATE_TEST_SUITE_P(
    Openbox, TitleBarThemeTest,
    ::testing::Values(
        Expected{"openbox_clearlooks.png", {60, 80, 902, 19}, {820, 300, 902, 19}, true},
        // The second window's title bar goes on under the first one.
        Expected{"openbox_onyx.png", {60, 80, 904, 19}, {964, 300, 760, 18}, false},
        Expected{"openbox_nightmare.png", {61, 81, 899, 15}, {962, 301, 758, 15}, false}),
    [](const auto& info) {
      std::string name = info.param.file;
      return name.substr(8, name.find('.') - 8);
    });

TEST(TitleBarsTest, BandsBetweenWidgetsAreNoTitleBars) {
  const Image screen = Screenshot("openbox_clearlooks.png");
  ASSERT_TRUE(screen.Valid());
  // The first window's client area alone, as a screen without decorations
  // shows it (menu bar, entries, buttons, tabs, list). The strip between
  // the Password entry and the Login button has steps along its whole
  // width above and below, text and a check box at its left end, and the
  // Login button's sides below: no frame runs through it, so it is no
  // title bar. (The tab strip over its panel is framed as a window is, and
  // is taken for one: a known limit, windows_from_pixels.h.)
  const Image inside = CropImage(screen, Rect{61, 100, 700, 690});
  for (const TitleBar& bar : FindTitleBars(inside)) {
    EXPECT_FALSE(bar.band.y >= 100 && bar.band.y <= 125) << Text(bar.band);
  }
  EXPECT_TRUE(FindTitleBars(MakeImage(800, 600)).empty());
  EXPECT_TRUE(FindTitleBars(Image{}).empty());
}

TEST(TitleBarWindowsTest, ListsBottomToTopWithClientAreasAndStableIds) {
  const Image screen = Screenshot("openbox_clearlooks.png");
  ASSERT_TRUE(screen.Valid());
  int reads = 0;
  auto titles = [&](const Image&, const Rect& band) -> std::string {
    ++reads;
    return band.x < 500 ? "First fixture" : "Second window";
  };
  TitleBarWindows found(titles);
  const std::vector<WindowInfo> windows = found.List(screen);
  ASSERT_EQ(windows.size(), 2u);
  EXPECT_EQ(reads, 2);
  // Bottom to top: the second window lies over the first.
  EXPECT_EQ(windows[0].title, "First fixture");
  EXPECT_EQ(windows[1].title, "Second window");
  EXPECT_TRUE(Near(windows[1].bounds, Rect{820, 319, 902, 706})) << Text(windows[1].bounds);
  EXPECT_EQ(windows[1].frame.y, 300);
  EXPECT_EQ(windows[0].app_class, "VNC");
  EXPECT_EQ(windows[0].pid, 0);
  EXPECT_FALSE(windows[0].focused);
  for (const WindowInfo& w : windows) EXPECT_NE(w.id & kTitleBarWindowBit, 0u);
  EXPECT_NE(windows[0].id, windows[1].id);

  // Another process listing the same screen gives the same IDs.
  TitleBarWindows other(titles);
  const std::vector<WindowInfo> again = other.List(screen);
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[0].id, windows[0].id);
  EXPECT_EQ(again[1].id, windows[1].id);

  // A title read differently (or not at all) keeps the ID of the window
  // seen in the same place by the same object.
  TitleBarWindows unread([](const Image&, const Rect&) { return std::string(); });
  const std::vector<WindowInfo> untitled = unread.List(screen);
  ASSERT_EQ(untitled.size(), 2u);
  EXPECT_NE(untitled[0].id, untitled[1].id);
  // A window whose title changes in place keeps its ID in the object that
  // saw it; a new listing derives it from the new title.
  std::string edited;
  auto changing_titles = [&](const Image&, const Rect& band) {
    return (band.x < 500 ? std::string("First fixture") : std::string("Second window")) + edited;
  };
  TitleBarWindows changing(changing_titles);
  const uint64_t before = changing.List(screen)[1].id;
  edited = " - edited";
  EXPECT_EQ(changing.List(screen)[1].id, before);
  TitleBarWindows fresh(changing_titles);
  EXPECT_NE(fresh.List(screen)[1].id, before);
}

TEST(TitleBarWindowsTest, NoTitleBarNoWindows) {
  TitleBarWindows found([](const Image&, const Rect&) { return std::string("x"); });
  EXPECT_TRUE(found.List(MakeImage(640, 480)).empty());
}

}  // namespace
}  // namespace uiscope

namespace uiscope {
namespace {

// Where each screenshot's close buttons are (the X glyph's box, read off
// the pixels by eye): at the right end of each title bar, inside the
// button's frame on Clearlooks, bare on Onyx (bold) and Nightmare (thin).
struct CloseButtons {
  const char* file;
  Rect first;
  Rect second;
};

class CloseButtonThemeTest : public ::testing::TestWithParam<CloseButtons> {};

TEST_P(CloseButtonThemeTest, FindsTheXAndNeverAnotherButtonOrTheTitle) {
  const CloseButtons& e = GetParam();
  const Image screen = Screenshot(e.file);
  ASSERT_TRUE(screen.Valid());
  const std::vector<TitleBar> bars = FindTitleBars(screen);
  ASSERT_EQ(bars.size(), 2u);
  const Rect expected[2] = {e.first, e.second};
  for (size_t i = 0; i < 2; ++i) {
    const Rect& band = bars[i].band;
    const std::optional<Rect> close = FindCloseButton(screen, band);
    ASSERT_TRUE(close.has_value()) << e.file << " bar " << i << " " << Text(band);
    EXPECT_TRUE(Near(*close, expected[i])) << e.file << " bar " << i << ": " << Text(*close);
    // The band without the close button: the maximise and iconify buttons
    // and the title are no close button.
    const Rect cut{band.x, band.y, close->x - 1 - band.x, band.h};
    const std::optional<Rect> other = FindCloseButton(screen, cut);
    EXPECT_FALSE(other.has_value()) << e.file << " bar " << i << ": " << Text(*other);
  }
  EXPECT_FALSE(FindCloseButton(MakeImage(400, 40), Rect{0, 10, 400, 19}).has_value());
  EXPECT_FALSE(FindCloseButton(Image{}, Rect{0, 10, 400, 19}).has_value());
}

INSTANTIATE_TEST_SUITE_P(
    Openbox, CloseButtonThemeTest,
    ::testing::Values(
        // White on the active button's blue gradient face; grey on white.
        CloseButtons{"openbox_clearlooks.png", {948, 87, 6, 6}, {1708, 307, 6, 6}},
        // On a band whose colour steps half-way down.
        CloseButtons{"openbox_onyx.png", {952, 86, 6, 6}, {1712, 306, 6, 6}},
        CloseButtons{"openbox_nightmare.png", {951, 85, 5, 5}, {1711, 305, 5, 5}}),
    [](const auto& info) {
      std::string name = info.param.file;
      return name.substr(8, name.find('.') - 8);
    });

}  // namespace
}  // namespace uiscope
