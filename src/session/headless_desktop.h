// Headless desktop sessions: Xvfb + a private D-Bus session bus (the AT-SPI
// bus launcher is started from it by D-Bus activation when the first app asks
// for the accessibility bus) + the openbox window manager for EWMH
// (_NET_CLIENT_LIST, _NET_ACTIVE_WINDOW). DESIGN.md section 6.
//
// Contract:
// - HeadlessDesktop::Start() brings one desktop up and returns only when every
//   part answers: Xvfb reported its display (-displayfd, so parallel starts
//   never race for a display number), dbus-daemon printed its address, and
//   the window manager set _NET_SUPPORTING_WM_CHECK. Readiness is polled
//   against one deadline (DesktopOptions::start_timeout); on any failure
//   everything already started is stopped again and the error says which part
//   failed, with the tail of its log.
// - Each helper runs in its own session (setsid), so a desktop survives the
//   process that started it when Detach()ed (`uiscope session start`).
// - Every desktop is recorded in a registry directory, one JSON file per
//   session: $UISCOPE_STATE_DIR, else $XDG_STATE_HOME/uiscope/sessions, else
//   ~/.local/state/uiscope/sessions. ListSessions()/FindSession()/
//   StopSession() work across processes. A session whose Xvfb died is
//   reported with alive=false until StopSession() cleans it up; its id is
//   never handed to a new session meanwhile.
// - Stopping a session ends its recorded processes (each checked against
//   /proc/PID/cmdline first, so a recycled pid is never signalled) and every
//   other process started inside it, recognised by the session's private
//   XDG_RUNTIME_DIR in its environment: the AT-SPI bus launcher, the
//   accessibility bus, the registry daemon, and apps launched with
//   SessionEnvironment(). Then the runtime dir and the registry entry go.
// - Not thread-safe per object; the registry functions are safe to call from
//   several processes at once (entries are created atomically).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"
#include "session/process.h"

namespace uiscope {

struct DesktopOptions {
  int width = 1920;  // screen pixels
  int height = 1080;
  int depth = 24;  // colour depth: 8, 16 or 24
  bool window_manager = true;
  // For the whole start-up: Xvfb, dbus-daemon and the window manager.
  std::chrono::milliseconds start_timeout{10000};
};

// One session; also what `uiscope session list --json` prints (ToJson).
struct DesktopInfo {
  std::string id;            // "s12": from the display number, unique in the registry
  int display = -1;          // N of ":N"
  std::string display_name;  // ":N"
  std::string dbus_address;  // DBUS_SESSION_BUS_ADDRESS
  std::string runtime_dir;   // XDG_RUNTIME_DIR (private, mode 0700; logs live here)
  int xvfb_pid = 0;
  int dbus_pid = 0;
  int wm_pid = 0;  // 0 without a window manager
  int width = 0;   // screen pixels
  int height = 0;
  int64_t started_at_ms = 0;  // Unix epoch, milliseconds
  // The session's Xvfb is running (pid alive, still Xvfb, still this
  // session's). Recomputed on every read, never trusted from the registry
  // file. No X connection is made for it: a stopped (SIGSTOP) server would
  // hang the caller.
  bool alive = false;
};

nlohmann::json ToJson(const DesktopInfo& info);
// kInvalidArgument when a field is missing or has the wrong type.
Result<DesktopInfo> DesktopInfoFromJson(const nlohmann::json& json);

// The environment variables a client, or an app launched into the session,
// needs: DISPLAY, DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR, the switches that
// turn accessibility on for Qt and Chromium/Electron, the X11 backends for
// GTK and Qt, and UISCOPE_SESSION (the id).
std::vector<std::pair<std::string, std::string>> SessionEnvironment(const DesktopInfo& info);
// Variables to remove from an inherited environment: they would switch
// accessibility off (NO_AT_BRIDGE, GTK_A11Y) or point at another desktop
// (AT_SPI_BUS_ADDRESS, WAYLAND_DISPLAY, XAUTHORITY).
std::vector<std::string> SessionUnsetEnvironment();
// Fills options->env and options->unset_env with the two above, so that
// Process::Spawn() launches the program into the session.
void ApplySessionEnvironment(const DesktopInfo& info, SpawnOptions* options);

// Owns the processes of one desktop.
class HeadlessDesktop {
 public:
  // Errors: kUnavailable when a program is missing or a part did not come up
  // (with what to install or the log tail), kTimeout when the deadline passed.
  static Result<std::unique_ptr<HeadlessDesktop>> Start(const DesktopOptions& options = {});

  ~HeadlessDesktop();  // Stop(), unless Detach()ed
  HeadlessDesktop(const HeadlessDesktop&) = delete;
  HeadlessDesktop& operator=(const HeadlessDesktop&) = delete;

  // alive is as of the end of Start() (or false after Stop()).
  const DesktopInfo& info() const { return info_; }
  // Leaves the desktop running after this object (and its process) is gone;
  // it stays in the registry for `uiscope session list` / `stop`.
  void Detach();
  // SIGTERM, then SIGKILL after a deadline, to every process of the session;
  // removes the runtime dir and the registry entry. Idempotent.
  Status Stop();

 private:
  explicit HeadlessDesktop(DesktopInfo info);

  DesktopInfo info_;
  std::vector<std::unique_ptr<Process>> processes_;  // our direct children
  bool detached_ = false;
  bool stopped_ = false;
};

// The registry directory (see the contract above); not created here.
std::string SessionStateDir();
// All registered sessions, sorted by display, with `alive` recomputed.
// Unreadable entries are skipped (and logged).
Result<std::vector<DesktopInfo>> ListSessions();
// kNotFound naming the existing ids when there is no such session.
Result<DesktopInfo> FindSession(std::string_view id);
// Stops every process of the session, as HeadlessDesktop::Stop() does; also
// the clean-up for a session that already died. kNotFound if unknown.
Status StopSession(std::string_view id);

}  // namespace uiscope
