// An X server whose client table is full refuses one more client with a
// reason Xlib only prints: X11Display::Open says so instead of asking
// whether the server runs. A fake server for the exchange itself, and a
// real Xvfb filled to its limit.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>
#include <vector>

#include "platform/x11/x11_display.h"
#include "platform/x11/x11_setup.h"
#include "support/desktop_fixture.h"

namespace uiscope {
namespace {

constexpr char kNoRoom[] = "Maximum number of clients reached";

// Tests only: listens at /tmp/.X11-unix/XN and refuses every client as an
// X server with a full client table does (os/connection.c, ErrorConnMax):
// it reads the byte order, then answers a failed set-up with the reason.
class FullXServer {
 public:
  FullXServer() {
    for (int n = 900 + getpid() % 50; n < 1000 && fd_ < 0; ++n) {
      const std::string path = "/tmp/.X11-unix/X" + std::to_string(n);
      if (std::filesystem::exists(path)) continue;
      std::filesystem::create_directories("/tmp/.X11-unix");
      const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_un addr{};
      addr.sun_family = AF_UNIX;
      std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
      if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 && listen(fd, 8) == 0) {
        fd_ = fd;
        path_ = path;
        display_ = ":" + std::to_string(n);
      } else {
        close(fd);
      }
    }
    thread_ = std::thread([this] { Serve(); });
  }
  ~FullXServer() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    thread_.join();
    close(fd_);
    unlink(path_.c_str());
  }
  const std::string& display() const { return display_; }
  bool ok() const { return fd_ >= 0; }

 private:
  void Serve() {
    while (!stop_) {
      const int client = accept(fd_, nullptr, nullptr);
      if (client < 0) return;
      char order = 0;
      if (recv(client, &order, 1, 0) == 1 && order == 'l') {
        const size_t length = sizeof(kNoRoom) - 1;
        std::string reply(8, '\0');
        reply[0] = 0;  // failed
        reply[1] = static_cast<char>(length);
        reply[2] = 11;  // protocol 11.0, little-endian
        reply[6] = static_cast<char>((length + 3) / 4);
        reply += kNoRoom;
        reply.resize(8 + (length + 3) / 4 * 4, '\0');
        (void)!send(client, reply.data(), reply.size(), MSG_NOSIGNAL);
      }
      close(client);
    }
  }

  int fd_ = -1;
  std::string path_;
  std::string display_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST(X11ClientLimitTest, TheServersRefusalIsReadAndNamed) {
  FullXServer server;
  ASSERT_TRUE(server.ok());
  const x11::SetupAnswer answer = x11::AskSetup(server.display(), 2000);
  EXPECT_EQ(answer.kind, x11::SetupAnswer::Kind::kRefused);
  EXPECT_EQ(answer.reason, kNoRoom);
  EXPECT_TRUE(x11::IsTooManyClients(answer));

  auto display = x11::X11Display::Open(server.display());
  ASSERT_FALSE(display.ok());
  const std::string& message = display.error().message;
  EXPECT_NE(message.find("refused a new client: too many clients"), std::string::npos) << message;
  EXPECT_EQ(message.find("is the X server running"), std::string::npos) << message;

  // Nothing there at all still reads as a server that is not running.
  auto none = x11::X11Display::Open(":999999");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("is the X server running"), std::string::npos);
}

TEST(X11ClientLimitTest, XvfbBeyondItsClientLimitSaysTooMany) {
  test::TestDesktop desktop;
  ASSERT_TRUE(desktop.ok()) << desktop.error();
  const std::string name = desktop.info().display_name;
  // Fill Xvfb's client table (256 by default, some taken by the desktop).
  std::vector<std::unique_ptr<x11::X11Display>> held;
  Result<std::unique_ptr<x11::X11Display>> last = MakeError(ErrorCode::kInternal, "none");
  for (int i = 0; i < 1024; ++i) {
    last = x11::X11Display::Open(name);
    if (!last.ok()) break;
    held.push_back(std::move(last).value());
  }
  ASSERT_FALSE(last.ok()) << "Xvfb took 1024 clients";
  EXPECT_GT(held.size(), 100u);
  EXPECT_NE(last.error().message.find("too many clients"), std::string::npos)
      << last.error().message;
  EXPECT_EQ(last.error().message.find("is the X server running"), std::string::npos)
      << last.error().message;
  // One slot freed, a client gets in again.
  held.pop_back();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  auto again = x11::X11Display::Open(name);
  while (!again.ok() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    again = x11::X11Display::Open(name);
  }
  EXPECT_TRUE(again.ok()) << again.error().message;
}

}  // namespace
}  // namespace uiscope
