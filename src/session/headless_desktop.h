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
// - A desktop lives as long as the process that started it (its owner),
//   however that process ends, SIGKILL included: a reaper process stops it
//   when the owner is gone (session/reaper.h). Detach() hands it over: it
//   then runs until StopSession() (`uiscope session start`, the MCP
//   session_start tool). Each helper runs in its own session (setsid), so
//   signals aimed at the owner's terminal or process group never reach it.
// - Every desktop is recorded in a registry directory, one JSON file per
//   session: $UISCOPE_STATE_DIR, else $XDG_STATE_HOME/uiscope/sessions, else
//   ~/.local/state/uiscope/sessions. ListSessions()/FindSession()/
//   StopSession() work across processes. A session with a part gone (Xvfb,
//   dbus-daemon, the window manager, or the owner of an undetached desktop)
//   is reported with alive=false and a `problem` naming the part until
//   StopSession() cleans it up; its id is never handed to a new session
//   meanwhile.
// - The processes of a session (ListSessionProcesses()) are those the session
//   itself started and their descendants, recognised three ways, because
//   none suffices alone:
//   1. a recorded process (the helpers, and apps started with
//      SpawnInSession(): `app launch`) or a member of a process session
//      (setsid) one of them leads. Chromium rewrites its process title over
//      its environment, so /proc/PID/environ of its browser and its children
//      reads empty, but they all keep the session id of the process uiscope
//      launched;
//   2. descent from a process of the session (a child that called setsid()
//      itself, e.g. a terminal's shell; the AT-SPI bus launcher that
//      dbus-daemon activates);
//   3. the session's XDG_RUNTIME_DIR and UISCOPE_LAUNCHED (launch_marks.h)
//      in /proc/PID/environ of an orphan (its parent init or the user's
//      systemd): a daemon that left the session's tree (Chromium's crash
//      handler).
//   The runtime dir alone proves nothing: a shell that `eval`ed `session
//   start` hands it to whatever a person runs there, orphans included, and
//   `session stop` must not end that. A process whose environment names another runtime
//   dir is never one of them, and a recorded pid counts only while it names
//   the same process (its start time), so a recycled pid is never signalled.
// - Stopping a session ends all of them (SIGTERM and SIGCONT, then SIGKILL
//   after a grace period, so stopped processes end too), X clients first and
//   Xvfb last; then the runtime dir and the registry entry go.
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

class SessionReaper;

struct DesktopOptions {
  int width = 1920;  // screen pixels
  int height = 1080;
  int depth = 24;  // colour depth: 8, 16 or 24
  bool window_manager = true;
  // For the whole start-up: Xvfb, dbus-daemon and the window manager.
  std::chrono::milliseconds start_timeout{10000};
  // Sets org.a11y.Status IsEnabled/ScreenReaderEnabled on the session bus
  // and starts the accessibility bus (EnableAccessibilityOnBus, a11y_env.h)
  // at start, so apps started without SessionEnvironment() switch on too.
  // False: a desktop whose apps find accessibility off (tests of
  // `session a11y-on`).
  bool accessibility = true;
};

// One session; also what `uiscope session list --json` prints (ToJson).
struct DesktopInfo {
  std::string id;  // "s12": from the display number, unique in the registry
  // "x11": a headless X desktop this registry started (the fields below
  // down to wm_pid are its). "vnc": a remote desktop attached by `session
  // attach` (url, password_file), reached over the network, nothing started.
  std::string backend = "x11";
  int display = -1;           // N of ":N"; -1 for a VNC session
  std::string display_name;   // ":N"; the URL for a VNC session
  std::string url;            // "vnc://HOST:PORT" (VNC)
  std::string password_file;  // the file the password is read from, never the password (VNC)
  std::string dbus_address;   // DBUS_SESSION_BUS_ADDRESS
  std::string runtime_dir;    // XDG_RUNTIME_DIR (private, mode 0700; logs live here)
  int xvfb_pid = 0;
  int dbus_pid = 0;
  int wm_pid = 0;  // 0 without a window manager
  int width = 0;   // screen pixels
  int height = 0;
  int64_t started_at_ms = 0;  // Unix epoch, milliseconds
  // The process whose exit stops the desktop (see the contract); 0 once it
  // was detached. With its start time (clock ticks after boot), so that a
  // recycled pid is not taken for the owner.
  int owner_pid = 0;
  uint64_t owner_start_time = 0;
  // Every part runs: Xvfb, dbus-daemon, the window manager (each pid alive,
  // still that program, still this session's) and the owner, if any.
  // Recomputed on every read, never trusted from the registry file. No X or
  // D-Bus connection is made for it: a stopped (SIGSTOP) server would hang
  // the caller.
  bool alive = false;
  // Why it is not alive, naming the parts ("dbus-daemon (pid 812) is not
  // running"); empty when alive.
  std::string problem;
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

// Spawns `options` into the session: its environment (as
// ApplySessionEnvironment()), its own process session (setsid), and recorded
// as a member, so stopping the session ends it and everything it starts, even
// if it rewrites its environment. kUnavailable when it cannot be recorded
// (the process is then ended again).
Result<std::unique_ptr<Process>> SpawnInSession(const DesktopInfo& info, SpawnOptions options);
// Records `pid` (a process started into the session as the leader of its own
// process session) as a member; see the contract. OK if it already exited.
Status RecordSessionMember(const DesktopInfo& info, int pid);
// The live processes of the session (see the contract), Xvfb included,
// sorted. Reads /proc once.
std::vector<int> ListSessionProcesses(const DesktopInfo& info);

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
  // it stays in the registry for `uiscope session list` / `stop`. Dismisses
  // the reaper and clears the owner in the registry.
  void Detach();
  // SIGTERM, then SIGKILL after a deadline, to every process of the session;
  // removes the runtime dir and the registry entry. Idempotent.
  Status Stop();

 private:
  explicit HeadlessDesktop(DesktopInfo info);

  DesktopInfo info_;
  std::vector<std::unique_ptr<Process>> processes_;  // our direct children
  std::unique_ptr<SessionReaper> reaper_;            // stops it if we die
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
// the clean-up for a session that already died. A VNC session is detached:
// its record goes, the remote desktop is left as it is. kNotFound if unknown.
Status StopSession(std::string_view id);
// Records a remote desktop (info.backend "vnc", url, password_file, size)
// under the first free id "v1", "v2", ...; fills info->id. The caller has
// checked that it answers. `host` and `port` are what the liveness check
// of ListSessions connects to.
Status RegisterRemoteSession(DesktopInfo* info);
// The same for the session `info` describes, without looking it up (the
// reaper's, and a desktop whose start failed half-way). kInternal naming
// the pids that survived SIGKILL.
Status StopDesktop(const DesktopInfo& info);

}  // namespace uiscope
