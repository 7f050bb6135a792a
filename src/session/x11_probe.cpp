#include "session/x11_probe.h"

#include <X11/Xatom.h>
#include <X11/Xlib.h>

#include <chrono>
#include <memory>
#include <thread>

#include "platform/x11/x11_setup.h"
#include "platform/x11/x_free.h"

namespace uiscope::x11_probe {
namespace {

struct DisplayCloser {
  void operator()(Display* display) const { XCloseDisplay(display); }
};
using DisplayPtr = std::unique_ptr<Display, DisplayCloser>;

DisplayPtr Open(const std::string& display_name) {
  return DisplayPtr(XOpenDisplay(display_name.c_str()));
}

}  // namespace

bool DisplayAnswers(const std::string& display_name) { return Open(display_name) != nullptr; }

uint64_t SupportingWmCheckWindow(const std::string& display_name) {
  DisplayPtr display = Open(display_name);
  if (!display) return 0;
  // only_if_exists: before any WM ran, the atom does not exist, which is a
  // valid "no" answer and avoids creating atoms as a side effect.
  Atom check = XInternAtom(display.get(), "_NET_SUPPORTING_WM_CHECK", True);
  if (check == None) return 0;
  Atom actual_type = None;
  int actual_format = 0;
  unsigned long item_count = 0;
  unsigned long bytes_after = 0;
  unsigned char* raw = nullptr;
  int status =
      XGetWindowProperty(display.get(), DefaultRootWindow(display.get()), check, 0, 1, False,
                         XA_WINDOW, &actual_type, &actual_format, &item_count, &bytes_after, &raw);
  x11::XPtr<unsigned char> data(raw);
  if (status != Success || actual_type != XA_WINDOW || actual_format != 32 || item_count < 1 ||
      !data) {
    return 0;
  }
  // Format-32 properties come back as an array of long, whatever its size.
  return static_cast<uint64_t>(reinterpret_cast<unsigned long*>(data.get())[0]);
}

bool WindowManagerAnswers(const std::string& display_name, int timeout_ms) {
  DisplayPtr display = Open(display_name);
  if (!display) return false;
  Display* d = display.get();
  const Window root = DefaultRootWindow(d);
  const Atom request = XInternAtom(d, "_NET_REQUEST_FRAME_EXTENTS", False);
  const Atom extents = XInternAtom(d, "_NET_FRAME_EXTENTS", False);
  // Never mapped: the window manager describes the frame it would give it.
  const Window probe = XCreateSimpleWindow(d, root, 0, 0, 1, 1, 0, 0, 0);
  XEvent event{};
  event.xclient.type = ClientMessage;
  event.xclient.window = probe;
  event.xclient.message_type = request;
  event.xclient.format = 32;
  XSendEvent(d, root, False, SubstructureRedirectMask | SubstructureNotifyMask, &event);
  XFlush(d);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  bool answered = false;
  while (!answered) {
    Atom actual_type = None;
    int actual_format = 0;
    unsigned long item_count = 0;
    unsigned long bytes_after = 0;
    unsigned char* raw = nullptr;
    const int status = XGetWindowProperty(d, probe, extents, 0, 4, False, XA_CARDINAL, &actual_type,
                                          &actual_format, &item_count, &bytes_after, &raw);
    x11::XPtr<unsigned char> data(raw);
    answered = status == Success && actual_format == 32 && item_count == 4;
    if (answered || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  XDestroyWindow(d, probe);
  XSync(d, False);
  return answered;
}

std::string SetupAnswerWithin(const std::string& display_name, int timeout_ms) {
  const x11::SetupAnswer answer = x11::AskSetup(display_name, timeout_ms);
  switch (answer.kind) {
    case x11::SetupAnswer::Kind::kRefused:
    case x11::SetupAnswer::Kind::kAccepted:
    case x11::SetupAnswer::Kind::kAuthenticate:
      return "";  // it answered: its loop runs
    default:
      return answer.reason;
  }
}

}  // namespace uiscope::x11_probe
