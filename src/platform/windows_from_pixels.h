// Top-level windows found from a screen's pixels, for a desktop whose
// window system cannot be asked (a VNC server's framebuffer, issue 20): a
// window is where a window manager drew a title bar.
//
// A title bar is told by its decorations, never by one theme's colours:
//   - a horizontal band 12–48 pixels high and at least 120 wide, bounded
//     above and below by colour steps along its whole width (the frame's
//     top, and the line where the client area starts);
//   - inside, rows of one colour or a smooth gradient (vertical or along
//     the band), broken only by what is drawn on it: the title text and, at
//     one end or both, the buttons (close, maximise, iconify) or an icon;
//   - the frame's sides: a colour step at an end of the band on most of its
//     rows, and below it, down the band's left or right end, for at least
//     32 rows (the client area).
// A band inside a window found before it that does not reach out of that
// window (a menu bar, a toolbar, a tab strip, a framed box) is part of that
// window, not one of its own. The stacking order, as far as the pixels
// give it: a band that lies over another window's frame and reaches out of
// it is above that window; a band cut off where another window's frame
// starts or ends, beside it, is below that window.
//
// A window that draws its own title bar and asks the window manager for no
// decorations (gedit 43's GTK header bar, 47 rows, and gnome-calculator
// 43's libadwaita one, 50 rows, under openbox) is found from that bar when
// it looks like one (up to 56 rows high; rows of plain border above it are
// the frame's): its frame starts with the bar, and its close button is the
// app's own.
//
// Known limits: a window whose title bar is wholly covered is not found; a
// dialog drawn wholly inside its parent's frame is taken as part of the
// parent; a window's frame is what its visible edges show (the part of a
// side hidden by another window does not count); a widget framed as a
// window is (a tab strip over its panel) is taken for one where no window
// found holds it (on a screen without decorations). The VNC desktop lists
// the screen beneath what is found, so such a miss loses nothing
// (vnc_desktop.h).
//
// Pure: no I/O; the title text is read by the caller's TitleReader (OCR
// lives above the platform layer).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/geometry.h"
#include "image/image.h"
#include "platform/windows.h"

namespace uiscope {

struct TitleBar {
  Rect band;   // the title bar, screen pixels
  Rect frame;  // the band and the client area below it, as far as its side edges show
  // The windows (indices into the result) this one was seen to lie over.
  std::vector<size_t> above;
};

// The title bars on `screen`, top to bottom by their band's top.
std::vector<TitleBar> FindTitleBars(const Image& screen);

// The close button of the title bar `band` (screen pixels) on `screen`: the
// box of an X-shaped glyph near one end of the band (the right end first,
// as most layouts put it; else the left), told by its shape, never by a
// theme's colours: against the colour at its four edge midpoints (the
// background it is drawn on: the band, or the button's own face inside a
// framed button), ink at its four corners, at its centre and along both
// diagonals, none at the edge midpoints nor just outside it. An iconify bar,
// a maximise box, a slash or a framed button face fails one of these.
// nullopt when none is found (a theme drawing its buttons otherwise, a band
// whose end is covered).
std::optional<Rect> FindCloseButton(const Image& screen, const Rect& band);

// The point of the title bar `band` (screen pixels) on `screen` to click to
// raise its window without pressing anything drawn on it: the middle of the
// widest run of columns that is plain on every row inside the band (no step
// above a gradient's between neighbours), at the band's middle row. A
// window manager's bar gives the space beside its title; a header bar, the
// gap between its controls (gnome-calculator 43 puts its mode menu at the
// bar's centre: a click there opens it). nullopt when the band holds no
// plain column.
std::optional<Point> FindPlainPoint(const Image& screen, const Rect& band);

// The look of a title bar: its most common colour (5 bits a channel), what
// a theme paints active and inactive bars differently.
using BarLook = std::array<int, 3>;

// The look of the title bar `band` (screen pixels) on `screen`; nullopt
// when the band lies off the screen.
std::optional<BarLook> LookOfBar(const Image& screen, const Rect& band);

// Whether `window`'s title bar shows that a click on it gave it the focus,
// from the looks of every window's bar (by window ID) before and after: the
// click changed its look (it took the active one); or it changed another
// bar's (the window that had the focus lost it: a header bar looks the
// same active or not, as gnome-calculator 43's does, while openbox's bar
// over xterm turns from blue to grey); or no other bar looks as it does now
// (it had the one look no other window has). A theme that paints every bar
// alike (all looked the same before) tells nothing: being on top is then
// all there is to check. Known limit: of exactly two windows that do not
// overlap, one already active looks as the other would had the click not
// reached it.
bool TookActiveLook(const std::map<uint64_t, BarLook>& before,
                    const std::map<uint64_t, BarLook>& after, uint64_t window);

// Reads the title text of the band `band` (screen pixels) of `screen`; ""
// when none can be read. Called from the thread that lists windows.
using TitleReader = std::function<std::string(const Image& screen, const Rect& band)>;

// The WindowInfo of each title bar of a screen, bottom to top, with IDs that
// stay the same while a window stays (see List).
class TitleBarWindows {
 public:
  explicit TitleBarWindows(TitleReader read_title) : read_title_(std::move(read_title)) {}

  // The windows on `screen`: class "VNC" / instance "vnc" (the pixels say
  // nothing of the app), pid 0, `bounds` the client area and `frame` with
  // the title bar, none focused (which one has the focus is not told by the
  // pixels of every theme). The ID of a window seen in the previous listing
  // of this object (its frame overlapping at IoU 0.5, or the same title) is
  // kept; a new one's ID is derived from its title (from its position when
  // it has none), so that another process listing the same screen gives the
  // same IDs. IDs have bit 48 set, so they never collide with the screen's
  // own window ID (small numbers). Empty when no title bar is found.
  std::vector<WindowInfo> List(const Image& screen);

 private:
  TitleReader read_title_;
  std::vector<WindowInfo> previous_;
};

// The bit every ID from TitleBarWindows carries.
inline constexpr uint64_t kTitleBarWindowBit = uint64_t{1} << 48;

// Whether `w` was found from its title bar by TitleBarWindows. Such a bar
// may be the app's own as well as a window manager's (a GTK header bar
// holding Open, Save and a menu is one): the pixels cannot tell them apart,
// so what the window shows is its whole frame, bar included.
inline bool FoundFromTitleBar(const WindowInfo& w) { return (w.id & kTitleBarWindowBit) != 0; }

// The part of `w` that is its app's: the client area, or for a window found
// from its title bar the whole frame (that bar may hold the app's controls:
// gedit's Save, gnome-calculator's mode menu). What observe reads, a click
// may point at, and a verification compares.
inline Rect AppArea(const WindowInfo& w) { return FoundFromTitleBar(w) ? w.Covers() : w.bounds; }

}  // namespace uiscope
