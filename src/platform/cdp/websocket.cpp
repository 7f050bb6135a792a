#include "platform/cdp/websocket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <random>

#include "core/ascii.h"
#include "core/base64.h"

namespace uiscope {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kWebSocketGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
// The upgrade answer's headers; a peer sending more is not a DevTools server.
constexpr size_t kMaxHttpHeader = 16u << 10;

uint32_t Rotl(uint32_t v, int n) { return (v << n) | (v >> (32 - n)); }

// SHA-1 (FIPS 180-4), for the handshake's accept key only: no security
// rests on it (RFC 6455 §1.3: it proves the peer read the request).
std::array<uint8_t, 20> Sha1(std::string_view data) {
  uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  std::string msg(data);
  const uint64_t bits = static_cast<uint64_t>(data.size()) * 8;
  msg.push_back(static_cast<char>(0x80));
  while (msg.size() % 64 != 56) msg.push_back('\0');
  for (int i = 7; i >= 0; --i) msg.push_back(static_cast<char>((bits >> (i * 8)) & 0xFF));
  for (size_t chunk = 0; chunk < msg.size(); chunk += 64) {
    uint32_t w[80];
    for (int i = 0; i < 16; ++i) {
      const auto* p = reinterpret_cast<const uint8_t*>(msg.data() + chunk + i * 4);
      w[i] = (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
    }
    for (int i = 16; i < 80; ++i) w[i] = Rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; ++i) {
      uint32_t f, k;
      if (i < 20) {
        f = (b & c) | (~b & d);
        k = 0x5A827999;
      } else if (i < 40) {
        f = b ^ c ^ d;
        k = 0x6ED9EBA1;
      } else if (i < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8F1BBCDC;
      } else {
        f = b ^ c ^ d;
        k = 0xCA62C1D6;
      }
      const uint32_t t = Rotl(a, 5) + f + e + k + w[i];
      e = d;
      d = c;
      c = Rotl(b, 30);
      b = a;
      a = t;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
  }
  std::array<uint8_t, 20> out{};
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 4; ++j) out[i * 4 + j] = static_cast<uint8_t>(h[i] >> (24 - j * 8));
  }
  return out;
}

int MsLeft(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left.count(), 1 << 30));
}

std::string Errno() { return std::strerror(errno); }

// A connected, non-blocking TCP socket to loopback HOST:PORT, or an error
// naming `what`.
Result<int> ConnectLoopback(std::string_view host, int port, Clock::time_point deadline,
                            const std::string& what) {
  if (!IsLoopbackHost(host)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     what + ": host \"" + std::string(host) +
                         "\" is not a loopback address; DevTools endpoints are reached on "
                         "this machine only (127.0.0.1, ::1, localhost)");
  }
  const bool v6 = host == "::1";
  int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return MakeError(ErrorCode::kInternal, what + ": socket: " + Errno());
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  int rc;
  if (v6) {
    sockaddr_in6 addr{};
    addr.sin6_family = AF_INET6;
    addr.sin6_port = htons(static_cast<uint16_t>(port));
    addr.sin6_addr = in6addr_loopback;
    rc = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  } else {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    // "localhost" and any 127.x address go to 127.0.0.1's listener: Chromium
    // binds its DevTools server there.
    std::string h = host == "localhost" ? "127.0.0.1" : std::string(host);
    if (inet_pton(AF_INET, h.c_str(), &addr.sin_addr) != 1) {
      close(fd);
      return MakeError(ErrorCode::kInvalidArgument, what + ": bad address " + h);
    }
    rc = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  }
  if (rc != 0 && errno != EINPROGRESS) {
    const std::string why = Errno();
    close(fd);
    return MakeError(ErrorCode::kUnavailable, what + ": cannot connect: " + why);
  }
  if (rc != 0) {
    pollfd pfd{fd, POLLOUT, 0};
    int ready = poll(&pfd, 1, MsLeft(deadline));
    int err = 0;
    socklen_t len = sizeof(err);
    if (ready <= 0) {
      close(fd);
      return MakeError(ErrorCode::kTimeout, what + ": no connection before the deadline");
    }
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      close(fd);
      return MakeError(ErrorCode::kUnavailable,
                       what + ": cannot connect: " + std::string(std::strerror(err)));
    }
  }
  return fd;
}

Status WriteFd(int fd, std::string_view bytes, Clock::time_point deadline,
               const std::string& what) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd pfd{fd, POLLOUT, 0};
      if (poll(&pfd, 1, MsLeft(deadline)) <= 0) {
        return MakeError(ErrorCode::kTimeout, what + ": could not send before the deadline");
      }
      continue;
    }
    return MakeError(ErrorCode::kUnavailable, what + ": send: " + Errno());
  }
  return OkStatus();
}

// Reads once (after waiting for data until `deadline`): the bytes, "" at
// the end of the stream, or an error.
Result<std::string> ReadFd(int fd, Clock::time_point deadline, const std::string& what) {
  while (true) {
    pollfd pfd{fd, POLLIN, 0};
    int ready = poll(&pfd, 1, MsLeft(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      return MakeError(ErrorCode::kTimeout, what + ": no answer before the deadline");
    }
    char chunk[1 << 16];
    ssize_t n = recv(fd, chunk, sizeof(chunk), 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return MakeError(ErrorCode::kUnavailable, what + ": recv: " + Errno());
    return std::string(chunk, static_cast<size_t>(n));
  }
}

// The value of header `name` in an HTTP header block, "" when absent.
std::string HeaderValue(std::string_view head, std::string_view name) {
  size_t pos = head.find("\r\n");
  while (pos != std::string_view::npos && pos + 2 < head.size()) {
    const size_t start = pos + 2;
    const size_t end = head.find("\r\n", start);
    std::string_view line = head.substr(start, end == std::string_view::npos ? end : end - start);
    const size_t colon = line.find(':');
    if (colon != std::string_view::npos && EqualsIgnoringCase(line.substr(0, colon), name)) {
      std::string_view v = line.substr(colon + 1);
      while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
      while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
      return std::string(v);
    }
    pos = end;
  }
  return "";
}

int StatusCode(std::string_view head) {
  // "HTTP/1.1 101 Switching Protocols"
  if (!head.starts_with("HTTP/1.")) return -1;
  const size_t sp = head.find(' ');
  if (sp == std::string_view::npos || sp + 4 > head.size()) return -1;
  int code = -1;
  auto [p, ec] = std::from_chars(head.data() + sp + 1, head.data() + sp + 4, code);
  return ec == std::errc() ? code : -1;
}

// Reads an HTTP answer's header block (up to and without "\r\n\r\n"); the
// bytes after it go to `rest`.
Result<std::string> ReadHttpHead(int fd, Clock::time_point deadline, const std::string& what,
                                 std::string& rest) {
  std::string buf;
  while (true) {
    const size_t end = buf.find("\r\n\r\n");
    if (end != std::string::npos) {
      rest = buf.substr(end + 4);
      buf.resize(end);
      return buf;
    }
    if (buf.size() > kMaxHttpHeader) {
      return MakeError(ErrorCode::kInvalidArgument, what + ": the answer's headers exceed " +
                                                        std::to_string(kMaxHttpHeader) +
                                                        " bytes: not a DevTools endpoint");
    }
    auto got = ReadFd(fd, deadline, what);
    if (!got.ok()) return got.error();
    if (got->empty()) {
      return MakeError(ErrorCode::kUnavailable,
                       what + ": the peer closed the connection before answering");
    }
    buf += *got;
  }
}

uint8_t Byte(const std::string& s, size_t i) { return static_cast<uint8_t>(s[i]); }

}  // namespace

bool IsLoopbackHost(std::string_view host) {
  if (host == "localhost" || host == "::1") return true;
  in_addr addr{};
  const std::string h(host);
  if (inet_pton(AF_INET, h.c_str(), &addr) != 1) return false;
  return (ntohl(addr.s_addr) >> 24) == 127;
}

Result<WebSocketUrl> ParseWebSocketUrl(std::string_view url) {
  auto bad = [&](const std::string& why) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "WebSocket URL \"" + std::string(url.substr(0, 200)) + "\": " + why);
  };
  if (url.starts_with("wss://")) return bad("wss:// (TLS) is not supported: use ws:// on loopback");
  if (!url.starts_with("ws://")) return bad("expected ws://HOST:PORT/PATH");
  std::string_view rest = url.substr(5);
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  WebSocketUrl out;
  out.path = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  if (authority.find('@') != std::string_view::npos) return bad("a user part is not accepted");
  std::string_view port_text;
  if (authority.starts_with("[")) {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return bad("unclosed '[' in the host");
    out.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.starts_with(":")) return bad("missing port");
    port_text = after.substr(1);
  } else {
    const size_t colon = authority.rfind(':');
    if (colon == std::string_view::npos) return bad("missing port");
    out.host = std::string(authority.substr(0, colon));
    port_text = authority.substr(colon + 1);
  }
  int port = 0;
  auto [p, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || p != port_text.data() + port_text.size() || port < 1 || port > 65535) {
    return bad("bad port \"" + std::string(port_text) + "\"");
  }
  out.port = port;
  if (out.host.empty()) return bad("missing host");
  if (!IsLoopbackHost(out.host)) {
    return bad("host \"" + out.host +
               "\" is not a loopback address; DevTools endpoints are reached on this machine "
               "only");
  }
  return out;
}

std::string WebSocketAcceptKey(std::string_view key) {
  std::string input(key);
  input += kWebSocketGuid;
  const auto digest = Sha1(input);
  return Base64Encode(std::string_view(reinterpret_cast<const char*>(digest.data()), 20));
}

std::string EncodeClientFrame(WsOpcode opcode, std::string_view payload, uint32_t mask) {
  std::string out;
  out.reserve(payload.size() + 14);
  out.push_back(static_cast<char>(0x80 | static_cast<uint8_t>(opcode)));
  const uint64_t n = payload.size();
  if (n < 126) {
    out.push_back(static_cast<char>(0x80 | n));
  } else if (n <= 0xFFFF) {
    out.push_back(static_cast<char>(0x80 | 126));
    out.push_back(static_cast<char>(n >> 8));
    out.push_back(static_cast<char>(n & 0xFF));
  } else {
    out.push_back(static_cast<char>(0x80 | 127));
    for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>((n >> (i * 8)) & 0xFF));
  }
  const uint8_t key[4] = {static_cast<uint8_t>(mask >> 24), static_cast<uint8_t>(mask >> 16),
                          static_cast<uint8_t>(mask >> 8), static_cast<uint8_t>(mask)};
  for (uint8_t k : key) out.push_back(static_cast<char>(k));
  for (size_t i = 0; i < payload.size(); ++i) {
    out.push_back(static_cast<char>(static_cast<uint8_t>(payload[i]) ^ key[i % 4]));
  }
  return out;
}

Result<WebSocketFrameParser::Step> WebSocketFrameParser::Next() {
  auto fail = [&](const std::string& why) -> Error {
    failed_ = "malformed WebSocket frame from the server: " + why;
    return MakeError(ErrorCode::kInvalidArgument, failed_);
  };
  if (!failed_.empty()) return MakeError(ErrorCode::kInvalidArgument, failed_);
  while (true) {
    const size_t avail = buffer_.size() - offset_;
    if (avail < 2) break;
    const uint8_t b0 = Byte(buffer_, offset_), b1 = Byte(buffer_, offset_ + 1);
    const bool fin = (b0 & 0x80) != 0;
    if ((b0 & 0x70) != 0) return fail("reserved bits set (no extension was negotiated)");
    const uint8_t op = b0 & 0x0F;
    if ((b1 & 0x80) != 0) return fail("masked (a server never masks its frames)");
    uint64_t len = b1 & 0x7F;
    size_t head = 2;
    if (len == 126) {
      if (avail < 4) break;
      len = (uint64_t{Byte(buffer_, offset_ + 2)} << 8) | Byte(buffer_, offset_ + 3);
      head = 4;
    } else if (len == 127) {
      if (avail < 10) break;
      len = 0;
      for (int i = 0; i < 8; ++i) len = (len << 8) | Byte(buffer_, offset_ + 2 + i);
      head = 10;
      if (len >> 63) return fail("64-bit length with its top bit set");
    }
    const bool control = (op & 0x8) != 0;
    if (op != 0x0 && op != 0x1 && op != 0x2 && op != 0x8 && op != 0x9 && op != 0xA) {
      return fail("unknown opcode " + std::to_string(op));
    }
    if (control && (!fin || len > 125)) {
      return fail("control frame fragmented or longer than 125 bytes");
    }
    if (!control && len + message_.size() > max_message_) {
      return fail("message larger than " + std::to_string(max_message_) + " bytes");
    }
    if (avail - head < len) break;
    std::string_view payload(buffer_.data() + offset_ + head, static_cast<size_t>(len));
    offset_ += head + static_cast<size_t>(len);
    Step step;
    if (control) {
      step.has = true;
      step.message.opcode = static_cast<WsOpcode>(op);
      step.message.payload = std::string(payload);
    } else if (op == 0x0) {
      if (!in_message_) return fail("continuation frame outside a message");
      message_.append(payload);
      if (fin) {
        step.has = true;
        step.message.opcode = message_opcode_;
        step.message.payload = std::move(message_);
        message_.clear();
        in_message_ = false;
      }
    } else {
      if (in_message_) return fail("new message before the last one's final fragment");
      if (fin) {
        step.has = true;
        step.message.opcode = static_cast<WsOpcode>(op);
        step.message.payload = std::string(payload);
      } else {
        in_message_ = true;
        message_opcode_ = static_cast<WsOpcode>(op);
        message_.assign(payload);
      }
    }
    // Compact once the consumed prefix dominates, so a long stream of small
    // frames does not grow the buffer.
    if (offset_ > (1u << 16) && offset_ * 2 > buffer_.size()) {
      buffer_.erase(0, offset_);
      offset_ = 0;
    }
    if (step.has) return step;
  }
  return Step{};
}

Result<std::unique_ptr<WebSocketClient>> WebSocketClient::Connect(
    std::string_view url_text, std::chrono::milliseconds timeout) {
  auto url = ParseWebSocketUrl(url_text);
  if (!url.ok()) return url.error();
  const auto deadline = Clock::now() + timeout;
  const std::string what = "DevTools endpoint " + std::string(url_text);
  auto fd = ConnectLoopback(url->host, url->port, deadline, what);
  if (!fd.ok()) return fd.error();
  std::unique_ptr<WebSocketClient> client(new WebSocketClient(*fd, std::string(url_text)));
  std::random_device rd;
  std::string nonce(16, '\0');
  for (char& c : nonce) c = static_cast<char>(rd() & 0xFF);
  client->mask_state_ = rd();
  const std::string key = Base64Encode(nonce);
  const std::string host_header = (url->host.find(':') != std::string::npos)
                                      ? "[" + url->host + "]:" + std::to_string(url->port)
                                      : url->host + ":" + std::to_string(url->port);
  // No Origin header: Chromium (111+) refuses WebSocket upgrades whose
  // Origin is not allowed by --remote-allow-origins, and lets those without
  // one through (they come from programs, not pages).
  const std::string request = "GET " + url->path + " HTTP/1.1\r\nHost: " + host_header +
                              "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                              "Sec-WebSocket-Key: " +
                              key + "\r\nSec-WebSocket-Version: 13\r\n\r\n";
  if (auto st = WriteFd(client->fd_, request, deadline, what); !st.ok()) return st.error();
  std::string rest;
  auto head = ReadHttpHead(client->fd_, deadline, what, rest);
  if (!head.ok()) return head.error();
  const int code = StatusCode(*head);
  if (code != 101) {
    return MakeError(ErrorCode::kInvalidArgument,
                     what + ": the upgrade was refused (HTTP " + std::to_string(code) + ": " +
                         head->substr(0, std::min<size_t>(head->find("\r\n"), 120)) + ")");
  }
  if (HeaderValue(*head, "Sec-WebSocket-Accept") != WebSocketAcceptKey(key)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     what + ": wrong Sec-WebSocket-Accept in the upgrade's answer");
  }
  client->parser_.Feed(rest);
  return client;
}

WebSocketClient::~WebSocketClient() { Close(); }

void WebSocketClient::Close() {
  if (fd_ < 0) return;
  // Status 1000 (normal closure); the answer is not waited for.
  const std::string frame = EncodeClientFrame(WsOpcode::kClose, std::string("\x03\xE8", 2),
                                              mask_state_ = mask_state_ * 1664525u + 1013904223u);
  (void)send(fd_, frame.data(), frame.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  close(fd_);
  fd_ = -1;
}

Status WebSocketClient::WriteAll(std::string_view bytes, Clock::time_point deadline) {
  if (fd_ < 0) return MakeError(ErrorCode::kUnavailable, "DevTools endpoint " + url_ + ": closed");
  return WriteFd(fd_, bytes, deadline, "DevTools endpoint " + url_);
}

Status WebSocketClient::SendText(std::string_view text, Clock::time_point deadline) {
  // The masking key needs no cryptographic strength against a loopback peer
  // (it defends proxies from cache poisoning, RFC 6455 §10.3): an LCG step.
  mask_state_ = mask_state_ * 1664525u + 1013904223u;
  return WriteAll(EncodeClientFrame(WsOpcode::kText, text, mask_state_), deadline);
}

Status WebSocketClient::ReadSome(Clock::time_point deadline) {
  if (fd_ < 0) return MakeError(ErrorCode::kUnavailable, "DevTools endpoint " + url_ + ": closed");
  auto got = ReadFd(fd_, deadline, "DevTools endpoint " + url_);
  if (!got.ok()) return got.error();
  if (got->empty()) {
    close(fd_);
    fd_ = -1;
    return MakeError(ErrorCode::kUnavailable,
                     "DevTools endpoint " + url_ + ": the browser closed the connection");
  }
  parser_.Feed(*got);
  return OkStatus();
}

Result<std::string> WebSocketClient::Receive(Clock::time_point deadline) {
  while (true) {
    auto step = parser_.Next();
    if (!step.ok()) {
      Close();
      return MakeError(step.error().code,
                       "DevTools endpoint " + url_ + ": " + step.error().message);
    }
    if (!step->has) {
      if (auto st = ReadSome(deadline); !st.ok()) return st.error();
      continue;
    }
    WsMessage& m = step->message;
    switch (m.opcode) {
      case WsOpcode::kPing: {
        mask_state_ = mask_state_ * 1664525u + 1013904223u;
        if (auto st =
                WriteAll(EncodeClientFrame(WsOpcode::kPong, m.payload, mask_state_), deadline);
            !st.ok()) {
          return st.error();
        }
        continue;
      }
      case WsOpcode::kPong:
        continue;
      case WsOpcode::kClose:
        Close();
        return MakeError(ErrorCode::kUnavailable,
                         "DevTools endpoint " + url_ + ": closed by the browser");
      default:
        return std::move(m.payload);
    }
  }
}

Result<std::string> HttpGetLoopback(std::string_view host, int port, std::string_view path,
                                    std::chrono::milliseconds timeout, size_t max_body) {
  const auto deadline = Clock::now() + timeout;
  const std::string what = "DevTools endpoint http://" + std::string(host) + ":" +
                           std::to_string(port) + std::string(path);
  auto fd = ConnectLoopback(host, port, deadline, what);
  if (!fd.ok()) return fd.error();
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{*fd};
  const std::string request = "GET " + std::string(path) +
                              " HTTP/1.1\r\nHost: " + std::string(host) + ":" +
                              std::to_string(port) + "\r\nConnection: close\r\n\r\n";
  if (auto st = WriteFd(*fd, request, deadline, what); !st.ok()) return st.error();
  std::string body;
  auto head = ReadHttpHead(*fd, deadline, what, body);
  if (!head.ok()) return head.error();
  const int code = StatusCode(*head);
  if (code != 200) {
    return MakeError(ErrorCode::kUnavailable, what + ": HTTP " + std::to_string(code));
  }
  long long length = -1;
  const std::string length_text = HeaderValue(*head, "Content-Length");
  if (!length_text.empty()) {
    auto [p, ec] =
        std::from_chars(length_text.data(), length_text.data() + length_text.size(), length);
    if (ec != std::errc() || length < 0) {
      return MakeError(ErrorCode::kInvalidArgument, what + ": bad Content-Length");
    }
  }
  if (length > static_cast<long long>(max_body)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     what + ": answer larger than " + std::to_string(max_body) + " bytes");
  }
  while (length < 0 || body.size() < static_cast<size_t>(length)) {
    if (body.size() > max_body) {
      return MakeError(ErrorCode::kInvalidArgument,
                       what + ": answer larger than " + std::to_string(max_body) + " bytes");
    }
    auto got = ReadFd(*fd, deadline, what);
    if (!got.ok()) return got.error();
    if (got->empty()) break;
    body += *got;
  }
  if (length >= 0 && body.size() < static_cast<size_t>(length)) {
    return MakeError(ErrorCode::kUnavailable, what + ": the answer was cut short");
  }
  if (length >= 0) body.resize(static_cast<size_t>(length));
  return body;
}

}  // namespace uiscope
