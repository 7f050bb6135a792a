#include "support/vnc_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "support/desktop_fixture.h"

namespace uiscope::test {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(fd);
    return 0;
  }
  close(fd);
  return ntohs(addr.sin_port);
}

bool Listening(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

namespace {

// A private directory for the servers' logs and password files, removed
// at exit (after the suites' teardown stopped the servers).
class PrivateDir {
 public:
  PrivateDir() {
    std::string path = (fs::temp_directory_path() / "uiscope-vnc-test-XXXXXX").string();
    if (mkdtemp(path.data()) != nullptr) path_ = path;
  }
  ~PrivateDir() {
    std::error_code ignored;
    if (!path_.empty()) fs::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

const std::string& VncTempDir() {
  static const PrivateDir dir;
  return dir.path();
}

std::string VncLogTail(const std::string& path) { return FileTail(path, 15); }

std::unique_ptr<Process> StartX11Vnc(const std::string& display, int port) {
  SpawnOptions options;
  options.argv = {"x11vnc",     "-display", display,    "-rfbport", std::to_string(port),
                  "-localhost", "-nopw",    "-forever", "-shared",  "-wait",
                  "5",          "-defer",   "5"};
  options.log_file = VncTempDir() + "/x11vnc-" + std::to_string(port) + ".log";
  auto process = Process::Spawn(options);
  if (!process.ok()) {
    ADD_FAILURE() << process.error().ToString();
    return nullptr;
  }
  if (!WaitUntil([&] { return Listening(port); }, milliseconds(15000))) {
    ADD_FAILURE() << "x11vnc did not listen on " << port << ": " << VncLogTail(options.log_file);
    return nullptr;
  }
  return std::move(*process);
}

}  // namespace uiscope::test
