#include "session/reaper.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string_view>

namespace uiscope {
namespace {

using std::chrono::milliseconds;

constexpr char kReaperVariable[] = "UISCOPE_SESSION_REAPER";
constexpr char kReaperName[] = "uiscope-session-reaper";
constexpr std::string_view kWatch = "watch ";
constexpr std::string_view kDismiss = "dismiss";

// The session of the last "watch" line. Before registration it has no id
// yet, which DesktopInfoFromJson() (made for registry entries) refuses.
Result<DesktopInfo> ParseWatched(nlohmann::json json) {
  const bool unregistered = json.value("id", "").empty();
  if (unregistered) json["id"] = "unregistered";
  auto info = DesktopInfoFromJson(json);
  if (info.ok() && unregistered) info->id.clear();
  return info;
}

// The reaper's whole life: wait for end of file on stdin (the owner is
// gone), then stop what the last "watch" line described.
int RunReaper() {
  // Its own session already keeps terminal signals away; a hangup of the
  // owner's terminal must not end it before it has done its job.
  signal(SIGHUP, SIG_IGN);
  signal(SIGINT, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
  std::string buffer;
  std::string watched;
  char chunk[4096];
  while (true) {
    ssize_t n = read(STDIN_FILENO, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // end of file: every copy of the write end is closed
    buffer.append(chunk, static_cast<size_t>(n));
    for (size_t newline; (newline = buffer.find('\n')) != std::string::npos;) {
      std::string line = buffer.substr(0, newline);
      buffer.erase(0, newline + 1);
      if (line == kDismiss) return 0;
      if (line.starts_with(kWatch)) watched = line.substr(kWatch.size());
    }
  }
  if (watched.empty()) return 0;
  nlohmann::json message = nlohmann::json::parse(watched, nullptr, false);
  if (message.is_discarded() || !message.is_object() || !message.contains("info")) {
    std::cerr << kReaperName << ": unreadable session description: " << watched << "\n";
    return 1;
  }
  auto info = ParseWatched(message["info"]);
  if (!info.ok()) {
    std::cerr << kReaperName << ": " << info.error().ToString() << "\n";
    return 1;
  }
  // The registry the owner used, whatever this process's environment says.
  const std::string state_dir = message.value("state_dir", "");
  if (!state_dir.empty()) setenv("UISCOPE_STATE_DIR", state_dir.c_str(), 1);
  std::cerr << kReaperName << ": the owner (pid " << info->owner_pid
            << ") is gone; stopping session " << (info->id.empty() ? "(starting)" : info->id)
            << "\n";
  Status stopped = StopDesktop(*info);
  if (!stopped.ok()) {
    std::cerr << kReaperName << ": " << stopped.error().ToString() << "\n";
    return 1;
  }
  return 0;
}

// Runs before main() in every program that links this file (see reaper.h);
// does nothing unless this process was started as a reaper. glibc runs
// ELF constructors after the environment is set up.
__attribute__((constructor)) void RunReaperIfAsked() {
  const char* role = std::getenv(kReaperVariable);
  if (role == nullptr || std::string_view(role) != "1") return;
  unsetenv(kReaperVariable);
  int code = 1;
  try {
    code = RunReaper();
  } catch (const std::exception& e) {
    std::cerr << kReaperName << ": " << e.what() << "\n";
  }
  std::cerr.flush();
  // Not exit(): the program's static objects were never meant to run here.
  _exit(code);
}

}  // namespace

Result<std::unique_ptr<SessionReaper>> SessionReaper::Start(const std::string& runtime_dir) {
  SpawnOptions options;
  options.executable = "/proc/self/exe";
  options.argv = {kReaperName, runtime_dir};
  options.env = {{kReaperVariable, "1"}};
  options.pipe_stdin = true;
  // Own session and process group (the default): a Ctrl-C at the owner's
  // terminal must not end the reaper along with its owner.
  options.new_session = true;
  options.log_file = runtime_dir + "/reaper.log";
  auto process = Process::Spawn(options);
  if (!process.ok()) {
    return MakeError(process.error().code,
                     "cannot start the session reaper: " + process.error().message);
  }
  return std::unique_ptr<SessionReaper>(new SessionReaper(std::move(process).value()));
}

SessionReaper::SessionReaper(std::unique_ptr<Process> process) : process_(std::move(process)) {}

SessionReaper::~SessionReaper() { Dismiss(); }

Status SessionReaper::Watch(const DesktopInfo& info) {
  nlohmann::json message = {{"info", ToJson(info)}, {"state_dir", SessionStateDir()}};
  return process_->WriteLine(std::string(kWatch) + message.dump());
}

void SessionReaper::Dismiss() {
  if (dismissed_) return;
  dismissed_ = true;
  Status ignored = process_->WriteLine(kDismiss);
  (void)ignored;
  process_->CloseStdin();
  if (!process_->Wait(milliseconds(2000)).ok()) {
    ignored = process_->Terminate(milliseconds(500));
  }
}

}  // namespace uiscope
