// Minimal X11 queries the session module needs to know that a desktop is up.
//
// Kept apart so that no Xlib header reaches the rest of the module: Xlib
// defines macros such as `Status`, `None` and `Bool` that collide with
// uiscope names. Each call opens its own short-lived connection; none
// installs Xlib error handlers (the requests made here cannot fail with a
// protocol error on a live server).
#pragma once

#include <cstdint>
#include <string>

namespace uiscope::x11_probe {

// True if a connection to `display_name` (":12") can be opened.
bool DisplayAnswers(const std::string& display_name);

// The window named by the root window's _NET_SUPPORTING_WM_CHECK property
// (set by an EWMH window manager once it manages the screen); 0 when absent
// or when the display does not answer.
uint64_t SupportingWmCheckWindow(const std::string& display_name);

// True once the window manager answers a request from its event loop: a
// _NET_REQUEST_FRAME_EXTENTS for a fresh unmapped window, answered by
// setting _NET_FRAME_EXTENTS on it, within `timeout_ms`. Openbox sets
// _NET_SUPPORTING_WM_CHECK early in its start-up, before it has adopted the
// screen's windows and entered its event loop, and a window mapped in that
// gap stays unmapped and unmanaged for good (seen with xcalc launched right
// after the check appeared); the answer proves the loop runs.
bool WindowManagerAnswers(const std::string& display_name, int timeout_ms);

}  // namespace uiscope::x11_probe

namespace uiscope::x11_probe {

// Whether the X server of the local display `display_name` (":12") answers
// a connection set-up within `timeout_ms`, asked over its Unix socket
// without Xlib, so a stopped (SIGSTOP) or wedged server costs the timeout
// and never hangs the caller (XOpenDisplay waits for ever). Any reply counts,
// a refusal for want of authorisation (or of room for one more client) too:
// the server's loop runs. "" when it answered; otherwise what happened
// ("nothing listens at /tmp/.X11-unix/X12", "no answer within 500 ms").
// The exchange itself is x11::AskSetup (platform/x11/x11_setup.h), which
// also reads a refusal's reason.
std::string SetupAnswerWithin(const std::string& display_name, int timeout_ms);

}  // namespace uiscope::x11_probe
