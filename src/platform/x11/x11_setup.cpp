#include "platform/x11/x11_setup.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>

namespace uiscope::x11 {

SetupAnswer AskSetup(const std::string& display_name, int timeout_ms) {
  using Kind = SetupAnswer::Kind;
  // ":N" or ":N.S"; a display on another host is not asked.
  const size_t colon = display_name.find(':');
  const std::string number =
      colon == 0 ? display_name.substr(1, display_name.find('.') - 1) : std::string();
  if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos) {
    return {Kind::kNotLocal, "'" + display_name + "' is not a local display (:N)"};
  }
  const std::string path = "/tmp/.X11-unix/X" + number;
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return {Kind::kNoServer, std::string("socket: ") + std::strerror(errno)};
  struct FdCloser {
    int fd;
    ~FdCloser() { close(fd); }
  } closer{fd};
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  auto wait = [&](short events) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{fd, events, 0};
    return poll(&p, 1, static_cast<int>(std::max<int64_t>(0, left.count()))) == 1;
  };
  const SetupAnswer no_answer{Kind::kNoAnswer,
                              "no answer within " + std::to_string(timeout_ms) + " ms"};
  if (connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0) {
    if (errno != EINPROGRESS && errno != EAGAIN) {
      return {Kind::kNoServer, "nothing listens at " + path + " (" + std::strerror(errno) + ")"};
    }
    if (!wait(POLLOUT)) return no_answer;
  }
  // Little-endian ('l'), version 11.0, no authorisation name or data.
  const unsigned char setup[12] = {'l', 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  if (send(fd, setup, sizeof(setup), MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof(setup))) {
    return {Kind::kClosed,
            "the X server closed the connection (" + std::string(std::strerror(errno)) + ")"};
  }
  // The reply: status (0 failed, 1 success, 2 authenticate), then for a
  // failure the reason's length, the protocol version (4 bytes), the
  // length of what follows in 4-byte units, and the reason.
  std::string reply;
  auto read_until = [&](size_t size) {
    while (reply.size() < size) {
      if (!wait(POLLIN)) return false;
      char buffer[256];
      const ssize_t n = recv(fd, buffer, std::min(sizeof(buffer), size - reply.size()), 0);
      if (n <= 0) return false;
      reply.append(buffer, static_cast<size_t>(n));
    }
    return true;
  };
  if (!read_until(1)) {
    return reply.empty() && std::chrono::steady_clock::now() >= deadline
               ? no_answer
               : SetupAnswer{Kind::kClosed, "the X server closed the connection unanswered"};
  }
  if (reply[0] == 1) return {Kind::kAccepted, ""};
  if (reply[0] == 2) return {Kind::kAuthenticate, ""};
  SetupAnswer refused{Kind::kRefused, ""};
  if (read_until(8)) {
    const size_t length = static_cast<unsigned char>(reply[1]);
    read_until(8 + length);
    refused.reason = reply.substr(8, length);
  }
  // The reason is the server's text: only printable ASCII goes on.
  for (char& c : refused.reason) {
    if (c < 0x20 || c > 0x7e) c = '?';
  }
  return refused;
}

bool IsTooManyClients(const SetupAnswer& answer) {
  // The X server's fixed words (os/connection.c, NOROOM).
  return answer.kind == SetupAnswer::Kind::kRefused &&
         answer.reason.find("Maximum number of clients") != std::string::npos;
}

}  // namespace uiscope::x11
