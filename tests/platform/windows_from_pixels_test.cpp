// Title bars found in screenshots of openbox under three themes of
// different looks (light gradient, flat dark, white with a cut-off second
// window), and the windows TitleBarWindows makes of them: stacking order,
// client areas, IDs that stay. The screenshots are real (Xvfb + openbox + two
// GTK 3 fixture windows; see tests/fixtures/images/make_images.sh).
#include "platform/windows_from_pixels.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
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

// The bands and frames found, for a failure message.
std::string Listed(const std::vector<TitleBar>& bars) {
  std::string out;
  for (const TitleBar& b : bars) out += Text(b.band) + " in " + Text(b.frame) + " / ";
  return out;
}

// A title reader for the screens of a tall header bar (`tall`, over 30 rows)
// beside a window manager's bar (`short_bar`): what OCR would read there.
TitleReader TitleByHeight(std::string tall, std::string short_bar) {
  return [tall = std::move(tall), short_bar = std::move(short_bar)](
             const Image&, const Rect& band) { return band.h > 30 ? tall : short_bar; };
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

TEST(TitleBarWindowsTest, AWindowRevealedWhereAnotherClosedGetsItsOwnId) {
  // gedit's Save As dialog (openbox's bar) over gedit (its header bar,
  // covered whole), then the dialog closed: gedit's frame overlaps where
  // the dialog's was (IoU 0.7), but its bar is elsewhere and titled
  // otherwise. mousepad, at the left, stays.
  const Image dialog = Screenshot("gedit_save_as_dialog.png");
  const Image closed = Screenshot("gedit_save_as_closed.png");
  ASSERT_TRUE(dialog.Valid() && closed.Valid());
  TitleBarWindows found([](const Image&, const Rect& band) {
    if (band.h > 30) return std::string("Untitled Document 1");
    return std::string(band.x > 700 ? "Save As" : "Untitled 1 - Mousepad");
  });
  const std::vector<WindowInfo> first = found.List(dialog);
  std::string listed;
  for (const WindowInfo& w : first) listed += w.title + " " + Text(w.frame) + " / ";
  ASSERT_EQ(first.size(), 2u) << listed;
  EXPECT_EQ(first[1].title, "Save As") << listed;
  const std::vector<WindowInfo> then = found.List(closed);
  listed.clear();
  for (const WindowInfo& w : then) listed += w.title + " " + Text(w.frame) + " / ";
  ASSERT_EQ(then.size(), 2u) << listed;
  EXPECT_EQ(then[1].title, "Untitled Document 1") << listed;
  EXPECT_GE(IoU(first[1].frame, then[1].frame), 0.5);
  EXPECT_NE(then[1].id, first[1].id) << "gedit took the closed dialog's ID";
  EXPECT_EQ(then[0].id, first[0].id) << "mousepad stayed";
  // The same ID as a listing that never saw the dialog gives it.
  TitleBarWindows fresh(TitleByHeight("Untitled Document 1", "Untitled 1 - Mousepad"));
  EXPECT_EQ(fresh.List(closed)[1].id, then[1].id);
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

namespace uiscope {
namespace {

// gedit 43 under openbox (Clearlooks) with mousepad 0.5 over its lower
// right part (tests/fixtures/images/make_images.sh). gedit draws its own
// title bar, a GTK header bar (Open, Save, its menu, and its own
// iconify, maximise and close buttons), and asks openbox for no
// decorations (_MOTIF_WM_HINTS, _NET_FRAME_EXTENTS 0, 0, 0, 0): the header
// bar is the only title bar it has. X11 placed it at 60,80, 910 x 756;
// mousepad's openbox frame is at 820,300, 642 x 506.
constexpr const char* kHeaderBarScreen = "openbox_gedit_headerbar.png";

// Whether `r`'s left, top and right edges lie within `slack` of these: a
// window's frame against its X geometry, less the border.
::testing::AssertionResult EdgesNear(const Rect& r, int left, int top, int right, int slack) {
  if (std::abs(r.x - left) <= slack && std::abs(r.y - top) <= slack &&
      std::abs(r.Right() - right) <= slack) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << Text(r) << " is not at left " << left << ", top " << top
                                       << ", right " << right << " (±" << slack << ")";
}

// Whether point (x, y) lies in `r`.
bool Holds(const Rect& r, int x, int y) { return r.Contains(Point{x, y}); }

TEST(HeaderBarTest, AGtkHeaderBarIsItsWindowsTitleBar) {
  const Image screen = Screenshot(kHeaderBarScreen);
  ASSERT_TRUE(screen.Valid());
  const std::vector<TitleBar> bars = FindTitleBars(screen);
  const std::string found = Listed(bars);
  // The header bar (47 rows, inside its 1-pixel border and highlight) and
  // mousepad's openbox bar; gedit's line-number gutter, its current-line
  // band and its status bar are no title bars.
  ASSERT_EQ(bars.size(), 2u) << found;
  EXPECT_TRUE(Near(bars[0].band, Rect{64, 84, 902, 47})) << found;
  EXPECT_TRUE(Near(bars[1].band, Rect{820, 300, 642, 19})) << found;
  // gedit's frame is its X geometry but for the border: it starts with the
  // header bar, whose controls are the window's.
  const Rect& gedit = bars[0].frame;
  EXPECT_TRUE(EdgesNear(gedit, 60, 80, 970, 4));
  EXPECT_GE(gedit.h, 700) << Text(gedit);
  for (const auto& [x, y, what] :
       {std::tuple{108, 105, "Open"}, std::tuple{752, 105, "Save"},
        std::tuple{810, 105, "the menu"}, std::tuple{938, 106, "the close button"}}) {
    EXPECT_TRUE(Holds(gedit, x, y)) << what << " outside " << Text(gedit);
  }
  EXPECT_GE(bars[1].frame.h, 480) << Text(bars[1].frame);
  // mousepad lies over gedit's body.
  EXPECT_EQ(bars[1].above, std::vector<size_t>{0});
  EXPECT_TRUE(bars[0].above.empty());
}

TEST(HeaderBarTest, ItsCloseButtonIsTheAppsOwnX) {
  const Image screen = Screenshot(kHeaderBarScreen);
  ASSERT_TRUE(screen.Valid());
  const std::vector<TitleBar> bars = FindTitleBars(screen);
  ASSERT_EQ(bars.size(), 2u);
  // gedit's close button: the X of its "window-close" icon, 7 x 8 pixels in
  // a 47-row bar (smaller than a fifth of the bar: what the search's
  // smallest glyph must allow). Clicking it closes gedit as openbox's would.
  const Rect& header = bars[0].band;
  const std::optional<Rect> close = FindCloseButton(screen, header);
  ASSERT_TRUE(close.has_value()) << Text(header);
  EXPECT_TRUE(Near(*close, Rect{935, 102, 7, 8})) << Text(*close);
  EXPECT_LT(close->h, header.h / 5) << Text(*close);
  // Left of it: maximise, iconify, the menu's three bars, Save, the title;
  // at the left end Open, its arrow and the new-tab box. None is an X.
  const Rect rest{header.x, header.y, close->x - 1 - header.x, header.h};
  const std::optional<Rect> other = FindCloseButton(screen, rest);
  EXPECT_FALSE(other.has_value()) << Text(*other);
  const Rect left{header.x, header.y, 3 * header.h, header.h};
  const std::optional<Rect> at_left = FindCloseButton(screen, left);
  EXPECT_FALSE(at_left.has_value()) << Text(*at_left);
  // mousepad's openbox close button, as on the theme screenshots.
  const std::optional<Rect> mousepad = FindCloseButton(screen, bars[1].band);
  ASSERT_TRUE(mousepad.has_value()) << Text(bars[1].band);
  EXPECT_TRUE(Near(*mousepad, Rect{1448, 307, 6, 6})) << Text(*mousepad);
}

TEST(HeaderBarTest, TheWindowCoversItsHeaderBar) {
  const Image screen = Screenshot(kHeaderBarScreen);
  ASSERT_TRUE(screen.Valid());
  TitleBarWindows found(TitleByHeight("Untitled Document 1", "Untitled 1 - Mousepad"));
  const std::vector<WindowInfo> windows = found.List(screen);
  ASSERT_EQ(windows.size(), 2u);
  // Bottom to top: mousepad lies over gedit.
  EXPECT_EQ(windows[0].title, "Untitled Document 1");
  EXPECT_EQ(windows[1].title, "Untitled 1 - Mousepad");
  const WindowInfo& gedit = windows[0];
  // The client area starts below the header bar (as below a window
  // manager's bar); what the window covers holds the bar.
  EXPECT_EQ(gedit.frame.y, 84) << Text(gedit.frame);
  EXPECT_EQ(gedit.bounds.y, 131) << Text(gedit.bounds);
  EXPECT_FALSE(Holds(gedit.bounds, 752, 105)) << Text(gedit.bounds);
  EXPECT_TRUE(Holds(gedit.Covers(), 752, 105)) << Text(gedit.Covers());
  for (const WindowInfo& w : windows) EXPECT_TRUE(FoundFromTitleBar(w)) << w.title;
  WindowInfo x11_window;
  x11_window.id = 0x4000f8;  // a real X window ID: 29 bits at most
  EXPECT_FALSE(FoundFromTitleBar(x11_window));
}

TEST(HeaderBarTest, AWindowCutByAHeaderBarWindowLiesUnderIt) {
  // The same two with gedit on top: mousepad's title bar runs on under
  // gedit's right edge (x 970), so it is cut there.
  const Image screen = Screenshot("openbox_gedit_over_mousepad.png");
  ASSERT_TRUE(screen.Valid());
  const std::vector<TitleBar> bars = FindTitleBars(screen);
  const std::string found = Listed(bars);
  ASSERT_EQ(bars.size(), 2u) << found;
  EXPECT_TRUE(Near(bars[0].band, Rect{64, 84, 902, 47})) << found;
  EXPECT_TRUE(Near(bars[1].band, Rect{970, 300, 492, 19})) << found;
  EXPECT_EQ(bars[0].above, std::vector<size_t>{1});
  EXPECT_TRUE(bars[1].above.empty());
  const std::optional<Rect> close = FindCloseButton(screen, bars[1].band);
  ASSERT_TRUE(close.has_value()) << Text(bars[1].band);
  EXPECT_TRUE(Near(*close, Rect{1448, 307, 6, 6})) << Text(*close);

  TitleBarWindows listed(TitleByHeight("Untitled Document 1", "Untitled 1 - Mousepad"));
  const std::vector<WindowInfo> windows = listed.List(screen);
  ASSERT_EQ(windows.size(), 2u);
  EXPECT_EQ(windows[0].title, "Untitled 1 - Mousepad");
  EXPECT_EQ(windows[1].title, "Untitled Document 1");
}

// gnome-calculator 43 (GTK 4 + libadwaita) under openbox: it asks for no
// decorations and draws a header bar 50 rows high inside its 1-pixel border
// (taller than any window manager's bar), holding Undo, the mode menu
// "Basic", the main menu and three round buttons; no title.
constexpr const char* kCalculatorScreen = "gnome_calculator_headerbar.png";

TEST(HeaderBarTest, ALibadwaitaHeaderBarIsFoundWhole) {
  const Image screen = Screenshot(kCalculatorScreen);
  ASSERT_TRUE(screen.Valid());
  const std::vector<TitleBar> bars = FindTitleBars(screen);
  const std::string found = Listed(bars);
  // Its keypad, display and entry are no title bars.
  ASSERT_EQ(bars.size(), 1u) << found;
  EXPECT_TRUE(Near(bars[0].band, Rect{778, 305, 363, 50})) << found;
  // The frame is its X geometry (777,304 365x496) but for the border.
  const Rect& frame = bars[0].frame;
  EXPECT_TRUE(EdgesNear(frame, 777, 304, 1142, 2));
  EXPECT_LE(std::abs(frame.Bottom() - 800), 2) << Text(frame);
  // Its close button: the X in the rightmost round button (1102..1127).
  const std::optional<Rect> close = FindCloseButton(screen, bars[0].band);
  ASSERT_TRUE(close.has_value()) << Text(bars[0].band);
  const Rect rightmost{1102, 320, 26, 25};
  EXPECT_TRUE(rightmost.Contains(*close)) << Text(*close);
}

TEST(PlainPointTest, AHeaderBarIsRaisedBetweenItsControls) {
  const Image screen = Screenshot(kCalculatorScreen);
  ASSERT_TRUE(screen.Valid());
  const std::vector<TitleBar> bars = FindTitleBars(screen);
  ASSERT_EQ(bars.size(), 1u);
  const std::optional<Point> spot = FindPlainPoint(screen, bars[0].band);
  ASSERT_TRUE(spot.has_value());
  EXPECT_TRUE(bars[0].band.Contains(*spot));
  // The controls' boxes as they light up under the pointer (Undo, the main
  // menu: flat buttons, 9-10 pixels wider than their ink on each side),
  // framed (Basic, by its focus ring once its menu closed) or filled (the
  // round buttons). The band's centre (959)
  // is on "Basic": a click there opened the mode menu.
  for (const auto& [box, what] :
       {std::pair{Rect{788, 315, 81, 35}, "Undo"}, std::pair{Rect{887, 315, 79, 35}, "Basic"},
        std::pair{Rect{984, 315, 34, 35}, "the main menu"},
        std::pair{Rect{1028, 320, 26, 25}, "iconify"},
        std::pair{Rect{1065, 320, 26, 25}, "maximise"},
        std::pair{Rect{1102, 320, 26, 25}, "close"}}) {
    EXPECT_FALSE(box.Contains(*spot)) << what << " at " << spot->x << "," << spot->y;
  }
}

TEST(PlainPointTest, AWindowManagersBarIsRaisedBesideItsTitle) {
  for (const char* file :
       {"openbox_clearlooks.png", "openbox_onyx.png", "openbox_nightmare.png", kHeaderBarScreen}) {
    const Image screen = Screenshot(file);
    ASSERT_TRUE(screen.Valid()) << file;
    for (const TitleBar& bar : FindTitleBars(screen)) {
      const std::optional<Point> spot = FindPlainPoint(screen, bar.band);
      ASSERT_TRUE(spot.has_value()) << file << " " << Text(bar.band);
      EXPECT_TRUE(bar.band.Contains(*spot)) << file << " " << Text(bar.band);
      // Away from the buttons, which these themes put at the right end
      // beside the close button.
      const std::optional<Rect> close = FindCloseButton(screen, bar.band);
      ASSERT_TRUE(close.has_value()) << file << " " << Text(bar.band);
      EXPECT_LT(spot->x, close->x - 2 * bar.band.h)
          << file << " " << Text(bar.band) << " at " << spot->x;
    }
  }
}

// The looks of the bars of the windows on `screen`, by ID (gnome-calculator
// and xterm: the header bar is the taller).
std::map<uint64_t, BarLook> BarLooks(const Image& screen, std::vector<WindowInfo>* windows) {
  TitleBarWindows found(TitleByHeight("Calculator", "xterm"));
  *windows = found.List(screen);
  std::map<uint64_t, BarLook> looks;
  for (const WindowInfo& w : *windows) {
    const Rect band{w.frame.x, w.frame.y, w.frame.w, w.bounds.y - w.frame.y};
    if (auto look = LookOfBar(screen, band)) looks[w.id] = *look;
  }
  return looks;
}

TEST(ActiveLookTest, AHeaderBarRaisedOverAWindowManagersBarTookTheFocus) {
  // gnome-calculator under an xterm that has the focus (openbox's blue
  // bar), then after a click on the calculator's header bar: on top, with
  // the focus, its bar the same grey as before, xterm's bar grey too.
  const Image under = Screenshot("gnome_calculator_under_xterm.png");
  const Image raised = Screenshot("gnome_calculator_raised_over_xterm.png");
  ASSERT_TRUE(under.Valid() && raised.Valid());
  std::vector<WindowInfo> before_windows, after_windows;
  const auto before = BarLooks(under, &before_windows);
  const auto after = BarLooks(raised, &after_windows);
  ASSERT_EQ(before_windows.size(), 2u);
  ASSERT_EQ(after_windows.size(), 2u);
  // Bottom to top: the calculator is raised over xterm.
  EXPECT_EQ(before_windows[0].title, "Calculator");
  EXPECT_EQ(after_windows[1].title, "Calculator");
  const uint64_t calculator = before_windows[0].id;
  ASSERT_EQ(after_windows[1].id, calculator);
  ASSERT_EQ(before.size(), 2u);
  ASSERT_EQ(after.size(), 2u);
  const uint64_t xterm = before_windows[1].id;
  // The header bar looks the same with the focus or without; xterm's bar
  // lost its blue and now looks much as the calculator's: what tells that
  // the focus moved is xterm's bar.
  EXPECT_EQ(before.at(calculator), after.at(calculator));
  EXPECT_NE(before.at(xterm), after.at(xterm));
  EXPECT_TRUE(TookActiveLook(before, after, calculator));
}

}  // namespace
}  // namespace uiscope
