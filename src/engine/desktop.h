// Which desktop a command talks to (DESIGN §11): `--session ID` or
// `--display :N` if given, else $UISCOPE_SESSION, else $DISPLAY with
// $DBUS_SESSION_BUS_ADDRESS, else an error that says how to start a headless
// session or attach a remote one.
#pragma once

#include <memory>
#include <string>

#include "core/node.h"
#include "core/result.h"
#include "platform/accessibility.h"
#include "platform/desktop.h"
#include "platform/windows_from_pixels.h"
#include "session/headless_desktop.h"

namespace uiscope {

struct DesktopTarget {
  std::string display;          // ":N"; the URL of a VNC desktop
  std::string dbus_address;     // "" = find the accessibility bus through the X root window
  std::string session_id;       // the uiscope session owning the display, if any
  std::string backend = "x11";  // "x11" or "vnc" (a session attached by `session attach`)
  std::string password_file{};  // VNC: the file holding its password ("" = none)
};

// The desktop of a registered session.
DesktopTarget TargetOf(const DesktopInfo& session);

// The error for a session that is not alive: why, and what to do (start a
// VNC server again; stop a dead headless desktop and start another).
Error DeadSession(const DesktopInfo& session);

// `session_flag` (a session ID) and `display_flag` name the desktop; giving
// both is InvalidArgument. Neither: $UISCOPE_SESSION, else $DISPLAY. A dead
// session is Unavailable, saying why and how to clean it up.
Result<DesktopTarget> ResolveDesktop(const std::string& display_flag,
                                     const std::string& session_flag = "");

struct DesktopConnection {
  DesktopTarget target;
  Frame frame;  // screen size of the display
  std::unique_ptr<Accessibility> accessibility;
  // Its screen, windows and input (platform/desktop.h); null for a fake
  // desktop.
  std::unique_ptr<Desktop> desktop;
};

// The titles of windows found from title bars (a VNC desktop's), read by
// OCR: the band's line with the most letters and digits. Keeps one OCR
// engine for the reader's life.
TitleReader OcrTitleReader();

// Opens the desktop (kept: the frame size, capture and windows) and the
// accessibility bus; a VNC desktop has none (NoAccessibility: its windows
// are read from pixels).
// With `accessibility_mirror`, the accessibility backend keeps an event-fed
// mirror of the trees (AtspiOptions::mirror).
Result<DesktopConnection> ConnectDesktop(const DesktopTarget& target,
                                         bool accessibility_mirror = false);

}  // namespace uiscope
