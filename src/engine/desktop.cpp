#include "engine/desktop.h"

#include <cstdlib>

#include "session/headless_desktop.h"

namespace uiscope {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// ":3" and ":3.0" name the same display.
std::string DisplayBase(std::string d) {
  auto dot = d.rfind('.');
  if (dot != std::string::npos && dot > d.rfind(':')) d.resize(dot);
  return d;
}

}  // namespace

Result<DesktopTarget> ResolveDesktop(const std::string& display_flag) {
  DesktopTarget t;
  std::string env_display = Env("DISPLAY");
  t.display = !display_flag.empty() ? display_flag : env_display;
  if (t.display.empty()) {
    return MakeError(ErrorCode::kUnavailable,
                     "no display: DISPLAY is not set and --display was not given. Start a "
                     "headless desktop with `uiscope session start`, then export the DISPLAY and "
                     "DBUS_SESSION_BUS_ADDRESS it prints (or pass --display :N)");
  }
  if (DisplayBase(t.display) == DisplayBase(env_display))
    t.dbus_address = Env("DBUS_SESSION_BUS_ADDRESS");
  // A display started by `uiscope session start` has its bus in the registry.
  if (auto sessions = ListSessions(); sessions.ok()) {
    for (const DesktopInfo& s : *sessions) {
      if (DisplayBase(s.display_name) == DisplayBase(t.display)) {
        if (!s.alive) {
          return MakeError(ErrorCode::kUnavailable, "session " + s.id + " on " + s.display_name +
                                                        " is dead (" + s.problem +
                                                        "). Stop it with `uiscope session stop " +
                                                        s.id + "` and start a new one");
        }
        t.session_id = s.id;
        if (t.dbus_address.empty()) t.dbus_address = s.dbus_address;
      }
    }
  }
  return t;
}

Result<DesktopConnection> ConnectDesktop(const DesktopTarget& target, bool accessibility_mirror) {
  DesktopConnection conn;
  conn.target = target;
  auto desktop = OpenX11Desktop(target.display);
  if (!desktop.ok()) return desktop.error();
  const ScreenCapture& screen = (*desktop)->capture();
  conn.frame = Frame{screen.screen_width(), screen.screen_height(), 1.0};

  AtspiOptions options;
  options.display = target.display;
  options.session_bus_address = target.dbus_address;
  options.mirror = accessibility_mirror;
  auto ax = ConnectAtspi(options);
  if (!ax.ok()) return ax.error();
  conn.accessibility = std::move(ax).value();
  conn.desktop = std::move(desktop).value();
  return conn;
}

}  // namespace uiscope
