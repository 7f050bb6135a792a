#include "engine/desktop.h"

#include <cstdlib>

#include "platform/vnc/vnc_address.h"
#include "platform/vnc/vnc_desktop.h"
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

DesktopTarget TargetOf(const DesktopInfo& session) {
  DesktopTarget t;
  t.display = session.display_name;
  t.dbus_address = session.dbus_address;
  t.session_id = session.id;
  t.backend = session.backend;
  t.password_file = session.password_file;
  return t;
}

Error DeadSession(const DesktopInfo& session) {
  const std::string what =
      session.backend == "vnc"
          ? "Start its VNC server again, or detach it with `uiscope session stop " + session.id +
                "` (MCP: session_stop)"
          : "Stop it with `uiscope session stop " + session.id +
                "` (MCP: session_stop) and start a new one";
  return MakeError(ErrorCode::kUnavailable, "session " + session.id + " (" + session.display_name +
                                                ") is dead (" + session.problem + "). " + what);
}

Result<DesktopTarget> ResolveDesktop(const std::string& display_flag,
                                     const std::string& session_flag) {
  if (!display_flag.empty() && !session_flag.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--display and --session both name a desktop: give one");
  }
  const std::string session_id = !session_flag.empty()  ? session_flag
                                 : display_flag.empty() ? Env("UISCOPE_SESSION")
                                                        : "";
  if (!session_id.empty()) {
    auto session = FindSession(session_id);
    if (!session.ok()) return session.error();
    if (!session->alive) return DeadSession(*session);
    return TargetOf(*session);
  }
  DesktopTarget t;
  std::string env_display = Env("DISPLAY");
  t.display = !display_flag.empty() ? display_flag : env_display;
  if (t.display.empty()) {
    return MakeError(ErrorCode::kUnavailable,
                     "no display: DISPLAY is not set and neither --display nor --session was "
                     "given. Start a headless desktop with `uiscope session start`, then export "
                     "the DISPLAY and DBUS_SESSION_BUS_ADDRESS it prints (or pass --display :N), "
                     "or attach a remote one with `uiscope session attach vnc://HOST:PORT` and "
                     "pass --session ID");
  }
  if (DisplayBase(t.display) == DisplayBase(env_display))
    t.dbus_address = Env("DBUS_SESSION_BUS_ADDRESS");
  // A display started by `uiscope session start` has its bus in the registry.
  if (auto sessions = ListSessions(); sessions.ok()) {
    for (const DesktopInfo& s : *sessions) {
      if (DisplayBase(s.display_name) == DisplayBase(t.display)) {
        if (!s.alive) return DeadSession(s);
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
  if (target.backend == "vnc") {
    auto address = ParseVncAddress(target.display);
    if (!address.ok()) return address.error();
    VncOptions options;
    options.password_file = target.password_file;
    auto desktop = OpenVncDesktop(*address, options);
    if (!desktop.ok()) return desktop.error();
    const ScreenCapture& screen = (*desktop)->capture();
    conn.frame = Frame{screen.screen_width(), screen.screen_height(), 1.0};
    conn.accessibility = NoAccessibility("the VNC desktop " + target.display);
    conn.desktop = std::move(desktop).value();
    return conn;
  }
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
