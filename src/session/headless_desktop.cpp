#include "session/headless_desktop.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pwd.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include "platform/vnc/vnc_address.h"
#include "session/a11y_env.h"
#include "session/launch_marks.h"
#include "session/reaper.h"
#include "session/x11_probe.h"

namespace uiscope {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr std::string_view kRuntimeDirPrefix = "uiscope-";
// In the runtime dir: one "PID START_TIME" line per recorded member.
constexpr char kMembersFile[] = "members";
constexpr int kMaxAncestry = 64;
constexpr milliseconds kPollInterval{10};
constexpr milliseconds kStopGrace{2000};

std::string GetEnv(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

milliseconds Left(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
  return std::max(left, milliseconds(0));
}

std::string Seconds(milliseconds duration) {
  std::ostringstream out;
  out << duration.count() / 1000.0 << " s";
  return out.str();
}

int64_t NowEpochMs() {
  return std::chrono::duration_cast<milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The last lines of a helper's log, for error messages: "openbox failed" is
// useless without openbox's own complaint.
std::string LogTail(const std::string& path, size_t max_lines = 12) {
  std::string tail = FileTail(path, max_lines);
  return tail.empty() ? "" : "; log " + path + ":" + tail;
}

bool ParseInt(std::string_view text, int* out) {
  if (text.empty() || text.size() > 9) return false;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  *out = value;
  return true;
}

// Session ids name registry files, so they are restricted to a safe alphabet.
bool ValidSessionId(std::string_view id) {
  return !id.empty() && id.size() <= 64 && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
  });
}

// Private XDG_RUNTIME_DIR (mode 0700 from mkdtemp): the AT-SPI bus socket
// and our logs live there, and its path tags every process of the session.
Result<std::string> MakeRuntimeDir() {
  std::string base = GetEnv("XDG_RUNTIME_DIR");
  // Not inside another uiscope session's dir: stopping that one would
  // delete ours.
  if (base.empty() || access(base.c_str(), W_OK) != 0 ||
      fs::path(base).filename().string().starts_with(kRuntimeDirPrefix)) {
    base = "/tmp";
  }
  std::string path = base + "/" + std::string(kRuntimeDirPrefix) + "XXXXXX";
  if (mkdtemp(path.data()) == nullptr) {
    return MakeError(ErrorCode::kUnavailable,
                     "cannot create a runtime dir in " + base + ": " + std::strerror(errno));
  }
  return path;
}

// The path comes from a registry file a user can edit: never write into or
// remove anything that is not one of our runtime dirs.
bool IsRuntimeDir(const std::string& path) {
  return !path.empty() && fs::path(path).filename().string().starts_with(kRuntimeDirPrefix);
}

void RemoveRuntimeDir(const std::string& path) {
  if (!IsRuntimeDir(path)) return;
  std::error_code ignored;
  fs::remove_all(path, ignored);
}

struct Member {
  int pid = 0;
  uint64_t start_time = 0;
};

std::vector<Member> ReadMembers(const std::string& runtime_dir) {
  std::vector<Member> members;
  if (!IsRuntimeDir(runtime_dir)) return members;
  std::ifstream in(runtime_dir + "/" + kMembersFile);
  Member member;
  while (in >> member.pid >> member.start_time) {
    if (member.pid > 0) members.push_back(member);
  }
  return members;
}

// The value of variable `name` in `environment` ("NAME=value" entries, as
// PidEnvironment() reads them); nullopt when it has none.
std::optional<std::string> EnvValue(const std::vector<std::string>& environment,
                                    std::string_view name) {
  for (const std::string& entry : environment) {
    if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=') {
      return entry.substr(name.size() + 1);
    }
  }
  return std::nullopt;
}

// True if `pid` still runs `program` inside this session. The program name
// guards against a recycled pid, the runtime dir in its environment against
// another session's process of the same name.
bool PidBelongsTo(int pid, std::string_view program, const std::string& runtime_dir) {
  if (!PidAlive(pid) || PidProgramName(pid) != program) return false;
  std::vector<std::string> environment = PidEnvironment(pid);
  if (environment.empty()) return true;  // unreadable: trust the name
  const std::string tag = "XDG_RUNTIME_DIR=" + runtime_dir;
  return std::find(environment.begin(), environment.end(), tag) != environment.end();
}

// This process and its ancestors: a shell that exported the session's
// environment and runs `uiscope session stop` must survive it.
std::set<int> SelfAndAncestors() {
  std::set<int> pids;
  for (int pid = getpid(); pid > 1 && pids.insert(pid).second;) {
    pid = PidParent(pid);
  }
  return pids;
}

// Lock and socket files of a display whose Xvfb was killed hard. Only when
// the lock still names our (dead) Xvfb, so another server is never touched.
void RemoveStaleDisplayFiles(const DesktopInfo& info) {
  if (info.display < 0 || info.xvfb_pid <= 0 || PidAlive(info.xvfb_pid)) return;
  const std::string lock = "/tmp/.X" + std::to_string(info.display) + "-lock";
  std::ifstream in(lock);
  int lock_pid = 0;
  if (!(in >> lock_pid) || lock_pid != info.xvfb_pid) return;
  unlink(lock.c_str());
  unlink(("/tmp/.X11-unix/X" + std::to_string(info.display)).c_str());
}

fs::path RegistryPath(std::string_view id) {
  return fs::path(SessionStateDir()) / (std::string(id) + ".json");
}

// Removes the registry entry if it still describes this session (a stopped
// session's id may since have gone to a new one).
void Unregister(const DesktopInfo& info) {
  if (!ValidSessionId(info.id)) return;
  const fs::path path = RegistryPath(info.id);
  std::ifstream in(path);
  if (!in) return;
  nlohmann::json json = nlohmann::json::parse(in, nullptr, false);
  if (json.is_discarded() || !json.is_object() ||
      json.value("runtime_dir", "") == info.runtime_dir) {
    std::error_code ignored;
    fs::remove(path, ignored);
  }
}

// Records `info` under the first free id of id_for(1), id_for(2), ...
Status RegisterAs(DesktopInfo* info, const std::function<std::string(int)>& id_for);

// Records the session under the first free id of "s<display>",
// "s<display>-2", ...: the entry of a dead session with the same display
// keeps its id until it is cleaned up. link() makes the claim atomic.
Status Register(DesktopInfo* info) {
  std::string base_id = "s";
  base_id.append(std::to_string(info->display));
  return RegisterAs(info, [&](int attempt) {
    std::string id = base_id;
    if (attempt > 1) id.append("-").append(std::to_string(attempt));
    return id;
  });
}

Status RegisterAs(DesktopInfo* info, const std::function<std::string(int)>& id_for) {
  const fs::path dir = SessionStateDir();
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) {
    return MakeError(ErrorCode::kUnavailable,
                     "cannot create session state dir " + dir.string() + ": " + error.message());
  }
  const fs::path temp = dir / (".new-" + std::to_string(getpid()) + "-" + id_for(1) + ".json");
  for (int attempt = 1; attempt <= 100; ++attempt) {
    info->id = id_for(attempt);
    {
      std::ofstream out(temp, std::ios::trunc);
      out << ToJson(*info).dump(2) << "\n";
      if (!out.flush()) {
        return MakeError(ErrorCode::kUnavailable, "cannot write " + temp.string());
      }
    }
    const fs::path target = RegistryPath(info->id);
    if (link(temp.c_str(), target.c_str()) == 0) {
      fs::remove(temp, error);
      return OkStatus();
    }
    if (errno != EEXIST) {
      int saved = errno;
      fs::remove(temp, error);
      return MakeError(ErrorCode::kUnavailable, "cannot register session in " + target.string() +
                                                    ": " + std::strerror(saved));
    }
  }
  fs::remove(temp, error);
  return MakeError(ErrorCode::kInternal,
                   "no free session id like " + id_for(1) + " in " + dir.string());
}

// Rewrites the registry entry of a registered session (its owner changed),
// if it still describes this session. rename() makes the update atomic.
Status Reregister(const DesktopInfo& info) {
  if (!ValidSessionId(info.id)) return OkStatus();
  const fs::path path = RegistryPath(info.id);
  {
    std::ifstream in(path);
    nlohmann::json json = nlohmann::json::parse(in, nullptr, false);
    if (json.is_discarded() || !json.is_object() ||
        json.value("runtime_dir", "") != info.runtime_dir) {
      return MakeError(ErrorCode::kNotFound, "no registry entry " + path.string() + " to update");
    }
  }
  const fs::path temp = fs::path(SessionStateDir()) /
                        (".update-" + std::to_string(getpid()) + "-" + info.id + ".json");
  {
    std::ofstream out(temp, std::ios::trunc);
    out << ToJson(info).dump(2) << "\n";
    if (!out.flush()) return MakeError(ErrorCode::kUnavailable, "cannot write " + temp.string());
  }
  std::error_code error;
  fs::rename(temp, path, error);
  if (error) {
    fs::remove(temp, error);
    return MakeError(ErrorCode::kUnavailable, "cannot update " + path.string());
  }
  return OkStatus();
}

// Ends every process of the session; returns the pids that survived SIGKILL.
std::vector<int> StopProcesses(const DesktopInfo& info) {
  // A recorded helper that died while it was our (released) child is a
  // zombie until reaped; it no longer counts as belonging to the session.
  for (int pid : {info.xvfb_pid, info.dbus_pid, info.wm_pid}) ReapIfExited(pid);
  const std::set<int> protected_pids = SelfAndAncestors();
  std::vector<int> clients;
  for (int pid : ListSessionProcesses(info)) {
    if (!protected_pids.contains(pid) && pid != info.xvfb_pid) clients.push_back(pid);
  }
  // Recorded pids are also checked by name, in case their environment is
  // unreadable.
  if (PidBelongsTo(info.wm_pid, "openbox", info.runtime_dir)) {
    clients.push_back(info.wm_pid);
  }
  if (PidBelongsTo(info.dbus_pid, "dbus-daemon", info.runtime_dir)) {
    clients.push_back(info.dbus_pid);
  }
  std::sort(clients.begin(), clients.end());
  clients.erase(std::unique(clients.begin(), clients.end()), clients.end());
  // X clients first, the server last: apps and the window manager then exit
  // on their own terms rather than on a broken connection.
  std::vector<int> survivors = TerminatePids(clients, kStopGrace);
  if (PidBelongsTo(info.xvfb_pid, "Xvfb", info.runtime_dir)) {
    for (int pid : TerminatePids({info.xvfb_pid}, kStopGrace)) {
      survivors.push_back(pid);
    }
  }
  return survivors;
}

// The address of a remote session's record: its URL as ParseVncAddress
// writes it (VncAddress::Url), nothing else.
Result<VncAddress> RecordedAddress(const std::string& url) {
  auto address = ParseVncAddress(url);
  if (!address.ok() || address->Url() != url) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "a remote session needs a vnc://HOST:PORT url, not '" + url + "'");
  }
  return address;
}

// Whether something accepts TCP connections at the session's address,
// within 500 ms: no VNC handshake (that needs the password and can stall),
// so a listening server counts as alive.
std::string RemoteProblem(const DesktopInfo& info) {
  auto address = RecordedAddress(info.url);
  if (!address.ok()) return address.error().message;
  const std::string port = std::to_string(address->port);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(address->host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return "cannot resolve " + address->host + ": " + gai_strerror(rc);
  }
  std::string problem = "nothing answers at " + info.url;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd =
        socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    bool up = connect(fd, a->ai_addr, a->ai_addrlen) == 0;
    if (!up && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      int error = 0;
      socklen_t length = sizeof error;
      up = poll(&p, 1, 500) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 &&
           error == 0;
      if (!up && error != 0) problem += " (" + std::string(std::strerror(error)) + ")";
    } else if (!up) {
      problem += " (" + std::string(std::strerror(errno)) + ")";
    }
    close(fd);
    if (up) {
      problem.clear();
      break;
    }
  }
  freeaddrinfo(found);
  return problem;
}

// Why the session is not usable, naming each part that is gone; "" if
// every part runs.
std::string SessionProblem(const DesktopInfo& info) {
  if (info.backend == "vnc") return RemoteProblem(info);
  std::string problem;
  auto add = [&](std::string_view part, int pid) {
    if (!problem.empty()) problem += "; ";
    problem.append(part).append(" (pid ").append(std::to_string(pid)).append(") is not running");
  };
  if (!PidBelongsTo(info.xvfb_pid, "Xvfb", info.runtime_dir)) add("Xvfb", info.xvfb_pid);
  if (!PidBelongsTo(info.dbus_pid, "dbus-daemon", info.runtime_dir)) {
    add("dbus-daemon", info.dbus_pid);
  }
  if (info.wm_pid != 0 && !PidBelongsTo(info.wm_pid, "openbox", info.runtime_dir)) {
    add("openbox", info.wm_pid);
  }
  if (info.owner_pid > 0) {
    auto owner = ReadProcess(info.owner_pid);
    if (!owner.has_value() || !owner->live() || owner->start_time != info.owner_start_time) {
      if (!problem.empty()) problem += "; ";
      problem += "its owner (pid " + std::to_string(info.owner_pid) +
                 ") exited, so the desktop is being stopped";
    }
  }
  return problem;
}

// Turns a spawn failure of a required helper into an actionable message.
Error SpawnError(const Error& error, std::string_view program, std::string_view package) {
  if (error.code == ErrorCode::kNotFound) {
    return MakeError(ErrorCode::kUnavailable, std::string(program) + " not found: install " +
                                                  std::string(package) + " (scripts/build does)");
  }
  return MakeError(error.code, "cannot start " + std::string(program) + ": " + error.message);
}

// Base environment for the helpers: the session's switches, minus anything
// pointing at another desktop or bus.
SpawnOptions HelperOptions(const std::string& runtime_dir, std::vector<std::string> argv,
                           const std::string& log_name) {
  SpawnOptions options;
  options.argv = std::move(argv);
  options.new_session = true;
  options.log_file = runtime_dir + "/" + log_name;
  options.unset_env = SessionUnsetEnvironment();
  options.unset_env.emplace_back("DISPLAY");
  options.unset_env.emplace_back("DBUS_SESSION_BUS_ADDRESS");
  DesktopInfo partial;
  partial.runtime_dir = runtime_dir;
  for (auto& [name, value] : SessionEnvironment(partial)) {
    if (!value.empty()) options.env.emplace_back(name, value);
  }
  // What the session bus activates and the window manager starts inherits it.
  options.env.emplace_back(kLaunchedEnv, "session");
  return options;
}

Result<int> StartXvfb(const DesktopOptions& options, const std::string& runtime_dir,
                      Clock::time_point deadline,
                      std::vector<std::unique_ptr<Process>>* processes) {
  const std::string screen = std::to_string(options.width) + "x" + std::to_string(options.height) +
                             "x" + std::to_string(options.depth);
  // -displayfd 1: Xvfb picks a free display and writes its number on stdout
  // once it accepts connections, so parallel starts never race for one.
  // -noreset: without it the server resets when its last client leaves,
  // wiping root window properties (the AT-SPI bus address among them).
  SpawnOptions spawn = HelperOptions(
      runtime_dir,
      {"Xvfb", "-displayfd", "1", "-screen", "0", screen, "-nolisten", "tcp", "-noreset"},
      "xvfb.log");
  spawn.capture_stdout = true;
  auto xvfb = Process::Spawn(spawn);
  if (!xvfb.ok()) return SpawnError(xvfb.error(), "Xvfb", "xvfb");
  Process& process = **xvfb;
  processes->push_back(std::move(xvfb.value()));

  auto line = process.ReadLine(Left(deadline));
  if (!line.ok()) {
    if (line.error().code == ErrorCode::kTimeout) {
      return MakeError(ErrorCode::kTimeout, "Xvfb did not report a display within " +
                                                Seconds(options.start_timeout) +
                                                LogTail(spawn.log_file));
    }
    return MakeError(ErrorCode::kUnavailable,
                     "Xvfb exited during start-up" + LogTail(spawn.log_file));
  }
  int display = -1;
  if (!ParseInt(*line, &display)) {
    return MakeError(ErrorCode::kInternal, "Xvfb reported an unexpected display '" + *line + "'");
  }
  // The display is announced once it listens; this only guards against an
  // X server that cannot be reached (e.g. a full /tmp/.X11-unix).
  const std::string name = ":" + std::to_string(display);
  while (!x11_probe::DisplayAnswers(name)) {
    if (!process.Running()) {
      return MakeError(ErrorCode::kUnavailable,
                       "Xvfb exited during start-up" + LogTail(spawn.log_file));
    }
    if (Left(deadline).count() == 0) {
      return MakeError(ErrorCode::kTimeout, "display " + name + " did not answer within " +
                                                Seconds(options.start_timeout) +
                                                LogTail(spawn.log_file));
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  return display;
}

struct BusInfo {
  std::string address;
  int pid = 0;
};

Result<BusInfo> StartSessionBus(const DesktopOptions& options, const std::string& runtime_dir,
                                const std::string& display_name, Clock::time_point deadline,
                                std::vector<std::unique_ptr<Process>>* processes) {
  // DISPLAY and XDG_RUNTIME_DIR must be in the daemon's environment: the
  // services it activates inherit it, and the AT-SPI bus launcher needs both
  // (it publishes the accessibility bus on the root window and puts its
  // socket in the runtime dir). --fork: the daemon detaches itself and sends
  // its stdout to /dev/null, so it does not hold our pipe once started.
  SpawnOptions spawn =
      HelperOptions(runtime_dir,
                    {"dbus-daemon", "--session", "--fork", "--print-address=1", "--print-pid=1",
                     "--address=unix:path=" + runtime_dir + "/bus"},
                    "dbus.log");
  spawn.env.emplace_back("DISPLAY", display_name);
  spawn.capture_stdout = true;
  auto launcher = Process::Spawn(spawn);
  if (!launcher.ok()) return SpawnError(launcher.error(), "dbus-daemon", "dbus");
  Process& process = **launcher;
  processes->push_back(std::move(launcher.value()));

  BusInfo bus;
  while (bus.address.empty() || bus.pid == 0) {
    auto line = process.ReadLine(Left(deadline));
    if (!line.ok()) {
      if (line.error().code == ErrorCode::kTimeout) {
        return MakeError(ErrorCode::kTimeout, "dbus-daemon did not print its address within " +
                                                  Seconds(options.start_timeout) +
                                                  LogTail(spawn.log_file));
      }
      return MakeError(ErrorCode::kUnavailable,
                       "dbus-daemon failed to start" + LogTail(spawn.log_file));
    }
    if (line->starts_with("unix:")) {
      bus.address = *line;
    } else if (!ParseInt(*line, &bus.pid)) {
      return MakeError(ErrorCode::kInternal, "unexpected output from dbus-daemon: '" + *line + "'");
    }
  }
  // The foreground process exits once the daemon runs; reap it.
  auto waited = process.Wait(Left(deadline));
  if (!waited.ok()) {
    return MakeError(ErrorCode::kTimeout,
                     "dbus-daemon --fork did not return within " + Seconds(options.start_timeout));
  }
  return bus;
}

// openbox's configuration for the session: the system's, with key bindings
// not re-grabbed on every keyboard-mapping change. uiscope types characters
// the keymap lacks by binding them to spare key codes for a moment
// (platform/x11/xtest_input.h); with the default, openbox re-reads the
// keymap and re-grabs every binding on each such change (~50 ms of CPU
// each here), and a typed paragraph of accented or CJK text kept it busy
// for seconds, stalling window management. Spare codes carry no bindings,
// so nothing is lost. Returns the file, or "" to run with the defaults.
std::string WriteOpenboxConfig(const std::string& runtime_dir) {
  constexpr char kSetting[] = "<rebindOnMappingNotify>no</rebindOnMappingNotify>";
  std::string rc;
  if (std::ifstream in("/etc/xdg/openbox/rc.xml"); in) {
    std::stringstream ss;
    ss << in.rdbuf();
    rc = ss.str();
  }
  const size_t keyboard = rc.find("<keyboard>");
  if (keyboard != std::string::npos) {
    rc.insert(keyboard + std::strlen("<keyboard>"), std::string("\n    ") + kSetting);
  } else {
    rc = std::string(
             "<?xml version=\"1.0\"?>\n<openbox_config xmlns=\"http://openbox.org/3.4/rc\">"
             "<keyboard>") +
         kSetting + "</keyboard></openbox_config>\n";
  }
  const std::string path = runtime_dir + "/openbox-rc.xml";
  std::ofstream out(path, std::ios::trunc);
  out << rc;
  out.close();
  return out ? path : "";
}

Result<int> StartWindowManager(const DesktopOptions& options, const std::string& runtime_dir,
                               const std::string& display_name, const std::string& bus_address,
                               Clock::time_point deadline,
                               std::vector<std::unique_ptr<Process>>* processes) {
  // --sm-disable: there is no session manager to register with.
  std::vector<std::string> argv = {"openbox", "--sm-disable"};
  if (std::string config = WriteOpenboxConfig(runtime_dir); !config.empty()) {
    argv.insert(argv.end(), {"--config-file", config});
  }
  SpawnOptions spawn = HelperOptions(runtime_dir, argv, "openbox.log");
  spawn.env.emplace_back("DISPLAY", display_name);
  spawn.env.emplace_back("DBUS_SESSION_BUS_ADDRESS", bus_address);
  auto wm = Process::Spawn(spawn);
  if (!wm.ok()) return SpawnError(wm.error(), "openbox", "openbox");
  Process& process = **wm;
  processes->push_back(std::move(wm.value()));

  // A fresh server has no stale _NET_SUPPORTING_WM_CHECK, so its presence
  // means openbox runs.
  // The check window appears early in openbox's start-up; its answer to a
  // request says it has reached its event loop (x11_probe.h).
  while (x11_probe::SupportingWmCheckWindow(display_name) == 0 ||
         !x11_probe::WindowManagerAnswers(display_name, 100)) {
    if (!process.Running()) {
      return MakeError(ErrorCode::kUnavailable,
                       "openbox exited during start-up" + LogTail(spawn.log_file));
    }
    if (Left(deadline).count() == 0) {
      return MakeError(ErrorCode::kTimeout, "openbox did not manage the screen within " +
                                                Seconds(options.start_timeout) +
                                                LogTail(spawn.log_file));
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  return process.pid();
}

}  // namespace

nlohmann::json ToJson(const DesktopInfo& info) {
  return nlohmann::json{
      {"id", info.id},
      {"backend", info.backend},
      {"display", info.display},
      {"display_name", info.display_name},
      {"url", info.url},
      {"password_file", info.password_file},
      {"dbus_address", info.dbus_address},
      {"runtime_dir", info.runtime_dir},
      {"xvfb_pid", info.xvfb_pid},
      {"dbus_pid", info.dbus_pid},
      {"wm_pid", info.wm_pid},
      {"width", info.width},
      {"height", info.height},
      {"started_at_ms", info.started_at_ms},
      {"owner_pid", info.owner_pid},
      {"owner_start_time", info.owner_start_time},
      {"alive", info.alive},
      {"problem", info.problem},
  };
}

Result<DesktopInfo> DesktopInfoFromJson(const nlohmann::json& json) {
  // nlohmann::json throws on a missing key or a wrong type; turned into an
  // error here, at the module boundary.
  try {
    DesktopInfo info;
    json.at("id").get_to(info.id);
    json.at("display").get_to(info.display);
    json.at("display_name").get_to(info.display_name);
    json.at("dbus_address").get_to(info.dbus_address);
    json.at("runtime_dir").get_to(info.runtime_dir);
    json.at("xvfb_pid").get_to(info.xvfb_pid);
    json.at("dbus_pid").get_to(info.dbus_pid);
    json.at("wm_pid").get_to(info.wm_pid);
    json.at("width").get_to(info.width);
    json.at("height").get_to(info.height);
    json.at("started_at_ms").get_to(info.started_at_ms);
    // Absent from entries written before owners were recorded.
    info.owner_pid = json.value("owner_pid", 0);
    info.owner_start_time = json.value("owner_start_time", uint64_t{0});
    info.alive = json.value("alive", false);
    info.problem = json.value("problem", "");
    // Absent from entries written before remote sessions existed.
    info.backend = json.value("backend", "x11");
    info.url = json.value("url", "");
    info.password_file = json.value("password_file", "");
    if (info.backend != "x11" && info.backend != "vnc") {
      return MakeError(ErrorCode::kInvalidArgument,
                       "unknown session backend '" + info.backend + "'");
    }
    if (!ValidSessionId(info.id)) {
      return MakeError(ErrorCode::kInvalidArgument, "invalid session id '" + info.id + "'");
    }
    return info;
  } catch (const nlohmann::json::exception& e) {
    return MakeError(ErrorCode::kInvalidArgument,
                     std::string("malformed session record: ") + e.what());
  }
}

std::vector<std::pair<std::string, std::string>> SessionEnvironment(const DesktopInfo& info) {
  std::vector<std::pair<std::string, std::string>> env = {
      {"DISPLAY", info.display_name},
      {"DBUS_SESSION_BUS_ADDRESS", info.dbus_address},
      {"XDG_RUNTIME_DIR", info.runtime_dir},
      {"UISCOPE_SESSION", info.id},
      {"GDK_BACKEND", "x11"},
      {"QT_QPA_PLATFORM", "xcb"},
  };
  // What each toolkit needs to talk AT-SPI lives in one place (a11y_env.h).
  static const bool libreoffice_gtk3 = LibreOfficeGtk3Installed();
  for (auto& entry : AccessibilityEnvironment(libreoffice_gtk3)) env.push_back(std::move(entry));
  return env;
}

std::vector<std::string> SessionUnsetEnvironment() {
  std::vector<std::string> names = AccessibilityUnsetEnvironment();
  names.insert(names.end(), {"WAYLAND_DISPLAY", "XAUTHORITY"});
  return names;
}

void ApplySessionEnvironment(const DesktopInfo& info, SpawnOptions* options) {
  for (auto& name : SessionUnsetEnvironment()) {
    options->unset_env.push_back(std::move(name));
  }
  for (auto& entry : SessionEnvironment(info)) {
    options->env.push_back(std::move(entry));
  }
  // Not in SessionEnvironment(): a person's shell that `eval`s it is not
  // something uiscope started (launch_marks.h).
  options->env.emplace_back(kLaunchedEnv, info.id.empty() ? "session" : info.id);
}

Result<std::unique_ptr<HeadlessDesktop>> HeadlessDesktop::Start(const DesktopOptions& options) {
  if (options.width < 1 || options.height < 1 || options.width > 16384 || options.height > 16384) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "screen size must be between 1x1 and 16384x16384");
  }
  if (options.depth != 8 && options.depth != 16 && options.depth != 24) {
    return MakeError(ErrorCode::kInvalidArgument, "screen depth must be 8, 16 or 24");
  }
  const auto deadline = Clock::now() + options.start_timeout;
  auto runtime_dir = MakeRuntimeDir();
  if (!runtime_dir.ok()) return runtime_dir.error();

  // Until the desktop object exists, a failure unwinds through here: the
  // Process destructors stop what was started, then the runtime dir goes.
  std::vector<std::unique_ptr<Process>> processes;
  DesktopInfo info;
  info.runtime_dir = *runtime_dir;
  info.width = options.width;
  info.height = options.height;
  info.owner_pid = getpid();
  if (auto self = ReadProcess(info.owner_pid)) info.owner_start_time = self->start_time;
  std::unique_ptr<SessionReaper> reaper;
  auto fail = [&](Error error) -> Result<std::unique_ptr<HeadlessDesktop>> {
    // The dbus daemon forked away from its Process; stop it by pid.
    processes.clear();
    Status ignored = StopDesktop(info);
    (void)ignored;
    if (reaper) reaper->Dismiss();
    return error;
  };
  // Started first, so that a desktop whose owner dies half-way through the
  // start-up is stopped too; told about each part as it comes up.
  auto started_reaper = SessionReaper::Start(info.runtime_dir);
  if (!started_reaper.ok()) return fail(started_reaper.error());
  reaper = std::move(started_reaper).value();
  auto watch = [&](int member) -> Status {
    if (member > 0) {
      if (Status recorded = RecordSessionMember(info, member); !recorded.ok()) return recorded;
    }
    return reaper->Watch(info);
  };
  if (Status watched = watch(0); !watched.ok()) return fail(watched.error());

  auto display = StartXvfb(options, info.runtime_dir, deadline, &processes);
  if (!display.ok()) return fail(display.error());
  info.display = *display;
  info.display_name = ":" + std::to_string(*display);
  info.xvfb_pid = processes.back()->pid();
  if (Status watched = watch(info.xvfb_pid); !watched.ok()) return fail(watched.error());

  auto bus = StartSessionBus(options, info.runtime_dir, info.display_name, deadline, &processes);
  if (!bus.ok()) return fail(bus.error());
  info.dbus_address = bus->address;
  info.dbus_pid = bus->pid;
  if (Status watched = watch(info.dbus_pid); !watched.ok()) return fail(watched.error());
  if (options.accessibility) {
    // Apps started without the session's variables (from a terminal of the
    // desktop, a launcher) still switch on: Qt, GTK 4 and Chromium watch
    // org.a11y.Status. D-Bus activation starts the AT-SPI bus launcher here,
    // and the launcher the accessibility bus, before any app can ask.
    const auto left = std::max(Left(deadline), std::chrono::milliseconds(1));
    if (Status enabled = EnableAccessibilityOnBus(info.dbus_address, left); !enabled.ok()) {
      spdlog::warn("session {}: accessibility not switched on for running apps: {}", info.id,
                   enabled.error().message);
    }
  }

  if (options.window_manager) {
    auto wm = StartWindowManager(options, info.runtime_dir, info.display_name, info.dbus_address,
                                 deadline, &processes);
    if (!wm.ok()) return fail(wm.error());
    info.wm_pid = *wm;
    if (Status watched = watch(info.wm_pid); !watched.ok()) return fail(watched.error());
  }

  info.started_at_ms = NowEpochMs();
  info.alive = true;
  Status registered = Register(&info);
  if (!registered.ok()) return fail(registered.error());
  if (Status watched = watch(0); !watched.ok()) return fail(watched.error());

  auto desktop = std::unique_ptr<HeadlessDesktop>(new HeadlessDesktop(info));
  desktop->processes_ = std::move(processes);
  desktop->reaper_ = std::move(reaper);
  spdlog::debug("session {} started on {} (Xvfb {}, dbus {}, openbox {}, reaper {})", info.id,
                info.display_name, info.xvfb_pid, info.dbus_pid, info.wm_pid,
                desktop->reaper_->pid());
  return desktop;
}

HeadlessDesktop::HeadlessDesktop(DesktopInfo info) : info_(std::move(info)) {}

HeadlessDesktop::~HeadlessDesktop() {
  if (detached_) return;
  // A destructor must not throw; only allocation failures could.
  try {
    Status stopped = Stop();
    if (!stopped.ok()) spdlog::warn("{}", stopped.error().ToString());
  } catch (...) {
  }
}

void HeadlessDesktop::Detach() {
  if (detached_ || stopped_) return;
  detached_ = true;
  for (auto& process : processes_) process->Release();
  // The registry first: from here on nobody's exit stops the desktop.
  info_.owner_pid = 0;
  info_.owner_start_time = 0;
  Status updated = Reregister(info_);
  if (!updated.ok()) spdlog::warn("session {}: {}", info_.id, updated.error().message);
  if (reaper_) reaper_->Dismiss();
}

Status HeadlessDesktop::Stop() {
  if (stopped_) return OkStatus();
  stopped_ = true;
  // StopProcesses() signals and reaps our children by pid along with the
  // rest; the Process objects must not signal those pids again afterwards.
  for (auto& process : processes_) process->Release();
  Status status = StopDesktop(info_);
  processes_.clear();
  if (reaper_) reaper_->Dismiss();
  info_.alive = false;
  return status;
}

std::string SessionStateDir() {
  std::string dir = GetEnv("UISCOPE_STATE_DIR");
  if (!dir.empty()) return dir;
  std::string state_home = GetEnv("XDG_STATE_HOME");
  if (!state_home.empty()) return state_home + "/uiscope/sessions";
  std::string home = GetEnv("HOME");
  if (home.empty()) {
    if (const passwd* entry = getpwuid(getuid())) home = entry->pw_dir;
  }
  if (home.empty()) home = "/tmp";
  return home + "/.local/state/uiscope/sessions";
}

Result<std::vector<DesktopInfo>> ListSessions() {
  std::vector<DesktopInfo> sessions;
  const fs::path dir = SessionStateDir();
  std::error_code error;
  if (!fs::exists(dir, error)) return sessions;
  fs::directory_iterator entries(dir, error);
  if (error) {
    return MakeError(ErrorCode::kUnavailable,
                     "cannot read " + dir.string() + ": " + error.message());
  }
  for (const auto& entry : entries) {
    const fs::path& path = entry.path();
    const std::string file = path.filename().string();
    // Dot files are registrations still being written.
    if (file.starts_with(".") || path.extension() != ".json") continue;
    std::ifstream in(path);
    nlohmann::json json = nlohmann::json::parse(in, nullptr, false);
    auto info = json.is_discarded()
                    ? Result<DesktopInfo>(MakeError(ErrorCode::kInvalidArgument, "not JSON"))
                    : DesktopInfoFromJson(json);
    if (!info.ok()) {
      spdlog::warn("skipping session record {}: {}", path.string(), info.error().message);
      continue;
    }
    info->problem = SessionProblem(*info);
    info->alive = info->problem.empty();
    sessions.push_back(std::move(info.value()));
  }
  std::sort(sessions.begin(), sessions.end(), [](const DesktopInfo& a, const DesktopInfo& b) {
    return std::tie(a.display, a.id) < std::tie(b.display, b.id);
  });
  return sessions;
}

Result<DesktopInfo> FindSession(std::string_view id) {
  auto sessions = ListSessions();
  if (!sessions.ok()) return sessions.error();
  std::string ids;
  for (const auto& session : *sessions) {
    if (session.id == id) return session;
    ids += (ids.empty() ? "" : ", ") + session.id;
  }
  std::string message = "no session '" + std::string(id) + "'";
  message += ids.empty() ? "; there are no sessions (start one with `uiscope "
                           "session start`)"
                         : "; existing sessions: " + ids;
  return MakeError(ErrorCode::kNotFound, message);
}

Status StopSession(std::string_view id) {
  auto session = FindSession(id);
  if (!session.ok()) return session.error();
  return StopDesktop(*session);
}

Status StopDesktop(const DesktopInfo& info) {
  if (info.backend == "vnc") {  // detached: nothing of ours runs there
    Unregister(info);
    return OkStatus();
  }
  std::vector<int> survivors = StopProcesses(info);
  RemoveStaleDisplayFiles(info);
  RemoveRuntimeDir(info.runtime_dir);
  Unregister(info);
  if (!survivors.empty()) {
    // Appended piecewise: GCC 12 at -O3 warns falsely (-Wrestrict, GCC bug
    // 105329) on a chain of operator+ here.
    std::string message = "session ";
    message.append(info.id).append(": processes survived SIGKILL:");
    for (int pid : survivors) message.append(" ").append(std::to_string(pid));
    return MakeError(ErrorCode::kInternal, message);
  }
  return OkStatus();
}

Status RegisterRemoteSession(DesktopInfo* info) {
  if (info->backend != "vnc") {
    return MakeError(ErrorCode::kInvalidArgument,
                     "a remote session needs backend vnc, not '" + info->backend + "'");
  }
  if (auto address = RecordedAddress(info->url); !address.ok()) return address.error();
  info->display = -1;
  info->display_name = info->url;
  info->started_at_ms =
      std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  info->alive = true;
  info->problem.clear();
  return RegisterAs(info, [](int attempt) {
    std::string id = "v";  // appended: GCC 12 warns falsely (-Wrestrict) on "v" + ...
    return id.append(std::to_string(attempt));
  });
}

Status RecordSessionMember(const DesktopInfo& info, int pid) {
  if (!IsRuntimeDir(info.runtime_dir)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "session " + info.id + " has no runtime dir to record processes in");
  }
  auto process = ReadProcess(pid);
  if (!process.has_value() || !process->live()) return OkStatus();
  const std::string path = info.runtime_dir + "/" + kMembersFile;
  const std::string line = std::to_string(pid) + " " + std::to_string(process->start_time) + "\n";
  // O_APPEND: one write() of a short line is atomic, so processes recording
  // into the same session at once never interleave.
  int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return MakeError(ErrorCode::kUnavailable, "cannot record pid " + std::to_string(pid) + " in " +
                                                  path + ": " + std::strerror(errno));
  }
  ssize_t written = write(fd, line.data(), line.size());
  int saved = errno;
  close(fd);
  if (written != static_cast<ssize_t>(line.size())) {
    return MakeError(ErrorCode::kUnavailable, "cannot record pid " + std::to_string(pid) + " in " +
                                                  path + ": " + std::strerror(saved));
  }
  return OkStatus();
}

std::vector<int> ListSessionProcesses(const DesktopInfo& info) {
  std::vector<int> result;
  if (!IsRuntimeDir(info.runtime_dir)) return result;
  const std::vector<ProcessEntry> processes = ListProcesses();
  std::map<int, const ProcessEntry*> by_pid;
  for (const ProcessEntry& entry : processes) by_pid[entry.pid] = &entry;

  // Recorded leaders, by session id, with their start time. A leader whose
  // pid now names another process (a later start time) has no members left:
  // the kernel reuses no pid while a process still has it as session id.
  std::map<int, uint64_t> leaders;
  for (const Member& member : ReadMembers(info.runtime_dir)) {
    auto it = by_pid.find(member.pid);
    if (it != by_pid.end() && it->second->start_time != member.start_time) continue;
    leaders[member.pid] = member.start_time;
  }

  // 0: undecided, 1: in the session, 2: not (another session's environment).
  // The session's runtime dir in an environment is no proof on its own: a
  // shell that `eval`ed `session start` passes it to every command a person
  // runs there, and those are not the session's to end.
  std::map<int, int> verdict;
  // The session's runtime dir and uiscope's launch mark in their environment.
  std::vector<const ProcessEntry*> tagged;
  for (const ProcessEntry& entry : processes) {
    if (!entry.live()) continue;
    // Empty when unreadable or overwritten (Chromium's).
    const std::vector<std::string> environment = PidEnvironment(entry.pid);
    const std::optional<std::string> runtime_dir = EnvValue(environment, "XDG_RUNTIME_DIR");
    if (runtime_dir.has_value() && *runtime_dir != info.runtime_dir) {
      verdict[entry.pid] = 2;
      continue;
    }
    if (runtime_dir.has_value() && EnvValue(environment, kLaunchedEnv).has_value()) {
      tagged.push_back(&entry);
    }
    auto recorded = leaders.find(entry.pid);
    auto leader = leaders.find(entry.session);
    const bool member =
        (recorded != leaders.end() && entry.start_time == recorded->second) ||
        (leader != leaders.end() && entry.start_time >= leader->second);
    verdict[entry.pid] = member ? 1 : 0;
  }
  // A daemon that left the session's tree (forked twice and called setsid,
  // as Chromium's crash handler does) is reparented to init or the user's
  // service manager; with the runtime dir and the launch mark in its
  // environment it came from the session. A person's job that outlived the
  // shell that `eval`ed `session start` is reparented the same way, but has
  // no launch mark (session start does not print it): it is not ours to end.
  for (const ProcessEntry* entry : tagged) {
    if (verdict[entry->pid] == 0 &&
        (entry->parent <= 1 || PidProgramName(entry->parent) == "systemd")) {
      verdict[entry->pid] = 1;
    }
  }
  // Descendants of members (with no environment of their own to say).
  for (const ProcessEntry& entry : processes) {
    if (!entry.live() || verdict[entry.pid] != 0) continue;
    int ancestor = entry.parent;
    for (int depth = 0; depth < kMaxAncestry && ancestor > 1; ++depth) {
      auto it = verdict.find(ancestor);
      if (it != verdict.end() && it->second != 0) {
        if (it->second == 1) verdict[entry.pid] = 1;
        break;
      }
      auto parent = by_pid.find(ancestor);
      if (parent == by_pid.end()) break;
      ancestor = parent->second->parent;
    }
  }
  for (const auto& [pid, in_session] : verdict) {
    if (in_session == 1) result.push_back(pid);
  }
  return result;
}

Result<std::unique_ptr<Process>> SpawnInSession(const DesktopInfo& info, SpawnOptions options) {
  ApplySessionEnvironment(info, &options);
  // Its own process session: the id every descendant inherits is the
  // marker that finds them when their environment cannot be read.
  options.new_session = true;
  auto process = Process::Spawn(options);
  if (!process.ok()) return process.error();
  if (Status recorded = RecordSessionMember(info, (*process)->pid()); !recorded.ok()) {
    Status ignored = (*process)->Terminate();
    (void)ignored;
    return recorded.error();
  }
  return process;
}

}  // namespace uiscope
