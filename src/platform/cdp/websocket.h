// A minimal WebSocket client (RFC 6455) for the DevTools protocol of
// Chromium and Electron on this machine: loopback TCP only, no TLS, no
// extensions (no permessage-deflate is offered, so none is accepted).
//
// Two halves:
// - pure, fuzzable pieces (WebSocketUrl parsing, the handshake's accept key,
//   client frame encoding and WebSocketFrameParser), unit-tested with byte
//   strings and malformed frames;
// - WebSocketClient, which owns the socket: the HTTP upgrade with its
//   Sec-WebSocket-Accept check, masked client frames, fragmented and large
//   server messages, pings answered with pongs, close; every read has a
//   deadline.
//
// Why loopback only: a DevTools endpoint runs any script in any page of the
// browser, so it is never meant to be reached over a network, and the
// protocol here carries no TLS; a URL naming another host is refused.
//
// Not thread-safe: one client per thread (CdpConnection owns one).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/result.h"

namespace uiscope {

// The largest message (all fragments together) a client accepts: a full
// accessibility tree of a big page is a few MiB; past this the message is
// an error, not an allocation.
inline constexpr size_t kMaxWebSocketMessage = 64u << 20;

// ws://HOST:PORT/PATH with HOST a loopback address (127.0.0.0/8, "localhost",
// "[::1]").
struct WebSocketUrl {
  std::string host;  // without brackets
  int port = 0;
  std::string path;  // "/devtools/page/ABC" ("/" when absent)
};

// InvalidArgument for another scheme (wss:// included: no TLS here), a
// missing or bad port, or a host that is not loopback (named in the error).
Result<WebSocketUrl> ParseWebSocketUrl(std::string_view url);
// Whether `host` (without brackets) is a loopback address or "localhost".
bool IsLoopbackHost(std::string_view host);

// Sec-WebSocket-Accept for `key`: base64(SHA-1(key + the RFC's GUID)).
std::string WebSocketAcceptKey(std::string_view key);

enum class WsOpcode : uint8_t {
  kContinuation = 0x0,
  kText = 0x1,
  kBinary = 0x2,
  kClose = 0x8,
  kPing = 0x9,
  kPong = 0xA,
};

// One client frame: FIN set, masked with `mask` (RFC 6455 §5.3: every
// client frame is masked).
std::string EncodeClientFrame(WsOpcode opcode, std::string_view payload, uint32_t mask);

// A whole message or a control frame, as the parser delivers it.
struct WsMessage {
  WsOpcode opcode = WsOpcode::kText;  // kText, kBinary, kClose, kPing or kPong
  std::string payload;
};

// Turns bytes from the server into messages: reassembles fragments, checks
// what RFC 6455 requires of a server's frames (no mask, no reserved bits,
// known opcodes, control frames unfragmented and at most 125 bytes,
// continuations only inside a message) and bounds the message size. After
// an error the parser stays failed (the connection must be closed).
class WebSocketFrameParser {
 public:
  explicit WebSocketFrameParser(size_t max_message = kMaxWebSocketMessage)
      : max_message_(max_message) {}

  // Appends `bytes`; complete messages are then taken with Next().
  void Feed(std::string_view bytes) { buffer_.append(bytes); }
  // The next complete message; nullopt-like: ok() with `has` false when more
  // bytes are needed; an InvalidArgument describing the protocol violation.
  struct Step {
    bool has = false;
    WsMessage message;
  };
  Result<Step> Next();

 private:
  size_t max_message_;
  std::string buffer_;
  size_t offset_ = 0;  // bytes of buffer_ consumed
  bool in_message_ = false;
  WsOpcode message_opcode_ = WsOpcode::kText;
  std::string message_;
  std::string failed_;  // the first error, repeated after it
};

class WebSocketClient {
 public:
  // Connects to `url` (ParseWebSocketUrl) and performs the upgrade. Errors
  // name the URL: kUnavailable when nothing listens, kTimeout, or
  // kInvalidArgument when the peer does not speak WebSocket.
  static Result<std::unique_ptr<WebSocketClient>> Connect(std::string_view url,
                                                          std::chrono::milliseconds timeout);
  ~WebSocketClient();
  WebSocketClient(const WebSocketClient&) = delete;
  WebSocketClient& operator=(const WebSocketClient&) = delete;

  Status SendText(std::string_view text, std::chrono::steady_clock::time_point deadline);
  // The next text or binary message; pings are answered on the way. A close
  // from the server is kUnavailable ("closed by the browser").
  Result<std::string> Receive(std::chrono::steady_clock::time_point deadline);
  // Sends a close frame (best effort) and closes the socket.
  void Close();

  const std::string& url() const { return url_; }

 private:
  WebSocketClient(int fd, std::string url) : fd_(fd), url_(std::move(url)) {}
  Status WriteAll(std::string_view bytes, std::chrono::steady_clock::time_point deadline);
  // Reads what is available (waiting until `deadline`) into the parser.
  Status ReadSome(std::chrono::steady_clock::time_point deadline);

  int fd_ = -1;
  std::string url_;
  WebSocketFrameParser parser_;
  uint32_t mask_state_ = 0;
};

// An HTTP/1.1 GET to a loopback HOST:PORT (the DevTools discovery endpoints
// /json/list and /json/version): the body of a 200 answer, at most
// `max_body` bytes; errors name the address.
Result<std::string> HttpGetLoopback(std::string_view host, int port, std::string_view path,
                                    std::chrono::milliseconds timeout, size_t max_body = 8u << 20);

}  // namespace uiscope
