// WindowSystem: the top-level windows of a desktop, and raising, focusing
// and closing them (DESIGN §6).
//
// Abstract so the engine never sees a backend header and its tests run on a
// recording fake (tests/support/fake_windows.h). The real implementation is
// X11Windows (platform/x11/x11_windows.h): EWMH through the window manager
// when one runs (_NET_CLIENT_LIST_STACKING, _NET_ACTIVE_WINDOW,
// _NET_CLOSE_WINDOW), plain Xlib otherwise (XQueryTree, XRaiseWindow +
// XSetInputFocus, WM_DELETE_WINDOW).
//
// Coordinates: screen pixels of the display.
//
// Thread safety: none; one instance per thread, or serialise calls (the
// workspace lease does). Ownership: the backend owns its connection.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/geometry.h"
#include "core/result.h"

namespace uiscope {

struct WindowInfo {
  uint64_t id = 0;           // X window ID of the client window
  std::string title;         // _NET_WM_NAME, else WM_NAME
  std::string app_class;     // WM_CLASS class ("Gedit"); "" when unset
  std::string app_instance;  // WM_CLASS instance ("gedit"); "" when unset
  int pid = 0;               // _NET_WM_PID, else the X server's (X-Resource); 0 = unknown
  Rect bounds;               // client area
  // The window with the decorations its window manager draws around it
  // (title bar, borders: _NET_FRAME_EXTENTS); the same as `bounds` without a
  // window manager, empty when the backend does not know. What it covers.
  Rect frame;
  bool visible = true;       // mapped and viewable (false: minimised or hidden)
  bool focused = false;      // the active window (EWMH) / has the input focus
  // A dialog by what the X server holds: _NET_WM_WINDOW_TYPE_DIALOG, or
  // WM_TRANSIENT_FOR without a window type (EWMH says such a window is a
  // dialog). False when the backend cannot tell.
  bool dialog = false;

  // What the window covers on screen: its frame when known, else its bounds.
  Rect Covers() const { return frame.Empty() ? bounds : frame; }
};

class WindowSystem {
 public:
  virtual ~WindowSystem() = default;

  // True when an EWMH window manager runs (its answers are then EWMH's).
  virtual bool has_window_manager() = 0;

  // The top-level client windows, bottom to top in stacking order (the last
  // one containing a point is the one a click there reaches).
  virtual Result<std::vector<WindowInfo>> ListWindows() = 0;

  // The active window's ID; 0 when none.
  virtual Result<uint64_t> ActiveWindow() = 0;

  // Raises and focuses `window` (de-iconifying it) and waits until the
  // window manager reports it active, or it has the input focus without a
  // window manager. NotFound for an unknown window, Timeout when it did not
  // become active in time (a modal dialog of its app, a window manager that
  // refuses).
  virtual Status Activate(uint64_t window, std::chrono::milliseconds timeout) = 0;

  // Asks `window` to close as the user's close button would: _NET_CLOSE_WINDOW
  // through the window manager, else WM_DELETE_WINDOW. Returns once asked;
  // the app decides (it may show a "save changes?" dialog). NotFound for an
  // unknown window, Unsupported for a window that takes no polite request
  // (no window manager and no WM_DELETE_WINDOW protocol).
  virtual Status Close(uint64_t window) = 0;

  // Ends the connection of the client that owns `window` (XKillClient): the
  // last resort for a window whose process is not known (no _NET_WM_PID, a
  // remote client) and that did not close when asked. NotFound for an
  // unknown window; the default is Unsupported.
  virtual Status KillClient(uint64_t window);
};

// The windows of X display `display` ("" = $DISPLAY) through their own X
// connection. Unavailable when the display cannot be opened.
Result<std::unique_ptr<WindowSystem>> OpenX11Windows(const std::string& display);

}  // namespace uiscope
