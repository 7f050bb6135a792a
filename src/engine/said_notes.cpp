#include "engine/said_notes.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "engine/private_file.h"

namespace uiscope {
namespace {

// Kept at most: the newest, when more were said in the hour.
constexpr size_t kMaxNotes = 500;

// The note with each run of digits as one '#' and no tab or newline (the
// file's separators).
std::string Key(const std::string& note) {
  std::string key;
  bool in_digits = false;
  for (char c : note) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (!in_digits) key += '#';
      in_digits = true;
      continue;
    }
    in_digits = false;
    key += (c == '\t' || c == '\n' || c == '\r') ? ' ' : c;
  }
  return key;
}

// Holds an flock on `<file>.lock` for its lifetime; unlocked when it could
// not be taken (the notes are then merely said again).
class FileLock {
 public:
  explicit FileLock(const std::string& file) {
    fd_ = ::open((file + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace

std::string SaidNotesFile(const std::string& state_dir, const std::string& display) {
  std::string name;
  for (char c : display) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return state_dir + "/said-notes/" + name + ".txt";
}

std::vector<std::string> SayOnce(const std::string& file, const std::vector<std::string>& notes,
                                 int* left_out, std::chrono::system_clock::time_point now) {
  *left_out = 0;
  if (notes.empty()) return {};
  const int64_t now_s =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  const int64_t since_s =
      now_s - std::chrono::duration_cast<std::chrono::seconds>(kSaidNotesFor).count();
  // The folder first, so that the lock file can be made in it.
  MakePrivateDir(std::filesystem::path(file).parent_path().string());
  FileLock lock(file);
  // "<unix seconds>\t<key>" lines; the newest time of each key.
  std::map<std::string, int64_t> said;
  {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
      const size_t tab = line.find('\t');
      if (tab == std::string::npos) continue;
      const int64_t t = std::atoll(line.substr(0, tab).c_str());
      if (t < since_s || t > now_s) continue;
      int64_t& at = said[line.substr(tab + 1)];
      at = std::max(at, t);
    }
  }
  std::vector<std::string> fresh;
  std::set<std::string> this_call;
  for (const std::string& note : notes) {
    const std::string key = Key(note);
    if (!this_call.insert(key).second) continue;
    if (said.count(key)) {
      ++*left_out;
      continue;
    }
    fresh.push_back(note);
    said[key] = now_s;
  }
  if (fresh.empty()) return fresh;
  std::multimap<int64_t, const std::string*> by_time;
  for (const auto& [key, t] : said) by_time.emplace(t, &key);
  while (by_time.size() > kMaxNotes) by_time.erase(by_time.begin());
  std::ostringstream out;
  for (const auto& [t, key] : by_time) out << t << '\t' << *key << '\n';
  (void)WritePrivateFile(file, out.str(), "the said notes");
  return fresh;
}

}  // namespace uiscope
