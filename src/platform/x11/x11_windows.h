// X11Windows: WindowSystem (platform/windows.h) for X11.
//
// With an EWMH window manager (_NET_SUPPORTING_WM_CHECK set and alive):
// windows from _NET_CLIENT_LIST_STACKING, the active one from
// _NET_ACTIVE_WINDOW, activation and closing as client messages to the root
// window with source indication 2 ("pager"), which window managers honour
// without focus-stealing prevention. Without one: the viewable children of
// the root window (XQueryTree, already bottom to top), XMapRaised +
// XSetInputFocus, and WM_DELETE_WINDOW sent to the window itself.
//
// Thread safety: none (Xlib without XInitThreads); one thread at a time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "platform/windows.h"
#include "platform/x11/x11_display.h"

namespace uiscope::x11 {

// The top-level client windows of `display`, bottom to top, as
// X11Windows::ListWindows lists them: the one lister of X11 windows, for
// callers that hold a connection of their own (the accessibility backend
// matches GTK 4's windows with them). Unavailable when the server went away.
Result<std::vector<WindowInfo>> ListClientWindows(const X11Display& display);

class X11Windows final : public WindowSystem {
 public:
  // Opens its own connection to `display_name` ("" = $DISPLAY).
  static Result<std::unique_ptr<X11Windows>> Open(const std::string& display_name);

  bool has_window_manager() override;
  Result<std::vector<WindowInfo>> ListWindows() override;
  Result<uint64_t> ActiveWindow() override;
  Status Activate(uint64_t window, std::chrono::milliseconds timeout) override;
  Status Close(uint64_t window) override;
  Status KillClient(uint64_t window) override;

 private:
  explicit X11Windows(std::unique_ptr<X11Display> display) : display_(std::move(display)) {}
  Status CheckAlive() const;
  bool Exists(unsigned long window) const;

  std::unique_ptr<X11Display> display_;
};

}  // namespace uiscope::x11
