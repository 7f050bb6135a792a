#include "engine/private_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>

namespace uiscope {

void MakePrivateDir(const std::string& dir) {
  if (dir.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  ::chmod(dir.c_str(), 0700);
}

Status WritePrivateFile(const std::string& path, std::string_view text, std::string_view what) {
  MakePrivateDir(std::filesystem::path(path).parent_path().string());
  static std::atomic<unsigned> counter{0};
  const std::string tmp =
      path + ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return MakeError(ErrorCode::kInternal, "cannot write " + std::string(what) + " " + tmp);
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  const bool closed = ::close(fd) == 0;
  if (written != text.size() || !closed || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return MakeError(ErrorCode::kInternal, "cannot store " + std::string(what) + " " + path);
  }
  return OkStatus();
}

}  // namespace uiscope
