// Process: a child process started with fork/exec, for the headless desktop's
// helpers (Xvfb, dbus-daemon, openbox) and for launching apps into a session
// (engine `app launch`, fixture apps in tests).
//
// Contract:
// - Spawn() resolves argv[0] against PATH before forking, so a missing binary
//   is an error naming it (kNotFound), never a child that dies silently. Other
//   exec failures (permissions, bad format) are reported the same way through
//   a close-on-exec pipe.
// - The child gets a clean slate: default signal dispositions, an empty signal
//   mask, no inherited file descriptors besides 0/1/2, and (by default) its
//   own session and process group, so it outlives a detaching parent and
//   Terminate() can signal everything it spawned.
// - The destructor terminates the child (SIGTERM to its process group, SIGKILL
//   after 2 s) and reaps it, unless Release() was called. No zombies: every
//   path that observes the exit reaps it.
// - Writing to a child that has exited returns an error; SIGPIPE is blocked
//   and consumed around the write, the process-wide disposition is untouched.
// - A Process is not thread-safe; use one from one thread at a time.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace uiscope {

struct SpawnOptions {
  // argv[0] is looked up in PATH (of `env` if it overrides PATH) unless it
  // contains a '/'.
  std::vector<std::string> argv;
  // The file to execute instead of argv[0], which then only names the
  // process (its /proc/PID/cmdline): "/proc/self/exe" re-executes this
  // program (session/reaper.h).
  std::string executable;
  // Added to, or overriding, the current environment.
  std::vector<std::pair<std::string, std::string>> env;
  // Removed from the child's environment (e.g. NO_AT_BRIDGE, which would
  // switch GTK's accessibility off). Applied before `env`.
  std::vector<std::string> unset_env;
  // setsid(): own session and process group.
  bool new_session = true;
  // stdout becomes a pipe read with ReadLine(); stderr still goes to log_file.
  bool capture_stdout = false;
  // stdin becomes a pipe written with WriteLine(); else it is /dev/null.
  bool pipe_stdin = false;
  // stdout (unless captured) and stderr are appended here (created 0600; a
  // symbolic link at the path is refused, not followed); empty: /dev/null.
  std::string log_file;
  // Working directory of the child; empty: inherit.
  std::string working_dir;
};

class Process {
 public:
  static Result<std::unique_ptr<Process>> Spawn(const SpawnOptions& options);

  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  int pid() const { return pid_; }
  // argv[0] as given, for messages.
  const std::string& name() const { return name_; }

  // True until the child has exited (reaps it when it has).
  bool Running();
  // Waits for the exit; returns the exit code, or 128 + signal number when it
  // was killed by a signal (the shell convention), or -1 when someone else
  // reaped it (TerminatePids() of a session stop). kTimeout if still running.
  Result<int> Wait(std::chrono::milliseconds timeout);
  // SIGTERM to the child (its whole process group when it has its own
  // session), SIGKILL after `grace`, then reaps it. OK if it already exited.
  Status Terminate(std::chrono::milliseconds grace = std::chrono::milliseconds(2000));

  // One line (without the '\n') from the captured stdout. kTimeout when no
  // complete line arrived in time (partial data stays buffered), kUnavailable
  // at end of file.
  Result<std::string> ReadLine(std::chrono::milliseconds timeout);
  // Writes `line` plus '\n' to the piped stdin. kUnavailable if the child
  // closed its stdin or exited.
  Status WriteLine(std::string_view line);
  // Closes the piped stdin (the child sees end of file).
  void CloseStdin();

  // Forgets the child: it keeps running and is neither terminated nor reaped
  // by this object (the caller exits soon, or reaps it by pid, see
  // ReapIfExited()). Pipes to it still close when this object goes.
  void Release();

 private:
  Process(int pid, std::string name, int stdin_fd, int stdout_fd, bool own_group);
  // Non-blocking reap; records the status. Returns true once exited.
  bool Poll();
  void SignalChild(int signal);
  void CloseFds();

  int pid_;
  std::string name_;
  int stdin_fd_;
  int stdout_fd_;
  int pidfd_ = -1;  // pollable exit notification; -1 on kernels before 5.3
  bool own_group_;
  bool released_ = false;
  std::optional<int> exit_code_;
  std::string read_buffer_;
  bool stdout_eof_ = false;
};

// The last `max_lines` lines of a text file, each on a new line indented by
// two spaces ("" when the file is missing or empty): logs in error messages.
std::string FileTail(const std::string& path, size_t max_lines);

// True if a process with this pid exists and is not a zombie.
bool PidAlive(int pid);
// /proc/PID/cmdline with arguments joined by spaces; empty if unreadable.
std::string PidCmdline(int pid);
// Basename of argv[0] of a live process ("Xvfb", "dbus-daemon"); empty if
// unreadable.
std::string PidProgramName(int pid);
// The parent pid of a live process; 0 if unknown.
int PidParent(int pid);
// True if a process group has a member that is not a zombie.
bool ProcessGroupAlive(int pgid);
// The environment a process was started with ("NAME=value" entries); empty
// if it is not readable (another user's process, or gone).
std::vector<std::string> PidEnvironment(int pid);
// The pids of live processes whose environment (as of exec) contains the
// exact entry `name=value`. Only processes this user may inspect are seen.
std::vector<int> PidsWithEnvironment(std::string_view name, std::string_view value);

// One process as /proc/PID/stat describes it.
struct ProcessEntry {
  int pid = 0;
  int parent = 0;
  int group = 0;     // process group id
  int session = 0;   // session id (setsid()); inherited by every descendant
  char state = '?';  // 'R', 'S', 'T' (stopped), 'Z' (zombie), ...
  // Clock ticks after boot. With the pid it names one process for good: a
  // recycled pid has a later start time.
  uint64_t start_time = 0;
  bool live() const { return state != 'Z' && state != 'X' && state != 'x'; }
};
// The process `pid`, zombies included; nullopt when there is none.
std::optional<ProcessEntry> ReadProcess(int pid);
// Every process this user can see in /proc, zombies included, in one pass.
std::vector<ProcessEntry> ListProcesses();

// Reaps `pid` if it is an exited child of this process (a zombie left by a
// Release()d Process); does nothing otherwise.
void ReapIfExited(int pid);

// Sends SIGTERM (and SIGCONT, so that a stopped process can act on it) to
// every pid, waits up to `grace` for them to exit (reaping those that are
// our children), then SIGKILLs the rest and waits up to one more second.
// Returns the pids still alive after that (normally none).
std::vector<int> TerminatePids(const std::vector<int>& pids, std::chrono::milliseconds grace);

}  // namespace uiscope
