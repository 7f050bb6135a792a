// Which desktop a command talks to (DESIGN §11): `--display :N` if given,
// else $DISPLAY with $DBUS_SESSION_BUS_ADDRESS, else an error that says how
// to start a headless session.
#pragma once

#include <memory>
#include <string>

#include "core/node.h"
#include "core/result.h"
#include "platform/accessibility.h"
#include "platform/desktop.h"

namespace uiscope {

struct DesktopTarget {
  std::string display;       // ":N"
  std::string dbus_address;  // "" = find the accessibility bus through the X root window
  std::string session_id;    // the uiscope session owning the display, if any
};

Result<DesktopTarget> ResolveDesktop(const std::string& display_flag);

struct DesktopConnection {
  DesktopTarget target;
  Frame frame;  // screen size of the display
  std::unique_ptr<Accessibility> accessibility;
  // Its screen, windows and input (platform/desktop.h); null for a fake
  // desktop.
  std::unique_ptr<Desktop> desktop;
};

// Opens the desktop (kept: the frame size, capture and windows) and the
// accessibility bus.
// With `accessibility_mirror`, the accessibility backend keeps an event-fed
// mirror of the trees (AtspiOptions::mirror).
Result<DesktopConnection> ConnectDesktop(const DesktopTarget& target,
                                         bool accessibility_mirror = false);

}  // namespace uiscope
