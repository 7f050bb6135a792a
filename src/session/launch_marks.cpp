#include "session/launch_marks.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "session/headless_desktop.h"
#include "session/process.h"

namespace uiscope {
namespace {

constexpr int kMaxAncestry = 64;
// Past this size the records of processes that are gone are dropped.
constexpr off_t kPruneBytes = 16 * 1024;

struct Record {
  int pid = 0;
  uint64_t start_time = 0;
};

std::vector<Record> ParseRecords(const std::string& text) {
  std::vector<Record> records;
  std::istringstream in(text);
  Record r;
  while (in >> r.pid >> r.start_time) {
    if (r.pid > 0) records.push_back(r);
  }
  return records;
}

std::string ReadAll(int fd) {
  std::string text;
  char buf[4096];
  ::lseek(fd, 0, SEEK_SET);
  for (ssize_t n; (n = ::read(fd, buf, sizeof(buf))) > 0;) text.append(buf, static_cast<size_t>(n));
  return text;
}

bool StillRuns(const Record& r) {
  auto p = ReadProcess(r.pid);
  return p.has_value() && p->live() && p->start_time == r.start_time;
}

// The records, by pid.
std::map<int, uint64_t> ReadRecords() {
  std::map<int, uint64_t> by_pid;
  const int fd = ::open(LaunchRecordPath().c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return by_pid;
  for (const Record& r : ParseRecords(ReadAll(fd))) by_pid[r.pid] = r.start_time;
  ::close(fd);
  return by_pid;
}

bool HasMark(int pid) {
  const std::string prefix = std::string(kLaunchedEnv) + "=";
  for (const std::string& entry : PidEnvironment(pid)) {
    if (entry.starts_with(prefix)) return true;
  }
  return false;
}

}  // namespace

std::string LaunchRecordPath() { return SessionStateDir() + "/launched"; }

Status RecordLaunched(int pid) {
  // A launcher that already exited is recorded while it is a zombie: what
  // it forked keeps its pid as process session id.
  auto process = ReadProcess(pid);
  if (!process.has_value()) return OkStatus();
  const std::string path = LaunchRecordPath();
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    return MakeError(ErrorCode::kUnavailable, "cannot record pid " + std::to_string(pid) +
                                                  " in " + path + ": " + std::strerror(errno));
  }
  ::flock(fd, LOCK_EX);
  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_size > kPruneBytes) {
    std::string kept;
    for (const Record& r : ParseRecords(ReadAll(fd))) {
      if (StillRuns(r)) kept += std::to_string(r.pid) + " " + std::to_string(r.start_time) + "\n";
    }
    if (::ftruncate(fd, 0) == 0 && !kept.empty()) {
      (void)!::write(fd, kept.data(), kept.size());
    }
  }
  const std::string line = std::to_string(pid) + " " + std::to_string(process->start_time) + "\n";
  const ssize_t written = ::write(fd, line.data(), line.size());
  const int saved = errno;
  ::flock(fd, LOCK_UN);
  ::close(fd);
  if (written != static_cast<ssize_t>(line.size())) {
    return MakeError(ErrorCode::kUnavailable, "cannot record pid " + std::to_string(pid) +
                                                  " in " + path + ": " + std::strerror(saved));
  }
  return OkStatus();
}

std::string LaunchOrigin::Describe() const {
  const std::string name = PidProgramName(pid);
  return "pid " + std::to_string(pid) + (name.empty() ? "" : " (" + name + ")") + ": " + how;
}

std::optional<LaunchOrigin> FindLaunchOrigin(int pid) {
  const std::map<int, uint64_t> records = ReadRecords();
  // Read lazily: listing a session's processes reads all of /proc.
  std::optional<std::map<int, std::string>> session_of;
  auto in_session = [&](int p) -> std::string {
    if (!session_of) {
      session_of.emplace();
      if (auto sessions = ListSessions(); sessions.ok()) {
        for (const DesktopInfo& s : *sessions) {
          if (s.backend != "x11") continue;
          for (int member : ListSessionProcesses(s)) (*session_of)[member] = s.id;
        }
      }
    }
    auto it = session_of->find(p);
    return it == session_of->end() ? "" : it->second;
  };
  std::set<int> seen;
  for (int depth = 0; depth < kMaxAncestry && pid > 0 && seen.insert(pid).second; ++depth) {
    const auto entry = ReadProcess(pid);
    if (!entry.has_value()) break;
    if (HasMark(pid)) {
      return LaunchOrigin{pid, std::string("it carries ") + kLaunchedEnv +
                                   ", the mark of what app_launch and uiscope sessions start"};
    }
    if (auto r = records.find(pid); r != records.end() && r->second == entry->start_time) {
      return LaunchOrigin{pid, "app_launch started it"};
    }
    if (auto r = records.find(entry->session);
        r != records.end() && entry->session != pid && entry->start_time >= r->second) {
      return LaunchOrigin{pid, "it runs in the process session of pid " +
                                   std::to_string(entry->session) + ", which app_launch started"};
    }
    if (std::string id = in_session(pid); !id.empty()) {
      return LaunchOrigin{pid, "it runs in uiscope session " + id};
    }
    if (pid == 1) break;
    pid = entry->parent;
  }
  return std::nullopt;
}

}  // namespace uiscope
