#include "platform/x11/x11_windows.h"

#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/XRes.h>
// Xlib #defines Status as int; below, Status is uiscope::Status.
#undef Status

#include <algorithm>
#include <thread>
#include <vector>

#include "platform/x11/x_free.h"
#include "platform/x11/x_property.h"

namespace uiscope {

namespace x11 {
namespace {

using Clock = std::chrono::steady_clock;

// The process of the X client that created `w`, from the server (X-Resource
// 1.2, XResQueryClientIds): Tk and other old toolkits set no _NET_WM_PID,
// but the server knows the pid of every local client. 0 when it cannot tell
// (a remote client, a server without the extension).
int ClientPid(Display* d, Window w) {
  int event_base = 0, error_base = 0;
  if (!XResQueryExtension(d, &event_base, &error_base)) return 0;
  XResClientIdSpec spec{};
  spec.client = w;
  spec.mask = XRES_CLIENT_ID_PID_MASK;
  long count = 0;
  XResClientIdValue* values = nullptr;
  if (XResQueryClientIds(d, 1, &spec, &count, &values) != Success || values == nullptr) return 0;
  pid_t pid = 0;
  for (long i = 0; i < count && pid <= 0; ++i) {
    if (values[i].spec.mask & XRES_CLIENT_ID_PID_MASK) pid = XResGetClientPid(&values[i]);
  }
  XResClientIdsDestroy(count, values);
  return pid > 0 ? static_cast<int>(pid) : 0;
}

std::string StringProperty(Display* d, Window w, const char* name, Atom type) {
  const Property p = ReadProperty(d, w, name, type, 1 << 16);
  if (p.type == None || p.format != 8) return "";
  return std::string(reinterpret_cast<const char*>(p.data.get()), p.count);
}

std::string Title(Display* d, Window w) {
  std::string net = StringProperty(d, w, "_NET_WM_NAME", XInternAtom(d, "UTF8_STRING", False));
  return net.empty() ? StringProperty(d, w, "WM_NAME", AnyPropertyType) : net;
}

bool SendRootMessage(Display* d, Window about, const char* type, long l0, long l1, long l2) {
  XEvent event{};
  event.xclient.type = ClientMessage;
  event.xclient.serial = 0;
  event.xclient.send_event = True;
  event.xclient.display = d;
  event.xclient.window = about;
  event.xclient.message_type = XInternAtom(d, type, False);
  event.xclient.format = 32;
  event.xclient.data.l[0] = l0;
  event.xclient.data.l[1] = l1;
  event.xclient.data.l[2] = l2;
  // EWMH: client messages to the root window with these masks reach the
  // window manager.
  return XSendEvent(d, DefaultRootWindow(d), False,
                    SubstructureRedirectMask | SubstructureNotifyMask, &event) != 0;
}

// EWMH source indication "pager": a request on the user's behalf, which
// window managers grant without focus-stealing prevention.
constexpr long kSourcePager = 2;

}  // namespace

Result<std::unique_ptr<X11Windows>> X11Windows::Open(const std::string& display_name) {
  auto display = X11Display::Open(display_name);
  if (!display.ok()) return display.error();
  return std::unique_ptr<X11Windows>(new X11Windows(std::move(display).value()));
}

namespace {

Status Alive(const X11Display& display) {
  if (display.broken()) {
    return MakeError(ErrorCode::kUnavailable, "the X server of " + display.name() + " went away");
  }
  return OkStatus();
}

bool WindowExists(const X11Display& display, unsigned long window) {
  XWindowAttributes attrs;
  return XGetWindowAttributes(display.raw(), window, &attrs) != 0;
}

bool HasWindowManager(const X11Display& display) {
  Display* d = display.raw();
  auto check = LongProperty(d, DefaultRootWindow(d), "_NET_SUPPORTING_WM_CHECK", XA_WINDOW);
  // A window manager that died leaves the property behind; its check window
  // goes with it.
  return !check.empty() && check[0] != 0 && WindowExists(display, static_cast<Window>(check[0]));
}

Result<uint64_t> ActiveClientWindow(const X11Display& display) {
  Display* d = display.raw();
  const Window root = DefaultRootWindow(d);
  if (HasWindowManager(display)) {
    auto active = LongProperty(d, root, "_NET_ACTIVE_WINDOW", XA_WINDOW);
    if (auto st = Alive(display); !st.ok()) return st.error();
    return active.empty() ? uint64_t{0} : static_cast<uint64_t>(active[0]);
  }
  // Without a window manager the focus may sit on a child of the top-level
  // window; the top-level is the ancestor whose parent is the root.
  Window focus = 0;
  int revert = 0;
  XGetInputFocus(d, &focus, &revert);
  if (focus == None || focus == PointerRoot || focus == root) return uint64_t{0};
  for (int guard = 0; guard < 64; ++guard) {
    Window root_ret = 0, parent = 0;
    Window* children = nullptr;
    unsigned int n = 0;
    if (!XQueryTree(d, focus, &root_ret, &parent, &children, &n)) break;
    if (children) XFree(children);
    if (parent == root || parent == 0) break;
    focus = parent;
  }
  if (auto st = Alive(display); !st.ok()) return st.error();
  return static_cast<uint64_t>(focus);
}

}  // namespace

Result<std::vector<WindowInfo>> ListClientWindows(const X11Display& display) {
  Display* d = display.raw();
  const Window root = DefaultRootWindow(d);
  std::vector<Window> windows;
  if (HasWindowManager(display)) {
    auto list = LongProperty(d, root, "_NET_CLIENT_LIST_STACKING", XA_WINDOW);
    if (list.empty()) list = LongProperty(d, root, "_NET_CLIENT_LIST", XA_WINDOW);
    for (long w : list) windows.push_back(static_cast<Window>(w));
  } else {
    Window root_ret = 0, parent = 0;
    Window* children = nullptr;
    unsigned int n = 0;
    if (XQueryTree(d, root, &root_ret, &parent, &children, &n) && children != nullptr) {
      XPtr<Window> owned(children);
      for (unsigned int i = 0; i < n; ++i) {
        XWindowAttributes attrs;
        if (XGetWindowAttributes(d, children[i], &attrs) && attrs.map_state == IsViewable &&
            !attrs.override_redirect && attrs.c_class == InputOutput) {
          windows.push_back(children[i]);
        }
      }
    }
  }
  auto active = ActiveClientWindow(display);
  if (!active.ok()) return active.error();

  std::vector<WindowInfo> out;
  for (Window w : windows) {
    XWindowAttributes attrs;
    if (!XGetWindowAttributes(d, w, &attrs)) continue;  // gone meanwhile
    WindowInfo info;
    info.id = w;
    info.title = Title(d, w);
    XClassHint hint{};
    if (XGetClassHint(d, w, &hint)) {
      if (hint.res_name) info.app_instance = hint.res_name;
      if (hint.res_class) info.app_class = hint.res_class;
      XFree(hint.res_name);
      XFree(hint.res_class);
    }
    auto pid = LongProperty(d, w, "_NET_WM_PID", XA_CARDINAL);
    if (!pid.empty()) info.pid = static_cast<int>(pid[0]);
    if (info.pid <= 0) info.pid = ClientPid(d, w);
    int x = 0, y = 0;
    Window child = 0;
    XTranslateCoordinates(d, w, root, 0, 0, &x, &y, &child);
    info.bounds = Rect{x, y, attrs.width, attrs.height};
    info.frame = info.bounds;
    // left, right, top, bottom, set by EWMH window managers on managed windows.
    const std::vector<long> extents = LongProperty(d, w, "_NET_FRAME_EXTENTS", XA_CARDINAL);
    if (extents.size() == 4) {
      info.frame = Rect{x - static_cast<int>(extents[0]), y - static_cast<int>(extents[2]),
                        attrs.width + static_cast<int>(extents[0] + extents[1]),
                        attrs.height + static_cast<int>(extents[2] + extents[3])};
    }
    info.visible = attrs.map_state == IsViewable;
    info.focused = w == *active;
    const std::vector<long> types = LongProperty(d, w, "_NET_WM_WINDOW_TYPE", XA_ATOM);
    const long dialog_type = static_cast<long>(XInternAtom(d, "_NET_WM_WINDOW_TYPE_DIALOG", False));
    info.dialog = types.empty() ? !LongProperty(d, w, "WM_TRANSIENT_FOR", XA_WINDOW).empty()
                                : types[0] == dialog_type;
    out.push_back(std::move(info));
  }
  if (auto st = Alive(display); !st.ok()) return st.error();
  return out;
}

Status X11Windows::CheckAlive() const { return Alive(*display_); }

bool X11Windows::Exists(unsigned long window) const { return WindowExists(*display_, window); }

bool X11Windows::has_window_manager() { return HasWindowManager(*display_); }

Result<std::vector<WindowInfo>> X11Windows::ListWindows() { return ListClientWindows(*display_); }

Result<uint64_t> X11Windows::ActiveWindow() { return ActiveClientWindow(*display_); }

Status X11Windows::Activate(uint64_t window, std::chrono::milliseconds timeout) {
  Display* d = display_->raw();
  const Window w = static_cast<Window>(window);
  if (!Exists(w)) {
    return MakeError(ErrorCode::kNotFound, "no window " + std::to_string(window) + " on " +
                                               display_->name() + " (it was closed?)");
  }
  const bool wm = has_window_manager();
  if (wm) {
    SendRootMessage(d, w, "_NET_ACTIVE_WINDOW", kSourcePager, CurrentTime, 0);
  } else {
    XMapRaised(d, w);
    XSetInputFocus(d, w, RevertToParent, CurrentTime);
  }
  XSync(d, False);
  if (auto st = CheckAlive(); !st.ok()) return st;
  const auto deadline = Clock::now() + timeout;
  while (true) {
    auto active = ActiveWindow();
    if (!active.ok()) return active.error();
    if (*active == window) return OkStatus();
    if (Clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return MakeError(ErrorCode::kTimeout,
                   "window " + std::to_string(window) + " did not become active within " +
                       std::to_string(timeout.count()) + " ms" +
                       (wm ? " (the window manager refused: a modal dialog of its app?)" : ""));
}

Status X11Windows::Close(uint64_t window) {
  Display* d = display_->raw();
  const Window w = static_cast<Window>(window);
  if (!Exists(w)) {
    return MakeError(ErrorCode::kNotFound, "no window " + std::to_string(window) + " on " +
                                               display_->name() + " (already closed?)");
  }
  if (has_window_manager()) {
    SendRootMessage(d, w, "_NET_CLOSE_WINDOW", CurrentTime, kSourcePager, 0);
    XSync(d, False);
    return CheckAlive();
  }
  Atom* protocols = nullptr;
  int count = 0;
  const Atom delete_window = XInternAtom(d, "WM_DELETE_WINDOW", False);
  bool supported = false;
  if (XGetWMProtocols(d, w, &protocols, &count) && protocols != nullptr) {
    XPtr<Atom> owned(protocols);
    supported = std::find(protocols, protocols + count, delete_window) != protocols + count;
  }
  if (!supported) {
    return MakeError(ErrorCode::kUnsupported,
                     "window " + std::to_string(window) +
                         " does not take WM_DELETE_WINDOW and no window manager runs: it can "
                         "only be ended by signalling its process");
  }
  XEvent event{};
  event.xclient.type = ClientMessage;
  event.xclient.window = w;
  event.xclient.message_type = XInternAtom(d, "WM_PROTOCOLS", False);
  event.xclient.format = 32;
  event.xclient.data.l[0] = static_cast<long>(delete_window);
  event.xclient.data.l[1] = CurrentTime;
  XSendEvent(d, w, False, NoEventMask, &event);
  XSync(d, False);
  return CheckAlive();
}

Status X11Windows::KillClient(uint64_t window) {
  Display* d = display_->raw();
  const Window w = static_cast<Window>(window);
  if (!Exists(w)) {
    return MakeError(ErrorCode::kNotFound, "no window " + std::to_string(window) + " on " +
                                               display_->name() + " (already closed?)");
  }
  XKillClient(d, w);
  XSync(d, False);
  return CheckAlive();
}

}  // namespace x11
}  // namespace uiscope
