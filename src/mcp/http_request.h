// HTTP/1.1 requests as bytes: an incremental parser and the response head.
//
// Pure (no sockets, no threads), so the HTTP transport's connection loop and
// the fuzzer (fuzz/http_request.cpp) drive the same code. The parser keeps
// its own limits: a request head above `max_head_bytes` is 431, a body above
// `max_body_bytes` is 413 before any of it is buffered, and anything that is
// not an HTTP/1.x request is 400 (501 for a transfer coding other than
// chunked). Both Content-Length and Transfer-Encoding on one request is 400:
// a proxy in front could frame it differently (request smuggling).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace uiscope::mcp {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method;     // "GET", "POST", ... as sent (methods are case-sensitive)
  std::string target;     // request-target as sent, e.g. "/mcp?x=1"
  std::string path;       // target up to '?'
  int minor_version = 1;  // HTTP/1.minor
  HttpHeaders headers;    // in order; names as sent
  std::string body;       // de-chunked

  // The first header of that name (case-insensitive), or "".
  std::string_view Header(std::string_view name) const;
  bool HasHeader(std::string_view name) const;
  // HTTP/1.1 without "Connection: close", or HTTP/1.0 with "keep-alive".
  bool KeepAlive() const;
};

class HttpRequestParser {
 public:
  struct Limits {
    size_t max_head_bytes = 16 * 1024;  // request line and headers
    size_t max_body_bytes = 16u << 20;
  };
  enum class State { kHead, kBody, kDone, kError };

  explicit HttpRequestParser(Limits limits) : limits_(limits) {}

  // Consumes bytes until a request is complete or fails; returns how many
  // were used (the rest belong to the next request on the connection).
  size_t Feed(std::string_view bytes);

  State state() const { return state_; }
  // After kHead: the request has `Expect: 100-continue` and a body to come.
  bool ExpectsContinue() const { return state_ == State::kBody && expect_continue_; }
  const HttpRequest& request() const { return request_; }
  HttpRequest TakeRequest() { return std::move(request_); }
  // On kError: the status to answer (400, 413, 431, 501) and why.
  int error_status() const { return error_status_; }
  const std::string& error_message() const { return error_message_; }
  // Bytes of the current request seen so far (0 = between requests).
  size_t bytes_seen() const { return seen_; }

  // Ready for the next request on the same connection.
  void Reset();

 private:
  enum class BodyMode { kNone, kLength, kChunked };
  enum class ChunkState { kSize, kData, kDataEnd, kTrailer };

  size_t FeedHead(std::string_view bytes);
  size_t FeedBody(std::string_view bytes);
  bool ParseHead();  // on the complete head in head_
  void Fail(int status, std::string message);

  Limits limits_;
  State state_ = State::kHead;
  HttpRequest request_;
  std::string head_;
  size_t seen_ = 0;
  BodyMode body_mode_ = BodyMode::kNone;
  size_t remaining_ = 0;  // kLength: body bytes to come; kChunked: of the current chunk
  ChunkState chunk_state_ = ChunkState::kSize;
  std::string line_;  // kChunked: the chunk-size or trailer line so far
  bool expect_continue_ = false;
  int error_status_ = 0;
  std::string error_message_;
};

// "HTTP/1.1 200 OK\r\n" and the headers, without the blank line.
std::string HttpStatusLine(int status);
const char* HttpReason(int status);

}  // namespace uiscope::mcp
