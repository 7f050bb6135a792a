#include "engine/apps.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <thread>

#include "core/app_name.h"
#include "core/clock.h"
#include "core/escape.h"
#include "core/format.h"
#include "core/ids.h"
#include "engine/act.h"
#include "engine/gated_action.h"
#include "platform/cdp/cdp_connection.h"
#include "session/a11y_env.h"
#include "session/headless_desktop.h"
#include "session/launch_marks.h"

namespace uiscope {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kLaunchPoll = std::chrono::milliseconds(50);
constexpr auto kExitPoll = std::chrono::milliseconds(20);
constexpr auto kKillTimeout = std::chrono::milliseconds(1000);
constexpr auto kFocusTimeout = std::chrono::milliseconds(2000);
// How long app_launch waits for accessibility once the app's window is up.
constexpr auto kAccessibleGrace = std::chrono::milliseconds(3000);
constexpr int kMaxAncestry = 32;

// True when `pid` is `ancestor` or descends from it (an app started through
// a launcher script or that forks its UI process).
bool DescendsFrom(int pid, int ancestor) {
  for (int i = 0; i < kMaxAncestry && pid > 1; ++i) {
    if (pid == ancestor) return true;
    pid = PidParent(pid);
  }
  return false;
}

// The first visible window in `windows` that is not among `before` (window
// IDs) and belongs to `pid` or a process it started: what an app shows
// when it answers a close request ("Save changes?"). The ancestry walk
// reads /proc, so it is done for new windows only.
const WindowInfo* NewWindowOf(const std::vector<WindowInfo>& windows,
                              const std::vector<uint64_t>& before, int pid) {
  for (const WindowInfo& w : windows) {
    if (w.visible && w.pid > 0 && std::find(before.begin(), before.end(), w.id) == before.end() &&
        DescendsFrom(w.pid, pid)) {
      return &w;
    }
  }
  return nullptr;
}

Status NeedHands(const Workspace::Lease& lease) {
  if (lease.hands == nullptr || lease.hands->windows == nullptr) {
    return MakeError(ErrorCode::kUnavailable,
                     "this desktop has no window system to manage apps with");
  }
  return OkStatus();
}

std::string AppList(const std::vector<AppEntry>& apps) {
  std::string out;
  for (const AppEntry& a : apps) {
    if (!out.empty()) out += ", ";
    // App names are the apps' own text: escaped, so a name cannot add a line
    // to the message an agent or a person reads.
    out += (a.name.empty() ? "(no name)" : EscapeForDisplay(a.name, 60)) + " (pid " +
           std::to_string(a.pid) + ")";
  }
  return out.empty() ? "none" : out;
}

// `text` names `a` by its name, the last part of a reverse-DNS name or its
// executable (core/app_name.h).
bool AppMatches(std::string_view text, const AppEntry& a) {
  return AppNameMatches(text, a.name, std::string_view(a.command).substr(0, a.command.find(' ')));
}

// The app `text` names (see apps.h for the forms).
Result<AppEntry> ResolveApp(Workspace::Lease& lease, const std::vector<AppEntry>& apps,
                            const std::string& text, int* candidates) {
  *candidates = 1;
  if (text.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "name the app: its name, pid, window ID (0x...) or element ID");
  }
  std::vector<const AppEntry*> found;
  const bool digits = std::all_of(
      text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  if (digits) {
    const int pid = std::atoi(text.c_str());
    for (const AppEntry& a : apps) {
      if (a.pid == pid) found.push_back(&a);
    }
  } else if (text.rfind("0x", 0) == 0) {
    const uint64_t id = std::strtoull(text.c_str(), nullptr, 16);
    for (const AppEntry& a : apps) {
      for (const WindowInfo& w : a.windows) {
        if (w.id == id) found.push_back(&a);
      }
    }
  } else if (const Node* node =
                 lease.observer ? FindById(lease.observer->last_roots(), text) : nullptr) {
    for (const AppEntry& a : apps) {
      if (a.pid == node->pid) found.push_back(&a);
    }
  } else {
    for (const AppEntry& a : apps) {
      bool match = AppMatches(text, a);
      for (const WindowInfo& w : a.windows) {
        match = match || AppNameMatches(text, w.app_instance) || AppNameMatches(text, w.app_class);
      }
      if (match) found.push_back(&a);
    }
  }
  if (found.empty()) {
    return MakeError(ErrorCode::kNotFound,
                     "no app " + QuoteForDisplay(text, 80) + " on " + lease.display +
                         ". Apps: " + AppList(apps));
  }
  *candidates = static_cast<int>(found.size());
  return *found.front();
}

Error Ambiguous(const std::string& text, const std::vector<AppEntry>& apps) {
  std::string which;
  for (const AppEntry& a : apps) {
    if (AppMatches(text, a)) which += (which.empty() ? "" : ", ") + std::to_string(a.pid);
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   QuoteForDisplay(text, 80) + " names several apps (pids " + which +
                       "): name one by its pid");
}

// The uiscope session of the lease's desktop; nullopt for a desktop uiscope
// did not start (a user's display).
std::optional<DesktopInfo> LeaseSession(const Workspace::Lease& lease) {
  if (lease.session_id.empty()) return std::nullopt;
  auto info = FindSession(lease.session_id);
  if (!info.ok()) return std::nullopt;
  return *info;
}

// Starts an app in the lease's desktop. In a uiscope session it is recorded
// as the session's (SpawnInSession), so that `session stop` and app_close
// find it and its children even when they rewrite their environment
// (Chromium). Elsewhere: its DISPLAY and the accessibility switches; the
// D-Bus session is the caller's when it is the same display.
//
// Either way it carries uiscope's launch marks (session/launch_marks.h), so
// that nothing it starts can pass for a person deciding on a held action.
Result<std::unique_ptr<Process>> SpawnApp(const Workspace::Lease& lease,
                                          const std::optional<DesktopInfo>& session,
                                          SpawnOptions spawn) {
  Result<std::unique_ptr<Process>> process = MakeError(ErrorCode::kInternal, "not spawned");
  if (session.has_value()) {
    process = SpawnInSession(*session, std::move(spawn));
  } else {
    DesktopInfo partial;
    partial.display_name = lease.display;
    for (auto& name : SessionUnsetEnvironment()) spawn.unset_env.push_back(std::move(name));
    for (auto& [name, value] : SessionEnvironment(partial)) {
      if (!value.empty()) spawn.env.emplace_back(name, value);
    }
    spawn.env.emplace_back(kLaunchedEnv, "app_launch");
    process = Process::Spawn(spawn);
  }
  if (!process.ok()) return process;
  if (Status recorded = RecordLaunched((*process)->pid()); !recorded.ok()) {
    // Unrecorded, it could approve held actions as if it were a person.
    Status ignored = (*process)->Terminate();
    (void)ignored;
    return recorded.error();
  }
  return process;
}

// Where an app's log goes: the session's runtime dir, else the state
// directory's app-logs (beside the session registry). Never a directory
// others can write to: there a planted link would make uiscope append the
// app's output to a file of the planter's choosing.
std::string LogDir(const std::optional<DesktopInfo>& session) {
  if (session.has_value()) return session->runtime_dir;
  if (const char* state = std::getenv("UISCOPE_STATE_DIR"); state != nullptr && *state != '\0') {
    return std::string(state) + "/app-logs";
  }
  return (std::filesystem::path(SessionStateDir()).parent_path() / "app-logs").string();
}

// Logs older than this are removed when a new one is made, so that the
// state directory does not fill up with every app ever launched.
constexpr auto kLogRetention = std::chrono::hours(24 * 7);

// `dir` made (0700 when new), then checked: a real directory, not a link,
// this user's and closed to everyone else.
Status PrivateDir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) {
    return MakeError(ErrorCode::kUnavailable,
                     "the log directory " + dir +
                         " is not a directory of this user; remove it or set UISCOPE_STATE_DIR");
  }
  if ((st.st_mode & 077) != 0 && ::chmod(dir.c_str(), 0700) != 0) {
    return MakeError(ErrorCode::kUnavailable, "cannot make the log directory " + dir + " private");
  }
  return OkStatus();
}

void RemoveOldLogs(const std::string& dir) {
  std::error_code ec;
  const auto now = std::filesystem::file_time_type::clock::now();
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("uiscope-app-") || !name.ends_with(".log")) continue;
    std::error_code time_ec;
    const auto written = entry.last_write_time(time_ec);
    if (!time_ec && now - written > kLogRetention) std::filesystem::remove(entry.path(), time_ec);
  }
}

// Creates the app's log file: in LogDir(), exclusively (O_EXCL, O_NOFOLLOW:
// an existing name or a link there is never reused), readable by this user
// only. Returns its path, which Process::Spawn() then appends to.
Result<std::string> CreateLogFile(const std::optional<DesktopInfo>& session,
                                  const std::string& program) {
  const std::string dir = LogDir(session);
  if (Status st = PrivateDir(dir); !st.ok()) return st.error();
  if (!session.has_value()) RemoveOldLogs(dir);
  std::string base = program.substr(program.rfind('/') + 1);
  for (char& c : base) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  }
  const long long stamp = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string path = dir + "/uiscope-app-" + base + "-" + std::to_string(stamp);
    if (attempt > 0) path += "-" + std::to_string(attempt);
    path += ".log";
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
      ::close(fd);
      return path;
    }
    if (errno != EEXIST) break;
  }
  return MakeError(ErrorCode::kUnavailable, "cannot create a log file for " + base + " in " + dir);
}

ActionOutcome NotPerformed(const std::string& error) {
  ActionOutcome o;
  o.error = error;
  return o;
}

// ":3" and ":3.0" name the same display.
std::string DisplayBase(std::string d) {
  auto dot = d.rfind('.');
  if (dot != std::string::npos && dot > d.rfind(':')) d.resize(dot);
  return d;
}

// Whether uiscope may signal `pid` for the lease's desktop: it launched it,
// the process belongs to the desktop's uiscope session (headless_desktop.h:
// also when its environment was overwritten, as Chromium's is), or it was
// started on that display (its DISPLAY says so). A window's _NET_WM_PID is
// whatever its app claims, so it alone never decides which process gets a
// signal.
bool RunsOnDesktop(Workspace::Lease& lease, const std::optional<DesktopInfo>& session, int pid,
                   std::string* why) {
  if (lease.hands && lease.hands->launched.count(pid) > 0) return true;
  if (session.has_value()) {
    const std::vector<int> members = ListSessionProcesses(*session);
    if (std::binary_search(members.begin(), members.end(), pid)) return true;
  }
  const std::vector<std::string> env = PidEnvironment(pid);
  if (env.empty()) {
    *why = "its environment cannot be read (another user's process?)";
    return false;
  }
  for (const std::string& e : env) {
    if (e.rfind("DISPLAY=", 0) == 0) {
      if (DisplayBase(e.substr(8)) == DisplayBase(lease.display)) return true;
      *why = "it runs on display " + e.substr(8) + ", not " + lease.display;
      return false;
    }
  }
  *why = "it has no DISPLAY" +
         std::string(session.has_value() ? " and was not started in session " + session->id : "");
  return false;
}

bool Exited(Workspace::Lease& lease, int pid) {
  if (lease.hands) {
    if (auto it = lease.hands->launched.find(pid); it != lease.hands->launched.end()) {
      return !it->second->Running();
    }
  }
  ReapIfExited(pid);
  return !PidAlive(pid);
}

bool WaitExit(Workspace::Lease& lease, int pid, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!Exited(lease, pid)) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(kExitPoll);
  }
  return true;
}

}  // namespace

std::string WindowIdText(uint64_t id) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(id));
  return buf;
}

std::string AppQuestionText(const AppQuestion& question) {
  std::string text = "asks " + QuoteForDisplay(question.title, 120);
  if (!question.text.empty()) text += ": " + EscapeForDisplay(question.text, 500);
  text += "\n";
  for (const AppQuestion::Button& b : question.buttons) {
    text += "  button " + QuoteForDisplay(b.name, 80) + " " + b.id + "\n";
  }
  return text;
}

std::string CloseOutcomeText(const CloseResult& result) {
  std::string text = result.stage + " " + EscapeForDisplay(result.app.name, 80) + " (pid " +
                     std::to_string(result.app.pid) + ") in " +
                     std::to_string(std::llround(result.waited_ms)) + " ms";
  if (result.question && result.stage != "closed" && result.stage != "asking") {
    text += ", forced past its question " + QuoteForDisplay(result.question->title, 120) +
            ": its unsaved work is lost";
  }
  return text + "\n";
}

Result<std::vector<WindowEntry>> ListDesktopWindows(Workspace::Lease& lease) {
  if (auto st = NeedHands(lease); !st.ok()) return st.error();
  auto windows = lease.hands->windows->ListWindows();
  if (!windows.ok()) return windows.error();
  std::map<int, std::string> names;
  if (lease.accessibility) {
    if (auto apps = lease.accessibility->ListApps(); apps.ok()) {
      for (const AppInfo& a : *apps) {
        if (a.pid > 0 && !a.name.empty()) names[a.pid] = a.name;
      }
    }
  }
  std::vector<WindowEntry> out;
  for (WindowInfo& w : *windows) {
    WindowEntry e;
    auto it = names.find(w.pid);
    e.app = it != names.end() ? it->second : w.app_instance;
    e.window = std::move(w);
    out.push_back(std::move(e));
  }
  return out;
}

Result<std::vector<AppEntry>> ListDesktopApps(Workspace::Lease& lease) {
  if (auto st = NeedHands(lease); !st.ok()) return st.error();
  auto windows = lease.hands->windows->ListWindows();
  if (!windows.ok()) return windows.error();
  std::map<int, AppEntry> by_pid;
  if (lease.accessibility) {
    if (auto apps = lease.accessibility->ListApps(); apps.ok()) {
      for (const AppInfo& a : *apps) {
        if (a.pid <= 0) continue;
        AppEntry& e = by_pid[a.pid];
        e.pid = a.pid;
        e.name = a.name;
        e.toolkit = a.toolkit;
        e.accessible = true;
      }
    }
  }
  std::vector<AppEntry> without_pid;
  for (const WindowInfo& w : *windows) {
    if (w.pid <= 0) {
      AppEntry e;
      e.name = w.app_instance;
      e.windows.push_back(w);
      without_pid.push_back(std::move(e));
      continue;
    }
    AppEntry& e = by_pid[w.pid];
    e.pid = w.pid;
    if (e.name.empty()) e.name = w.app_instance;
    e.windows.push_back(w);
  }
  for (auto& [pid, process] : lease.hands->launched) {
    if (!process->Running()) continue;
    AppEntry& e = by_pid[pid];
    e.pid = pid;
    e.launched = true;
  }
  std::vector<AppEntry> out;
  for (auto& [pid, e] : by_pid) {
    if (e.name.empty()) e.name = PidProgramName(pid);
    e.command = PidCmdline(pid);
    out.push_back(std::move(e));
  }
  for (AppEntry& e : without_pid) out.push_back(std::move(e));
  return out;
}

Result<LaunchResult> LaunchApp(Workspace::Lease& lease, const LaunchRequest& r) {
  if (r.argv.empty() || r.argv[0].empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "app_launch needs a command line");
  }
  if (auto st = NeedHands(lease); !st.ok()) return st.error();
  if (!lease.hands->can_launch) {
    return MakeError(ErrorCode::kUnsupported,
                     "desktop " + lease.display + " is not a real display: it launches no apps");
  }
  LaunchResult result;
  PlannedAction planned;
  planned.tool = "app_launch";
  planned.display = lease.display;
  planned.session = lease.session_id;
  planned.frame = lease.frame;
  for (const std::string& a : r.argv) planned.command += (planned.command.empty() ? "" : " ") + a;
  planned.app = r.argv[0].substr(r.argv[0].rfind('/') + 1);
  planned.arguments = r.arguments;
  planned.confirmation_token = r.confirmation_token;
  planned.plan_step = r.plan_step;
  planned.require_confirmation = r.require_confirmation;
  ActionGate& gate = *lease.gate;
  GatedAction action(gate, std::move(planned));
  result.decision = action.decision();
  ActionOutcome& outcome = action.outcome();
  if (result.decision.verdict != GateVerdict::kAllow) {
    action.Record();
    return result;
  }

  // The windows there before: a window that appears after the launch and
  // belongs to no process of ours (a launcher that handed over) is told by
  // being new.
  std::vector<uint64_t> before;
  if (auto windows = lease.hands->windows->ListWindows(); windows.ok()) {
    for (const WindowInfo& w : *windows) before.push_back(w.id);
  }
  SpawnOptions spawn;
  spawn.argv = r.argv;
  // Chromium and Electron get a DevTools endpoint, so that observe reads
  // their pages over the protocol (engine/cdp_pages.h). A fixed free port,
  // not --remote-debugging-port=0: the port is then on the command line,
  // where observe finds it for this very process (/proc/PID/cmdline),
  // whatever profile directory the app uses; with 0 it would be in the
  // profile's DevToolsActivePort file, which depends on the app. Chrome
  // 136+ ignores the switch on its default profile: give it --user-data-dir.
  if (WantsDevToolsPort(spawn.argv)) {
    if (auto port = PickFreeLoopbackPort(); port.ok()) {
      spawn.argv = WithDevToolsPort(std::move(spawn.argv), *port);
      result.devtools_port = *port;
    } else {
      result.warnings.push_back("no DevTools port for its pages (" + port.error().message +
                                "): they will be read through AT-SPI only");
    }
  }
  const std::optional<DesktopInfo> session = LeaseSession(lease);
  auto log_file = CreateLogFile(session, r.argv[0]);
  if (!log_file.ok()) {
    outcome.error = log_file.error().message;
    action.Record();
    return log_file.error();
  }
  spawn.log_file = *log_file;
  result.log_file = spawn.log_file;
  auto process = SpawnApp(lease, session, std::move(spawn));
  if (!process.ok()) {
    outcome.error = process.error().message;
    action.Record();
    return process.error();
  }
  result.performed = true;
  result.pid = (*process)->pid();
  outcome.performed = true;
  outcome.via = "spawn";
  const auto start = Clock::now();
  bool launcher_exited = false;  // with success, before its window appeared
  auto finish = [&](Result<LaunchResult> value) -> Result<LaunchResult> {
    if (r.keep && (*process)->Running()) {
      lease.hands->launched[result.pid] = std::move(process).value();
    } else if ((*process)->Running() || launcher_exited) {
      // A launcher that handed over leaves its process group to the app:
      // ending the group would end the app.
      (*process)->Release();
    }
    if (!value.ok()) outcome.error = value.error().message;
    action.Record();
    return value;
  };
  if (!r.wait) return finish(result);

  if (r.progress)
    r.progress("started pid " + std::to_string(result.pid) + ", waiting for its window");
  const auto deadline = start + r.timeout;
  const int launched = result.pid;
  const std::string program = r.argv[0].substr(r.argv[0].rfind('/') + 1);
  // Ours: a process the launch started (its descendant, or in the session
  // it leads, which a forked child that outlives its parent keeps), or a
  // new window named like the program (a terminal whose launcher asked a
  // running server for the window).
  auto ours = [&](const WindowInfo& w) {
    if (w.pid > 0 && DescendsFrom(w.pid, launched)) return true;
    if (std::find(before.begin(), before.end(), w.id) != before.end()) return false;
    if (auto p = w.pid > 0 ? ReadProcess(w.pid) : std::nullopt; p && p->session == launched) {
      return true;
    }
    return AppNameMatches(program, w.app_instance) || AppNameMatches(program, w.app_class);
  };
  std::optional<Clock::time_point> window_seen;
  while (true) {
    if (!launcher_exited && !(*process)->Running()) {
      auto code = (*process)->Wait(std::chrono::milliseconds(0));
      // A launcher that exits with success may have handed over to another
      // process (a forked child, a terminal server): wait on for the window.
      launcher_exited = code.ok() && *code == 0;
    }
    if (!launcher_exited && !(*process)->Running()) {
      auto code = (*process)->Wait(std::chrono::milliseconds(0));
      const std::string tail = FileTail(result.log_file, 10);
      return finish(MakeError(
          ErrorCode::kUnavailable,
          EscapeForDisplay(r.argv[0], 80) + " (pid " + std::to_string(result.pid) + ") exited" +
              (code.ok() ? " with status " + std::to_string(*code) : std::string()) +
              " before its window appeared" +
              (tail.empty() ? "" : "; its log:\n  " + EscapeLinesForDisplay(tail, "  "))));
    }
    if (!result.window) {
      if (auto windows = lease.hands->windows->ListWindows(); windows.ok()) {
        for (const WindowInfo& w : *windows) {
          if (w.visible && ours(w)) {
            result.window = w;
            window_seen = Clock::now();
            if (r.progress) r.progress("its window \"" + w.title + "\" appeared");
            break;
          }
        }
      }
    }
    if (!result.accessible && lease.accessibility) {
      if (auto apps = lease.accessibility->ListApps(); apps.ok()) {
        for (const AppInfo& a : *apps) {
          if (a.pid > 0 &&
              (DescendsFrom(a.pid, launched) || (result.window && a.pid == result.window->pid))) {
            result.accessible = true;
            result.app_name = a.name;
            result.toolkit = a.toolkit;
            break;
          }
        }
      }
    }
    if (result.window && result.accessible) break;
    // Toolkits register for accessibility before they map a window: one
    // that has not a moment after its window is there will not (xterm, Tk).
    if (window_seen && Clock::now() - *window_seen >= kAccessibleGrace) break;
    if (Clock::now() >= deadline) break;
    if (r.cancelled && r.cancelled()) {
      result.warnings.push_back("cancelled while waiting; the app keeps running");
      break;
    }
    std::this_thread::sleep_for(kLaunchPoll);
  }
  result.waited_ms = MsSince(start);
  if (result.app_name.empty() && result.window) result.app_name = result.window->app_instance;
  if (result.window && result.window->pid > 0 && result.window->pid != launched &&
      !DescendsFrom(result.window->pid, launched)) {
    result.warnings.push_back(
        r.argv[0] + " (pid " + std::to_string(launched) + ") handed its window over to pid " +
        std::to_string(result.window->pid) + ", which app_close and --pid name");
    result.pid = result.window->pid;
  }
  if (!result.window && !result.accessible && !(r.cancelled && r.cancelled())) {
    return finish(MakeError(ErrorCode::kTimeout,
                            r.argv[0] + " (pid " + std::to_string(result.pid) +
                                ") showed no window within " + std::to_string(r.timeout.count()) +
                                " ms; it keeps running (close it with app_close " +
                                std::to_string(result.pid) + "); its log: " + result.log_file));
  }
  if (!result.accessible) {
    // Name what the app lacks: its toolkit, read from the libraries its
    // window's process maps, and the variable, package or command that fixes it.
    std::string hint = AccessibilityHint(result.window ? result.window->pid : result.pid);
    if (hint.empty() && result.window) hint = AccessibilityHint(result.pid);
    result.warnings.push_back("no accessibility app appeared within " +
                              std::to_string(static_cast<int64_t>(result.waited_ms)) + " ms: " +
                              (hint.empty() ? "the app may not support accessibility" : hint) +
                              "; meanwhile act on it by points and read it with OCR");
  } else if (!result.window) {
    result.warnings.push_back("the app registered for accessibility but mapped no window within " +
                              std::to_string(r.timeout.count()) + " ms");
  }
  return finish(result);
}

Result<FocusResult> FocusApp(Workspace::Lease& lease, const std::string& app,
                             const std::string& confirmation_token) {
  auto apps = ListDesktopApps(lease);
  if (!apps.ok()) return apps.error();
  FocusResult result;
  PlannedAction planned;
  planned.tool = "app_focus";
  planned.display = lease.display;
  planned.session = lease.session_id;
  planned.frame = lease.frame;
  planned.arguments = {{"app", app}};
  planned.confirmation_token = confirmation_token;
  ActionGate& gate = *lease.gate;
  int candidates = 1;
  auto entry = ResolveApp(lease, *apps, app, &candidates);
  if (!entry.ok()) {
    planned.app = app;
    GatedAction(gate, std::move(planned)).Record(NotPerformed(entry.error().message));
    return entry.error();
  }
  result.app = *entry;
  planned.app = entry->name;
  planned.candidates = candidates;
  // The top-most visible window (the list is bottom to top).
  const WindowInfo* window = nullptr;
  for (const WindowInfo& w : entry->windows) {
    if (w.visible || window == nullptr) window = &w;
  }
  if (window) planned.target_window = window->bounds;
  GatedAction action(gate, std::move(planned));
  result.decision = action.decision();
  ActionOutcome& outcome = action.outcome();
  if (result.decision.verdict != GateVerdict::kAllow) {
    action.Record();
    return result;
  }
  if (candidates > 1) {
    Error e = Ambiguous(app, *apps);
    outcome.error = e.message;
    action.Record();
    return e;
  }
  if (window == nullptr) {
    Error e = MakeError(
        ErrorCode::kUnsupported,
        "app " + EscapeForDisplay(entry->name, 60) + " (pid " + std::to_string(entry->pid) +
            ") has no window to focus");
    outcome.error = e.message;
    action.Record();
    return e;
  }
  Status st = lease.hands->windows->Activate(window->id, kFocusTimeout);
  if (!st.ok()) {
    outcome.error = st.error().message;
    action.Record();
    return st.error();
  }
  result.performed = true;
  result.window = *window;
  result.window.focused = true;
  outcome.performed = true;
  outcome.via = "window_manager";
  action.Record();
  return result;
}

namespace {

// Closes an app known only by its windows (no process: no _NET_WM_PID and
// no X-Resource answer): asked as the close button would, then its X client
// is disconnected (XKillClient), which ends an Xlib app.
Result<CloseResult> CloseByWindow(Workspace::Lease& lease, const CloseRequest& r,
                                  const AppEntry& entry, GatedAction& action,
                                  CloseResult result) {
  const auto start = Clock::now();
  ActionOutcome& outcome = action.outcome();
  outcome.performed = true;
  result.performed = true;
  WindowSystem& windows = *lease.hands->windows;
  auto gone = [&](std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (true) {
      auto listed = windows.ListWindows();
      auto listed_again = [&](const WindowInfo& e) {
        return std::any_of(listed->begin(), listed->end(),
                           [&](const WindowInfo& w) { return w.id == e.id; });
      };
      const bool any =
          listed.ok() && std::any_of(entry.windows.begin(), entry.windows.end(), listed_again);
      if (listed.ok() && !any) return true;
      if (Clock::now() >= deadline) return false;
      std::this_thread::sleep_for(kExitPoll);
    }
  };
  // Each stage asks every window; a stage none of whose requests could be
  // sent (a VNC window whose close button was not found; no XKillClient
  // over VNC) is not waited for, and its reason is said.
  auto ask_all = [&](auto request, std::string& refused) {
    bool sent = false;
    for (const WindowInfo& w : entry.windows) {
      Status st = (windows.*request)(w.id);
      if (st.ok()) {
        sent = true;
      } else if (refused.empty()) {
        refused = st.error().message;
      }
    }
    return sent;
  };
  std::string close_refused, kill_refused;
  if (ask_all(&WindowSystem::Close, close_refused) && gone(r.polite_timeout)) {
    result.stage = "closed";
  } else if (ask_all(&WindowSystem::KillClient, kill_refused) && gone(r.term_timeout)) {
    result.stage = "killed";
  }
  result.waited_ms = MsSince(start);
  outcome.via = result.stage.empty() ? "window" : result.stage;
  if (result.stage.empty()) {
    std::string why = "the windows of " + EscapeForDisplay(entry.name, 60) +
                      " stayed after the close request (" +
                      (close_refused.empty() ? "sent" : "not sent: " + close_refused) +
                      ") and the kill (" +
                      (kill_refused.empty() ? "sent" : "not sent: " + kill_refused) + ")";
    Error e = MakeError(ErrorCode::kInternal, std::move(why));
    outcome.error = e.message;
    action.Record();
    return e;
  }
  action.Record();
  return result;
}

}  // namespace

// How long an app that put up a dialog gets for its accessibility tree to
// show the dialog's buttons.
constexpr auto kQuestionSettle = std::chrono::milliseconds(2000);
// How often the polite stage asks the window system for a new dialog.
constexpr auto kQuestionPoll = std::chrono::milliseconds(100);

namespace {

bool IsDialogRole(Role role) { return role == Role::kDialog || role == Role::kAlert; }

// The dialog node of the app of `pid` in `roots`: a dialog or alert that is
// showing, else the top-level node titled `title` (the new window).
const Node* DialogNode(const std::vector<Node>& roots, int pid, const std::string& title) {
  const Node* by_role = nullptr;
  const Node* by_title = nullptr;
  for (const Node& app : roots) {
    if (app.pid != pid) continue;
    ForEachNode(app.children, [&](const Node& n, int) {
      const bool showing = n.Has(State::kShowing) || n.Has(State::kVisible);
      if (by_role == nullptr && IsDialogRole(n.role) && showing) by_role = &n;
      if (by_title == nullptr && !title.empty() && n.name == title &&
          (n.role == Role::kWindow || IsDialogRole(n.role))) {
        by_title = &n;
      }
    });
  }
  return by_role != nullptr ? by_role : by_title;
}

void ReadDialog(const Node& dialog, AppQuestion* q) {
  if (q->title.empty()) q->title = dialog.name;
  ForEachNode(dialog.children, [&](const Node& n, int) {
    if ((n.role == Role::kLabel || n.role == Role::kText || n.role == Role::kHeading) &&
        !n.name.empty()) {
      q->text += (q->text.empty() ? "" : "\n") + n.name;
    } else if (n.role == Role::kButton && !n.id.empty()) {
      q->buttons.push_back({n.id, n.name});
    }
  });
}

}  // namespace

std::optional<AppQuestion> FindAppQuestion(Workspace::Lease& lease, int pid,
                                           const std::vector<uint64_t>& before) {
  std::optional<AppQuestion> question;
  if (lease.hands != nullptr && lease.hands->windows != nullptr) {
    if (auto windows = lease.hands->windows->ListWindows(); windows.ok()) {
      if (const WindowInfo* w = NewWindowOf(*windows, before, pid)) {
        question = AppQuestion{w->id, w->title, "", {}};
      }
    }
  }
  if (lease.observer == nullptr) return question;
  // A toolkit registers a new window's widgets a moment after it maps it.
  const auto deadline = Clock::now() + (question ? kQuestionSettle : std::chrono::milliseconds(0));
  do {
    auto observed = lease.observer->RefreshApp(pid, std::chrono::milliseconds(2000));
    if (!observed.ok()) break;
    const Node* dialog =
        DialogNode(lease.observer->last_roots(), pid, question ? question->title : "");
    if (dialog != nullptr) {
      AppQuestion found = question.value_or(AppQuestion{});
      ReadDialog(*dialog, &found);
      if (!found.buttons.empty() || Clock::now() >= deadline) return found;
    }
    if (Clock::now() >= deadline) break;
    std::this_thread::sleep_for(kQuestionPoll);
  } while (true);
  return question;
}

Result<std::vector<CloseResult>> AskAppsToClose(Workspace::Lease& lease,
                                                std::chrono::milliseconds timeout) {
  if (auto st = NeedHands(lease); !st.ok()) return st.error();
  auto apps = ListDesktopApps(lease);
  if (!apps.ok()) return apps.error();
  std::vector<uint64_t> before;
  if (auto windows = lease.hands->windows->ListWindows(); windows.ok()) {
    for (const WindowInfo& w : *windows) before.push_back(w.id);
  }
  const auto start = Clock::now();
  std::vector<CloseResult> results;
  for (const AppEntry& a : *apps) {
    if (a.pid <= 1 || a.pid == getpid() || a.windows.empty()) continue;
    bool sent = false;
    for (const WindowInfo& w : a.windows) sent = lease.hands->windows->Close(w.id).ok() || sent;
    if (!sent) continue;
    CloseResult r;
    r.performed = true;
    r.app = a;
    results.push_back(std::move(r));
  }
  // Until each has exited or shows a new window (its question).
  const auto deadline = start + timeout;
  std::vector<bool> settled(results.size(), false);
  while (Clock::now() < deadline) {
    auto windows = lease.hands->windows->ListWindows();
    bool all = true;
    for (size_t i = 0; i < results.size(); ++i) {
      if (settled[i]) continue;
      const int pid = results[i].app.pid;
      settled[i] = Exited(lease, pid) ||
                   (windows.ok() && NewWindowOf(*windows, before, pid) != nullptr);
      all = all && settled[i];
    }
    if (all) break;
    std::this_thread::sleep_for(kQuestionPoll);
  }
  for (CloseResult& r : results) {
    if (Exited(lease, r.app.pid)) {
      r.stage = "closed";
    } else if ((r.question = FindAppQuestion(lease, r.app.pid, before))) {
      r.stage = "asking";
    }
    r.waited_ms = MsSince(start);
  }
  return results;
}

std::vector<CloseResult> AskSessionAppsToClose(Workspace& workspace, const std::string& session_id,
                                               std::chrono::milliseconds timeout) {
  auto session = FindSession(session_id);
  // A remote desktop is only detached by session stop: its apps run on.
  if (!session.ok() || session->backend != "x11" || !session->alive) return {};
  auto lease = workspace.Acquire(session_id, Workspace::Need::kHands);
  if (!lease.ok()) return {};
  auto asked = AskAppsToClose(*lease, timeout);
  return asked.ok() ? std::move(asked).value() : std::vector<CloseResult>{};
}

Result<CloseResult> CloseApp(Workspace::Lease& lease, const CloseRequest& r) {
  auto apps = ListDesktopApps(lease);
  if (!apps.ok()) return apps.error();
  CloseResult result;
  PlannedAction planned;
  planned.tool = "app_close";
  planned.display = lease.display;
  planned.session = lease.session_id;
  planned.frame = lease.frame;
  planned.arguments = r.arguments;
  planned.confirmation_token = r.confirmation_token;
  ActionGate& gate = *lease.gate;
  int candidates = 1;
  auto entry = ResolveApp(lease, *apps, r.app, &candidates);
  if (!entry.ok()) {
    planned.app = r.app;
    GatedAction(gate, std::move(planned)).Record(NotPerformed(entry.error().message));
    return entry.error();
  }
  result.app = *entry;
  planned.app = entry->name;
  planned.candidates = candidates;
  GatedAction action(gate, std::move(planned));
  result.decision = action.decision();
  ActionOutcome& outcome = action.outcome();
  if (result.decision.verdict != GateVerdict::kAllow) {
    action.Record();
    return result;
  }
  const int pid = entry->pid;
  const std::optional<DesktopInfo> session = LeaseSession(lease);
  if (pid <= 0 && candidates == 1 && !entry->windows.empty()) {
    return CloseByWindow(lease, r, *entry, action, std::move(result));
  }
  Error refusal = MakeError(ErrorCode::kInternal, "");
  if (candidates > 1) {
    refusal = Ambiguous(r.app, *apps);
  } else if (pid <= 1 || pid == getpid()) {
    refusal = MakeError(
        ErrorCode::kInvalidArgument,
        "app " + EscapeForDisplay(entry->name, 60) + " has no process uiscope may end (pid " +
            std::to_string(pid) + ")");
  } else if (std::string why; !RunsOnDesktop(lease, session, pid, &why)) {
    refusal = MakeError(ErrorCode::kDenied, "uiscope will not signal pid " + std::to_string(pid) +
                                                " for app " + EscapeForDisplay(entry->name, 60) +
                                                ": " + why);
  }
  if (!refusal.message.empty()) {
    outcome.error = refusal.message;
    action.Record();
    return refusal;
  }
  const auto start = Clock::now();
  outcome.performed = true;
  result.performed = true;
  // Read before it exits: the process session it leads, if any.
  const auto app_process = ReadProcess(pid);
  const int app_session = app_process ? app_process->session : 0;
  // 1. What the window's close button does. An app with unsaved work
  // answers with a dialog ("Save changes?"): ending it then would lose the
  // work, so it is left asking unless the caller forces it.
  std::vector<uint64_t> before;
  if (auto windows = lease.hands->windows->ListWindows(); windows.ok()) {
    for (const WindowInfo& w : *windows) before.push_back(w.id);
  }
  bool asked = false;
  for (const WindowInfo& w : entry->windows) {
    asked = lease.hands->windows->Close(w.id).ok() || asked;
  }
  bool exited = false;
  if (asked) {
    const auto deadline = Clock::now() + r.polite_timeout;
    auto next_look = Clock::now();
    while (!(exited = Exited(lease, pid)) && Clock::now() < deadline) {
      if (Clock::now() >= next_look) {
        if (auto windows = lease.hands->windows->ListWindows();
            windows.ok() && NewWindowOf(*windows, before, pid) != nullptr) {
          break;
        }
        next_look = Clock::now() + kQuestionPoll;
      }
      std::this_thread::sleep_for(kExitPoll);
    }
    // Asking in a window of its own, or in one it already had (an in-window
    // dialog, which only the accessibility tree shows).
    if (!exited && !(exited = Exited(lease, pid))) result.question = FindAppQuestion(lease, pid, before);
  }
  if (result.question && !r.force) {
    result.stage = "asking";
    result.waited_ms = MsSince(start);
    outcome.via = "asked";
    outcome.error = "the app asks \"" + SanitiseForDisplay(result.question->title, 120) +
                    "\" and runs on; answer its dialog, or close it again with force";
    action.Record();
    return result;
  }
  if (exited) {
    result.stage = "closed";
  } else {
    // 2. SIGTERM: the app may still save and clean up. SIGCONT, so that a
    // stopped app (state T) acts on it now rather than at SIGKILL.
    ::kill(pid, SIGTERM);
    ::kill(pid, SIGCONT);
    if (WaitExit(lease, pid, r.term_timeout)) {
      result.stage = "terminated";
    } else {
      ::kill(pid, SIGKILL);
      if (WaitExit(lease, pid, kKillTimeout)) result.stage = "killed";
    }
  }
  if (!result.stage.empty() && session.has_value() && app_session == pid) {
    // The app led its own process session in ours (app_launch starts it so):
    // what it started there (Chromium's zygote, renderers and GPU process)
    // goes with it, stopped ones included, instead of lingering as orphans.
    std::vector<int> rest;
    for (int member : ListSessionProcesses(*session)) {
      auto process = ReadProcess(member);
      if (member != pid && process && process->session == pid) rest.push_back(member);
    }
    if (!rest.empty()) (void)TerminatePids(rest, r.term_timeout);
  }
  if (auto it = lease.hands->launched.find(pid); it != lease.hands->launched.end()) {
    if (auto code = it->second->Wait(std::chrono::milliseconds(0)); code.ok() && *code >= 0) {
      result.exit_code = *code;
    }
    if (!it->second->Running()) lease.hands->launched.erase(it);
  }
  result.waited_ms = MsSince(start);
  outcome.via = result.stage.empty() ? "signal" : result.stage;
  if (result.question && result.stage != "closed") {
    outcome.via +=
        " (forced past its question \"" + SanitiseForDisplay(result.question->title, 120) + "\")";
  }
  if (result.stage.empty()) {
    Error e = MakeError(ErrorCode::kInternal,
                        "pid " + std::to_string(pid) + " survived SIGKILL (stuck in the kernel?)");
    outcome.error = e.message;
    action.Record();
    return e;
  }
  action.Record();
  return result;
}

Result<std::vector<std::string>> SplitCommandLine(std::string_view line) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  enum class Quote { kNone, kSingle, kDouble } quote = Quote::kNone;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    switch (quote) {
      case Quote::kSingle:
        if (c == '\'') {
          quote = Quote::kNone;
        } else {
          word += c;
        }
        continue;
      case Quote::kDouble:
        if (c == '"') {
          quote = Quote::kNone;
        } else if (c == '\\' && i + 1 < line.size() &&
                   std::string_view("\\\"$`").find(line[i + 1]) != std::string_view::npos) {
          word += line[++i];
        } else {
          word += c;
        }
        continue;
      case Quote::kNone:
        break;
    }
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) out.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else if (c == '\'') {
      quote = Quote::kSingle;
      in_word = true;
    } else if (c == '"') {
      quote = Quote::kDouble;
      in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
      in_word = true;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote != Quote::kNone) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the command line has an unterminated " +
                         std::string(quote == Quote::kSingle ? "'" : "\"") + " quote");
  }
  if (in_word) out.push_back(std::move(word));
  if (out.empty()) return MakeError(ErrorCode::kInvalidArgument, "the command line is empty");
  return out;
}

}  // namespace uiscope
