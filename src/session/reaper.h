// SessionReaper: ends a headless desktop when the process that owns it ends,
// however it ends (SIGKILL, abort, a crash), so that a server's own desktop
// never outlives the server (issue 14, defect 6).
//
// How: the owner starts a small process, the reaper, and keeps the write end
// of a pipe to its stdin. The kernel closes that end when the owner exits in
// any way; the reaper then reads end of file and stops the session
// (StopDesktop(): every process of it, the runtime dir, the registry entry).
// A line "dismiss" makes it exit without touching anything: the owner
// stopped the desktop itself, or handed it over (HeadlessDesktop::Detach(),
// `uiscope session start`).
//
// Why not PR_SET_PDEATHSIG on the helpers: it fires when the *thread* that
// forked them exits, not the process (prctl(2)), and the MCP server starts
// its desktop from whichever worker thread runs the first tool call; it is
// cleared in a forked child, so it never reaches dbus-daemon's daemonised
// process, the AT-SPI bus it activates, or apps launched into the session.
//
// The reaper is this same program re-executed through /proc/self/exe (as
// Docker's pkg/reexec does): a constructor in reaper.cpp sees
// UISCOPE_SESSION_REAPER=1 in the environment and runs the reaper instead of
// main(). So any program that starts desktops (uiscope, the test binaries)
// can reap them, with no helper binary to install; its /proc/PID/cmdline
// reads "uiscope-session-reaper <runtime dir>". Exec'd, it shares no memory
// with the owner.
//
// Not thread-safe; HeadlessDesktop owns one per desktop.
#pragma once

#include <memory>
#include <string>

#include "core/result.h"
#include "session/headless_desktop.h"
#include "session/process.h"

namespace uiscope {

class SessionReaper {
 public:
  // Starts the reaper of the session whose runtime dir is `runtime_dir`; it
  // logs to reaper.log there. Errors: those of Process::Spawn().
  static Result<std::unique_ptr<SessionReaper>> Start(const std::string& runtime_dir);

  ~SessionReaper();  // Dismiss()
  SessionReaper(const SessionReaper&) = delete;
  SessionReaper& operator=(const SessionReaper&) = delete;

  int pid() const { return process_->pid(); }
  // The session to stop if the owner dies: as much of it as is known (the
  // runtime dir alone at first, then each helper as it starts, then the id).
  Status Watch(const DesktopInfo& info);
  // Lets the reaper go without stopping anything, and reaps it. Idempotent.
  void Dismiss();

 private:
  explicit SessionReaper(std::unique_ptr<Process> process);

  std::unique_ptr<Process> process_;
  bool dismissed_ = false;
};

}  // namespace uiscope
