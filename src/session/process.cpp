#include "session/process.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <memory>
#include <thread>

namespace uiscope {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::string ErrnoText(int error) { return std::strerror(error); }

// Owns a file descriptor; the session module's only raw fd holder.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { Reset(); }
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.Release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = other.Release();
    }
    return *this;
  }
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int Release() { return std::exchange(fd_, -1); }
  void Reset() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

// Re-homes `fd` at 3 or above (close-on-exec), so that dup2()ing it onto
// 0/1/2 in the child can never clobber another source descriptor. This
// happens when the parent runs with stdin or stdout closed.
Result<UniqueFd> AboveStdio(UniqueFd fd) {
  if (fd.get() > STDERR_FILENO) return fd;
  int moved = fcntl(fd.get(), F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
  if (moved < 0) {
    return MakeError(ErrorCode::kInternal, "fcntl(F_DUPFD): " + ErrnoText(errno));
  }
  return UniqueFd(moved);
}

Result<std::pair<UniqueFd, UniqueFd>> MakePipe() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return MakeError(ErrorCode::kInternal, "pipe2: " + ErrnoText(errno));
  }
  UniqueFd read_end(fds[0]);
  UniqueFd write_end(fds[1]);
  auto read_moved = AboveStdio(std::move(read_end));
  if (!read_moved.ok()) return read_moved.error();
  auto write_moved = AboveStdio(std::move(write_end));
  if (!write_moved.ok()) return write_moved.error();
  return std::make_pair(std::move(read_moved.value()), std::move(write_moved.value()));
}

std::optional<std::string> ReadSmallFile(const std::string& path) {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return std::nullopt;
  std::string data;
  char buffer[4096];
  while (true) {
    ssize_t n = read(fd.get(), buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    data.append(buffer, static_cast<size_t>(n));
  }
  return data;
}

std::vector<std::string> SplitNul(const std::string& data) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start < data.size()) {
    size_t end = data.find('\0', start);
    if (end == std::string::npos) end = data.size();
    parts.push_back(data.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// /proc/PID/stat is "pid (comm) S ppid pgrp session ... starttime ...": comm
// may contain spaces and parentheses, so fields are counted from the last
// ')'. proc(5) numbers them; starttime is field 22.
std::optional<ProcessEntry> ReadStat(int pid) {
  if (pid <= 0) return std::nullopt;
  auto text = ReadSmallFile("/proc/" + std::to_string(pid) + "/stat");
  if (!text.has_value()) return std::nullopt;
  size_t paren = text->rfind(')');
  if (paren == std::string::npos) return std::nullopt;
  ProcessEntry entry;
  entry.pid = pid;
  unsigned long long start_time = 0;
  if (std::sscanf(text->c_str() + paren + 1,
                  " %c %d %d %d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
                  &entry.state, &entry.parent, &entry.group, &entry.session, &start_time) != 5) {
    return std::nullopt;
  }
  entry.start_time = start_time;
  return entry;
}

// Calls `visit` with every numeric entry of /proc.
template <typename Visit>
void ForEachPid(Visit visit) {
  struct DirCloser {
    void operator()(DIR* dir) const { closedir(dir); }
  };
  std::unique_ptr<DIR, DirCloser> proc(opendir("/proc"));
  if (!proc) return;
  while (dirent* entry = readdir(proc.get())) {
    char* end = nullptr;
    long pid = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || pid <= 0 || pid > INT_MAX) continue;
    visit(static_cast<int>(pid));
  }
}

// The environment the child will get: ours, minus `unset`, with `overrides`
// replacing or adding entries.
std::vector<std::string> ChildEnvironment(const SpawnOptions& options) {
  auto name_of = [](std::string_view entry) { return entry.substr(0, entry.find('=')); };
  auto dropped = [&](std::string_view name) {
    for (const auto& unset : options.unset_env) {
      if (unset == name) return true;
    }
    for (const auto& [key, value] : options.env) {
      if (key == name) return true;
    }
    return false;
  };
  std::vector<std::string> result;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    if (!dropped(name_of(text))) result.emplace_back(text);
  }
  for (const auto& variable : options.env) {
    // A later override of the same name wins, as with setenv().
    std::erase_if(result,
                  [&](const std::string& entry) { return name_of(entry) == variable.first; });
    result.push_back(variable.first + "=" + variable.second);
  }
  return result;
}

std::string LookupEnv(const std::vector<std::string>& env, std::string_view name) {
  for (const auto& entry : env) {
    if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 &&
        entry[name.size()] == '=') {
      return entry.substr(name.size() + 1);
    }
  }
  return "";
}

bool IsExecutableFile(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && access(path.c_str(), X_OK) == 0;
}

// Resolved in the parent (not with execvp in the child) so that "not found"
// is an ordinary error with the binary's name, and so the child's PATH, not
// ours, is searched.
Result<std::string> ResolveExecutable(const std::string& name, const std::string& path_variable) {
  if (name.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "empty program name");
  }
  if (name.find('/') != std::string::npos) {
    if (access(name.c_str(), F_OK) != 0) {
      return MakeError(ErrorCode::kNotFound, name + " not found");
    }
    return name;
  }
  // A std::string, not a view: the conditional yields a temporary string.
  const std::string path = path_variable.empty() ? "/usr/local/bin:/usr/bin:/bin" : path_variable;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    // Built with append(): GCC 12 at -O3 warns falsely (-Wrestrict, GCC bug
    // 105329) on the equivalent `dir + "/" + name`.
    std::string candidate = end > start ? path.substr(start, end - start) : ".";
    candidate.append("/").append(name);
    if (IsExecutableFile(candidate)) return candidate;
    start = end + 1;
  }
  return MakeError(ErrorCode::kNotFound, name + " not found in PATH");
}

// Reports errno to the parent through the close-on-exec pipe and exits.
[[noreturn]] void ChildFail(int error_fd) {
  int error = errno;
  ssize_t ignored = write(error_fd, &error, sizeof(error));
  (void)ignored;
  _exit(127);
}

// In the forked child only: async-signal-safe calls, no allocation.
[[noreturn]] void ExecChild(const char* path, char* const* argv, char* const* envp, int stdin_fd,
                            int stdout_fd, int stderr_fd, int error_fd, bool new_session,
                            const char* working_dir) {
  auto fail = [error_fd]() { ChildFail(error_fd); };
  if (new_session && setsid() < 0) fail();
  // Ignored signals stay ignored across exec (our caller may ignore SIGPIPE);
  // blocked ones stay blocked. The child must start like from a shell.
  struct sigaction default_action;
  std::memset(&default_action, 0, sizeof(default_action));
  default_action.sa_handler = SIG_DFL;
  for (int signal_number = 1; signal_number < NSIG; ++signal_number) {
    if (signal_number == SIGKILL || signal_number == SIGSTOP) continue;
    sigaction(signal_number, &default_action, nullptr);
  }
  sigset_t empty;
  sigemptyset(&empty);
  sigprocmask(SIG_SETMASK, &empty, nullptr);

  if (dup2(stdin_fd, STDIN_FILENO) < 0) fail();
  if (dup2(stdout_fd, STDOUT_FILENO) < 0) fail();
  if (dup2(stderr_fd, STDERR_FILENO) < 0) fail();
  // Everything else closes at exec, including descriptors other modules
  // opened without O_CLOEXEC (an X connection would otherwise leak into
  // Xvfb's children). The error pipe, too, closes at a successful exec.
  bool marked = false;
#ifdef SYS_close_range
  marked = syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */) == 0;
#endif
  if (!marked) {  // kernels before 5.11
    long max_fd = sysconf(_SC_OPEN_MAX);
    if (max_fd < 0 || max_fd > 65536) max_fd = 65536;
    for (int fd = 3; fd < max_fd; ++fd) {
      fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
  }
  if (working_dir != nullptr && chdir(working_dir) != 0) fail();
  execve(path, argv, envp);
  ChildFail(error_fd);
}

int OpenPidFd(int pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#else
  return -1;
#endif
}

int StatusToExitCode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

int MillisLeft(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::clamp<int64_t>(left.count(), 0, INT_MAX));
}

}  // namespace

Result<std::unique_ptr<Process>> Process::Spawn(const SpawnOptions& options) {
  if (options.argv.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "Spawn: empty argv");
  }
  const std::string& program = options.argv[0];
  std::vector<std::string> env = ChildEnvironment(options);
  auto path = ResolveExecutable(options.executable.empty() ? program : options.executable,
                                LookupEnv(env, "PATH"));
  if (!path.ok()) return path.error();

  // Everything the child needs is prepared before fork(): after it, only
  // async-signal-safe calls are allowed (the parent may have threads).
  std::vector<char*> argv_pointers;
  for (const auto& arg : options.argv) {
    argv_pointers.push_back(const_cast<char*>(arg.c_str()));
  }
  argv_pointers.push_back(nullptr);
  std::vector<char*> env_pointers;
  for (const auto& entry : env) {
    env_pointers.push_back(const_cast<char*>(entry.c_str()));
  }
  env_pointers.push_back(nullptr);

  auto error_pipe = MakePipe();
  if (!error_pipe.ok()) return error_pipe.error();
  UniqueFd stdin_parent, stdin_child, stdout_parent, stdout_child;
  if (options.pipe_stdin) {
    auto pipe = MakePipe();
    if (!pipe.ok()) return pipe.error();
    stdin_child = std::move(pipe->first);
    stdin_parent = std::move(pipe->second);
  } else {
    auto null_fd = AboveStdio(UniqueFd(open("/dev/null", O_RDONLY | O_CLOEXEC)));
    if (!null_fd.ok() || !null_fd->valid()) {
      return MakeError(ErrorCode::kInternal, "cannot open /dev/null");
    }
    stdin_child = std::move(null_fd.value());
  }
  const std::string log_path = options.log_file.empty() ? "/dev/null" : options.log_file;
  // O_NOFOLLOW and 0600: a log holds what the app prints (documents' text,
  // tokens), and a link planted at its name must not redirect it.
  UniqueFd log_fd(
      open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!log_fd.valid()) {
    return MakeError(ErrorCode::kUnavailable,
                     "cannot open log file " + log_path + ": " + ErrnoText(errno));
  }
  auto log_moved = AboveStdio(std::move(log_fd));
  if (!log_moved.ok()) return log_moved.error();
  log_fd = std::move(log_moved.value());
  if (options.capture_stdout) {
    auto pipe = MakePipe();
    if (!pipe.ok()) return pipe.error();
    stdout_parent = std::move(pipe->first);
    stdout_child = std::move(pipe->second);
    // ReadLine() polls with a deadline; a read must never block past it.
    fcntl(stdout_parent.get(), F_SETFL, fcntl(stdout_parent.get(), F_GETFL) | O_NONBLOCK);
  }
  const int stdout_target = options.capture_stdout ? stdout_child.get() : log_fd.get();
  const char* working_dir = options.working_dir.empty() ? nullptr : options.working_dir.c_str();

  pid_t pid = fork();
  if (pid < 0) {
    return MakeError(ErrorCode::kInternal, "fork: " + ErrnoText(errno));
  }
  if (pid == 0) {
    ExecChild(path->c_str(), argv_pointers.data(), env_pointers.data(), stdin_child.get(),
              stdout_target, log_fd.get(), error_pipe->second.get(), options.new_session,
              working_dir);
  }

  // Parent: the write end must be closed before reading, or read() would
  // never see end of file.
  error_pipe->second.Reset();
  stdin_child.Reset();
  stdout_child.Reset();
  log_fd.Reset();
  int child_errno = 0;
  ssize_t n;
  do {
    n = read(error_pipe->first.get(), &child_errno, sizeof(child_errno));
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof(child_errno))) {
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return MakeError(ErrorCode::kUnavailable,
                     "cannot execute " + *path + ": " + ErrnoText(child_errno));
  }
  return std::unique_ptr<Process>(new Process(pid, program, stdin_parent.Release(),
                                              stdout_parent.Release(), options.new_session));
}

Process::Process(int pid, std::string name, int stdin_fd, int stdout_fd, bool own_group)
    : pid_(pid),
      name_(std::move(name)),
      stdin_fd_(stdin_fd),
      stdout_fd_(stdout_fd),
      own_group_(own_group) {
  pidfd_ = OpenPidFd(pid);
}

Process::~Process() {
  if (!released_) {
    Status ignored = Terminate();
    (void)ignored;
  }
  CloseFds();
  if (pidfd_ >= 0) close(pidfd_);
}

void Process::CloseFds() {
  CloseStdin();
  if (stdout_fd_ >= 0) close(stdout_fd_);
  stdout_fd_ = -1;
}

void Process::CloseStdin() {
  if (stdin_fd_ >= 0) close(stdin_fd_);
  stdin_fd_ = -1;
}

void Process::Release() { released_ = true; }

bool Process::Poll() {
  if (exit_code_.has_value()) return true;
  int status = 0;
  pid_t result;
  do {
    result = waitpid(pid_, &status, WNOHANG);
  } while (result < 0 && errno == EINTR);
  if (result == pid_) {
    exit_code_ = StatusToExitCode(status);
    return true;
  }
  if (result < 0 && errno == ECHILD) {
    // Someone else reaped it (TerminatePids() of a session stop): it is gone
    // and its status is lost.
    exit_code_ = -1;
    return true;
  }
  return false;
}

bool Process::Running() { return !Poll(); }

Result<int> Process::Wait(milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!Poll()) {
    int left = MillisLeft(deadline);
    if (left <= 0) {
      return MakeError(ErrorCode::kTimeout, name_ + " (pid " + std::to_string(pid_) +
                                                ") still running after " +
                                                std::to_string(timeout.count()) + " ms");
    }
    if (pidfd_ >= 0) {
      // Readable once the child has exited; no busy polling.
      pollfd entry{pidfd_, POLLIN, 0};
      poll(&entry, 1, left);
    } else {
      std::this_thread::sleep_for(milliseconds(std::min(left, 5)));
    }
  }
  return *exit_code_;
}

void Process::SignalChild(int signal_number) {
  if (exit_code_.has_value()) {
    // The leader is reaped; stragglers of its group may remain. The kernel
    // does not reuse a pid while it names a live process group.
    if (own_group_) kill(-pid_, signal_number);
    return;
  }
  if (own_group_ && kill(-pid_, signal_number) == 0) return;
  kill(pid_, signal_number);
}

Status Process::Terminate(milliseconds grace) {
  const auto deadline = Clock::now() + grace;
  if (!Poll()) {
    SignalChild(SIGTERM);
    SignalChild(SIGCONT);  // a stopped child acts on SIGTERM only once continued
  }
  auto waited = Wait(milliseconds(MillisLeft(deadline)));
  if (waited.ok() && own_group_) {
    // Give the rest of the group (children of a shell, say) the remaining
    // grace to follow, then kill what is left.
    while (ProcessGroupAlive(pid_) && MillisLeft(deadline) > 0) {
      std::this_thread::sleep_for(milliseconds(10));
    }
  }
  SignalChild(SIGKILL);
  if (!waited.ok()) {
    auto killed = Wait(milliseconds(2000));
    if (!killed.ok()) {
      return MakeError(ErrorCode::kInternal,
                       name_ + " (pid " + std::to_string(pid_) + ") did not exit after SIGKILL");
    }
  }
  if (own_group_) {
    // SIGKILL is delivered asynchronously: the rest of the group may take a
    // moment to die after the leader was reaped.
    const auto kill_deadline = Clock::now() + milliseconds(1000);
    while (ProcessGroupAlive(pid_) && MillisLeft(kill_deadline) > 0) {
      std::this_thread::sleep_for(milliseconds(5));
    }
  }
  return OkStatus();
}

Result<std::string> Process::ReadLine(milliseconds timeout) {
  if (stdout_fd_ < 0 && read_buffer_.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, name_ + ": stdout is not captured");
  }
  const auto deadline = Clock::now() + timeout;
  while (true) {
    size_t newline = read_buffer_.find('\n');
    if (newline != std::string::npos) {
      std::string line = read_buffer_.substr(0, newline);
      read_buffer_.erase(0, newline + 1);
      return line;
    }
    if (stdout_eof_) {
      if (!read_buffer_.empty()) return std::exchange(read_buffer_, "");
      return MakeError(ErrorCode::kUnavailable,
                       name_ + " (pid " + std::to_string(pid_) + ") closed its stdout (exited?)");
    }
    int left = MillisLeft(deadline);
    pollfd entry{stdout_fd_, POLLIN, 0};
    int ready = poll(&entry, 1, left);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) {
      return MakeError(ErrorCode::kInternal, "poll: " + ErrnoText(errno));
    }
    if (ready == 0) {
      return MakeError(ErrorCode::kTimeout,
                       name_ + " wrote no line within " + std::to_string(timeout.count()) + " ms");
    }
    char buffer[4096];
    ssize_t n = read(stdout_fd_, buffer, sizeof(buffer));
    if (n > 0) {
      read_buffer_.append(buffer, static_cast<size_t>(n));
    } else if (n == 0) {
      stdout_eof_ = true;
    } else if (errno != EINTR && errno != EAGAIN) {
      return MakeError(ErrorCode::kInternal, "read from " + name_ + ": " + ErrnoText(errno));
    }
  }
}

Status Process::WriteLine(std::string_view line) {
  if (stdin_fd_ < 0) {
    return MakeError(ErrorCode::kInvalidArgument, name_ + ": stdin is not piped (or was closed)");
  }
  std::string data(line);
  data.push_back('\n');

  // Block SIGPIPE on this thread instead of ignoring it process-wide; if the
  // write raises one, consume it before unblocking (the technique of
  // OpenSSL's and libcurl's socket code).
  sigset_t pipe_set, old_set, pending;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;

  int error = 0;
  size_t written = 0;
  while (written < data.size()) {
    ssize_t n = write(stdin_fd_, data.data() + written, data.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      error = errno;
      break;
    }
    written += static_cast<size_t>(n);
  }
  if (error == EPIPE && !was_pending) {
    timespec zero{0, 0};
    while (sigtimedwait(&pipe_set, nullptr, &zero) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_set, nullptr);

  if (error == EPIPE) {
    return MakeError(ErrorCode::kUnavailable,
                     name_ + " (pid " + std::to_string(pid_) + ") closed its stdin (exited?)");
  }
  if (error != 0) {
    return MakeError(ErrorCode::kInternal, "write to " + name_ + ": " + ErrnoText(error));
  }
  return OkStatus();
}

std::string FileTail(const std::string& path, size_t max_lines) {
  std::ifstream in(path);
  std::deque<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    lines.push_back(std::move(line));
    if (lines.size() > max_lines) lines.pop_front();
  }
  std::string tail;
  for (const auto& kept : lines) tail += "\n  " + kept;
  return tail;
}

bool PidAlive(int pid) {
  if (pid <= 0) return false;
  if (kill(pid, 0) != 0 && errno != EPERM) return false;
  auto stat = ReadStat(pid);
  // kill() saw it; no stat means it exited in between.
  return stat.has_value() && stat->live();
}

std::string PidCmdline(int pid) {
  if (pid <= 0) return "";
  auto data = ReadSmallFile("/proc/" + std::to_string(pid) + "/cmdline");
  if (!data.has_value()) return "";
  std::string joined;
  for (const auto& part : SplitNul(*data)) {
    if (!joined.empty()) joined.push_back(' ');
    joined += part;
  }
  return joined;
}

std::string PidProgramName(int pid) {
  if (pid <= 0) return "";
  auto data = ReadSmallFile("/proc/" + std::to_string(pid) + "/cmdline");
  if (!data.has_value() || data->empty()) return "";
  std::string argv0 = data->substr(0, data->find('\0'));
  size_t slash = argv0.rfind('/');
  return slash == std::string::npos ? argv0 : argv0.substr(slash + 1);
}

void ReapIfExited(int pid) {
  if (pid <= 0) return;
  int status;
  while (waitpid(pid, &status, WNOHANG) < 0 && errno == EINTR) {
  }
}

int PidParent(int pid) {
  auto stat = ReadStat(pid);
  return stat.has_value() ? stat->parent : 0;
}

bool ProcessGroupAlive(int pgid) {
  if (pgid <= 0) return false;
  // kill(-pgid, 0) is cheaper but also counts zombies, which linger for as
  // long as their (new) parent does not reap them; an init that reaps
  // lazily would then make a dead group look alive.
  if (kill(-pgid, 0) != 0 && errno != EPERM) return false;
  bool alive = false;
  ForEachPid([&](int pid) {
    if (alive) return;
    auto stat = ReadStat(pid);
    alive = stat.has_value() && stat->group == pgid && stat->live();
  });
  return alive;
}

std::optional<ProcessEntry> ReadProcess(int pid) { return ReadStat(pid); }

std::vector<ProcessEntry> ListProcesses() {
  std::vector<ProcessEntry> entries;
  ForEachPid([&](int pid) {
    if (auto stat = ReadStat(pid)) entries.push_back(*stat);
  });
  return entries;
}

std::vector<std::string> PidEnvironment(int pid) {
  if (pid <= 0) return {};
  auto data = ReadSmallFile("/proc/" + std::to_string(pid) + "/environ");
  if (!data.has_value()) return {};
  return SplitNul(*data);
}

std::vector<int> PidsWithEnvironment(std::string_view name, std::string_view value) {
  std::string wanted = std::string(name) + "=" + std::string(value);
  std::vector<int> pids;
  ForEachPid([&](int pid) {
    for (const auto& variable : PidEnvironment(pid)) {
      if (variable == wanted) {
        if (PidAlive(pid)) pids.push_back(pid);
        break;
      }
    }
  });
  return pids;
}

std::vector<int> TerminatePids(const std::vector<int>& pids, milliseconds grace) {
  auto still_alive = [](const std::vector<int>& candidates) {
    std::vector<int> alive;
    for (int pid : candidates) {
      ReapIfExited(pid);
      if (PidAlive(pid)) alive.push_back(pid);
    }
    return alive;
  };
  auto wait_all = [&](std::vector<int> remaining, milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    remaining = still_alive(remaining);
    while (!remaining.empty() && MillisLeft(deadline) > 0) {
      std::this_thread::sleep_for(milliseconds(10));
      remaining = still_alive(remaining);
    }
    return remaining;
  };
  std::vector<int> remaining = still_alive(pids);
  for (int pid : remaining) {
    kill(pid, SIGTERM);
    // A stopped process (state T: SIGSTOP, a debugger, Ctrl-Z) keeps SIGTERM
    // pending until it is continued; SIGKILL alone would end it, but only
    // after the whole grace period and without a chance to clean up.
    kill(pid, SIGCONT);
  }
  remaining = wait_all(std::move(remaining), grace);
  for (int pid : remaining) kill(pid, SIGKILL);
  return wait_all(std::move(remaining), milliseconds(1000));
}

}  // namespace uiscope
