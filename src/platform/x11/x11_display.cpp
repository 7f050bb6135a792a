#include "platform/x11/x11_display.h"

#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>

#include <cstdlib>
#include <utility>

#include "platform/x11/x11_setup.h"
#include "platform/x11/x_free.h"
#include "platform/x11/x_property.h"

namespace uiscope::x11 {
namespace {

// Xlib calls exit() on a fatal I/O error by default (the X server went
// away, e.g. a session was stopped while we held a connection to it) and
// prints on protocol errors (a window that vanished between two calls):
// neither may kill or spam a long-running server. The I/O handler stays
// quiet; the exit handler (libX11 >= 1.7) returns instead of exiting, which
// leaves the connection marked broken, and X11Display::broken() reports it.
int IgnoreXError(Display*, XErrorEvent*) { return 0; }
int IgnoreXIOError(Display*) { return 0; }
void MarkBroken(Display*, void* self) { *static_cast<bool*>(self) = true; }

// The root window's mapped children, bottom to top, with their attributes:
// the override-redirect ones (popups: menus, tooltips) or the others.
std::vector<std::pair<Window, XWindowAttributes>> ViewableRootChildren(Display* d,
                                                                       bool override_redirect) {
  std::vector<std::pair<Window, XWindowAttributes>> out;
  Window root_ret = 0, parent = 0;
  Window* children = nullptr;
  unsigned int n = 0;
  if (!XQueryTree(d, DefaultRootWindow(d), &root_ret, &parent, &children, &n) ||
      children == nullptr) {
    return out;
  }
  XPtr<Window> owned(children);
  for (unsigned int i = 0; i < n; ++i) {
    XWindowAttributes attrs;
    if (XGetWindowAttributes(d, children[i], &attrs) && attrs.map_state == IsViewable &&
        static_cast<bool>(attrs.override_redirect) == override_redirect) {
      out.emplace_back(children[i], attrs);
    }
  }
  return out;
}

}  // namespace

Result<std::unique_ptr<X11Display>> X11Display::Open(const std::string& name) {
  std::string display_name = name;
  if (display_name.empty()) {
    const char* env = std::getenv("DISPLAY");
    if (env == nullptr || *env == '\0') {
      return MakeError(ErrorCode::kUnavailable,
                       "no display: DISPLAY is not set. Start a headless desktop with "
                       "`uiscope session start` and export what it prints, or pass --display :N");
    }
    display_name = env;
  }
  XSetErrorHandler(IgnoreXError);
  XSetIOErrorHandler(IgnoreXIOError);
  Display* d = XOpenDisplay(display_name.c_str());
  if (d == nullptr) {
    // Xlib says only NULL; the server's own reason, asked again without
    // Xlib, tells a full client table from a server that is not there.
    const SetupAnswer answer = AskSetup(display_name, 1000);
    if (IsTooManyClients(answer)) {
      return MakeError(ErrorCode::kUnavailable,
                       "the X server of display " + display_name +
                           " refused a new client: too many clients are connected (\"" +
                           answer.reason +
                           "\"); close some of its apps or uiscope processes, or start another "
                           "session");
    }
    if (answer.kind == SetupAnswer::Kind::kRefused) {
      return MakeError(ErrorCode::kUnavailable, "the X server of display " + display_name +
                                                    " refused the connection: \"" +
                                                    answer.reason + "\"");
    }
    return MakeError(ErrorCode::kUnavailable,
                     "cannot open display " + display_name +
                         " (is the X server running? `uiscope session list` shows sessions)");
  }
  std::unique_ptr<X11Display> display(new X11Display(d, display_name));
  XSetIOErrorExitHandler(d, MarkBroken, &display->broken_);
  return display;
}

X11Display::~X11Display() { XCloseDisplay(display_); }

int X11Display::width() const { return DisplayWidth(display_, DefaultScreen(display_)); }
int X11Display::height() const { return DisplayHeight(display_, DefaultScreen(display_)); }

std::optional<std::string> X11Display::RootStringProperty(const char* atom_name) const {
  auto data = PropertyBytes(display_, DefaultRootWindow(display_), atom_name, AnyPropertyType);
  if (data.empty()) return std::nullopt;
  std::string s(data.begin(), data.end());
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::vector<Rect> X11Display::MappedPopups() const {
  std::vector<Rect> popups;
  for (const auto& [w, attrs] : ViewableRootChildren(display_, /*override_redirect=*/true)) {
    popups.push_back(Rect{attrs.x, attrs.y, attrs.width, attrs.height});
  }
  return popups;
}

}  // namespace uiscope::x11
