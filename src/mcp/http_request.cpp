#include "mcp/http_request.h"

#include <algorithm>
#include <cctype>

namespace uiscope::mcp {
namespace {

bool EqualsNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// RFC 9110 token characters (method and header names).
bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (unsigned char c : s) {
    if (std::isalnum(c)) continue;
    if (std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) == std::string_view::npos)
      return false;
  }
  return true;
}

// Whether a comma-separated header value lists `token` (case-insensitive).
bool ListsToken(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    size_t comma = value.find(',');
    std::string_view item = Trim(value.substr(0, comma));
    if (EqualsNoCase(item, token)) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

std::string_view HttpRequest::Header(std::string_view name) const {
  for (const auto& [n, v] : headers) {
    if (EqualsNoCase(n, name)) return v;
  }
  return {};
}

bool HttpRequest::HasHeader(std::string_view name) const {
  return std::any_of(headers.begin(), headers.end(),
                     [&](const auto& h) { return EqualsNoCase(h.first, name); });
}

bool HttpRequest::KeepAlive() const {
  const std::string_view connection = Header("Connection");
  if (minor_version == 0) return ListsToken(connection, "keep-alive");
  return !ListsToken(connection, "close");
}

void HttpRequestParser::Reset() {
  state_ = State::kHead;
  request_ = HttpRequest();
  head_.clear();
  seen_ = 0;
  body_mode_ = BodyMode::kNone;
  remaining_ = 0;
  chunk_state_ = ChunkState::kSize;
  line_.clear();
  expect_continue_ = false;
  error_status_ = 0;
  error_message_.clear();
}

void HttpRequestParser::Fail(int status, std::string message) {
  state_ = State::kError;
  error_status_ = status;
  error_message_ = std::move(message);
}

size_t HttpRequestParser::Feed(std::string_view bytes) {
  size_t used = 0;
  if (state_ == State::kHead) used += FeedHead(bytes);
  if (state_ == State::kBody) used += FeedBody(bytes.substr(used));
  seen_ += used;
  return used;
}

size_t HttpRequestParser::FeedHead(std::string_view bytes) {
  // Empty lines before a request line are ignored (RFC 9112 §2.2).
  size_t used = 0;
  if (head_.empty()) {
    while (used < bytes.size() && (bytes[used] == '\r' || bytes[used] == '\n')) ++used;
    bytes.remove_prefix(used);
  }
  // The head ends at the first empty line: "\r\n\r\n" or a bare "\n\n".
  const size_t before = head_.size();
  const size_t room = limits_.max_head_bytes + 4 - std::min(limits_.max_head_bytes + 4, before);
  head_.append(bytes.substr(0, room));
  const size_t from = before >= 3 ? before - 3 : 0;
  size_t end = std::string::npos;
  for (size_t i = from; i < head_.size(); ++i) {
    if (head_[i] != '\n') continue;
    if (i >= 1 && head_[i - 1] == '\n') {
      end = i + 1;
      break;
    }
    if (i >= 2 && head_[i - 1] == '\r' && head_[i - 2] == '\n') {
      end = i + 1;
      break;
    }
  }
  if (end == std::string::npos) {
    if (head_.size() > limits_.max_head_bytes) {
      Fail(431, "request header fields too large: the limit is " +
                    std::to_string(limits_.max_head_bytes) + " bytes");
    }
    return used + (head_.size() - before);
  }
  if (end > limits_.max_head_bytes) {
    Fail(431, "request header fields too large: the limit is " +
                  std::to_string(limits_.max_head_bytes) + " bytes");
    return used + (end - before);
  }
  const size_t taken = end - before;
  head_.resize(end);
  if (!ParseHead()) return used + taken;
  return used + taken;
}

bool HttpRequestParser::ParseHead() {
  std::string_view head = head_;
  auto next_line = [&]() {
    size_t nl = head.find('\n');
    std::string_view line = head.substr(0, nl);
    head.remove_prefix(nl == std::string_view::npos ? head.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
  };
  // Request line: METHOD SP target SP HTTP/1.x
  std::string_view line = next_line();
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    Fail(400, "bad request: malformed request line");
    return false;
  }
  std::string_view method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = line.substr(sp2 + 1);
  if (!IsToken(method) || target.empty()) {
    Fail(400, "bad request: malformed request line");
    return false;
  }
  for (unsigned char c : target) {
    if (c <= 0x20 || c == 0x7f) {
      Fail(400, "bad request: control character in the request target");
      return false;
    }
  }
  if (version.size() != 8 || version.substr(0, 7) != "HTTP/1." ||
      !std::isdigit(static_cast<unsigned char>(version[7]))) {
    Fail(version.rfind("HTTP/", 0) == 0 ? 505 : 400,
         "bad request: only HTTP/1.0 and HTTP/1.1 are spoken here");
    return false;
  }
  request_.method = std::string(method);
  request_.target = std::string(target);
  request_.path = std::string(target.substr(0, target.find('?')));
  request_.minor_version = version[7] - '0';

  for (line = next_line(); !line.empty(); line = next_line()) {
    if (line.front() == ' ' || line.front() == '\t') {
      Fail(400, "bad request: folded header lines are not accepted");
      return false;
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || !IsToken(line.substr(0, colon))) {
      Fail(400, "bad request: malformed header line");
      return false;
    }
    std::string_view value = Trim(line.substr(colon + 1));
    for (unsigned char c : value) {
      if ((c < 0x20 && c != '\t') || c == 0x7f) {
        Fail(400, "bad request: control character in a header value");
        return false;
      }
    }
    request_.headers.emplace_back(std::string(line.substr(0, colon)), std::string(value));
  }
  head_.clear();
  head_.shrink_to_fit();

  // Framing of the body (RFC 9112 §6).
  const bool has_length = request_.HasHeader("Content-Length");
  const bool has_encoding = request_.HasHeader("Transfer-Encoding");
  if (has_length && has_encoding) {
    Fail(400, "bad request: both Content-Length and Transfer-Encoding");
    return false;
  }
  if (has_encoding) {
    if (!EqualsNoCase(Trim(request_.Header("Transfer-Encoding")), "chunked")) {
      Fail(501, "not implemented: the only transfer coding accepted is chunked");
      return false;
    }
    body_mode_ = BodyMode::kChunked;
  } else if (has_length) {
    // Every Content-Length must be the same run of digits.
    std::string_view first;
    for (const auto& [n, v] : request_.headers) {
      if (!EqualsNoCase(n, "Content-Length")) continue;
      if (v.empty() || v.size() > 19 || v.find_first_not_of("0123456789") != std::string::npos ||
          (!first.empty() && v != first)) {
        Fail(400, "bad request: invalid Content-Length");
        return false;
      }
      first = v;
    }
    const unsigned long long length = std::stoull(std::string(first));
    if (length > limits_.max_body_bytes) {
      Fail(413, "message too large: the limit is " + std::to_string(limits_.max_body_bytes) +
                    " bytes; it was not read");
      return false;
    }
    remaining_ = static_cast<size_t>(length);
    body_mode_ = remaining_ > 0 ? BodyMode::kLength : BodyMode::kNone;
  }
  if (body_mode_ == BodyMode::kNone) {
    state_ = State::kDone;
    return true;
  }
  expect_continue_ = EqualsNoCase(Trim(request_.Header("Expect")), "100-continue");
  state_ = State::kBody;
  return true;
}

size_t HttpRequestParser::FeedBody(std::string_view bytes) {
  if (body_mode_ == BodyMode::kLength) {
    const size_t n = std::min(remaining_, bytes.size());
    request_.body.append(bytes.substr(0, n));
    remaining_ -= n;
    if (remaining_ == 0) state_ = State::kDone;
    return n;
  }
  // Chunked: size [; ext] CRLF data CRLF ... 0 CRLF [trailers] CRLF
  constexpr size_t kMaxLine = 4096;
  size_t used = 0;
  while (used < bytes.size() && state_ == State::kBody) {
    switch (chunk_state_) {
      case ChunkState::kSize:
      case ChunkState::kTrailer: {
        const char c = bytes[used++];
        if (c != '\n') {
          if (line_.size() >= kMaxLine) {
            Fail(400, "bad request: chunk line too long");
            return used;
          }
          line_.push_back(c);
          break;
        }
        if (!line_.empty() && line_.back() == '\r') line_.pop_back();
        if (chunk_state_ == ChunkState::kTrailer) {
          if (line_.empty()) state_ = State::kDone;  // trailers are read and dropped
          line_.clear();
          break;
        }
        std::string_view size = Trim(std::string_view(line_).substr(0, line_.find(';')));
        if (size.empty() || size.size() > 15 ||
            size.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos) {
          Fail(400, "bad request: invalid chunk size");
          return used;
        }
        const size_t n = std::stoull(std::string(size), nullptr, 16);
        line_.clear();
        if (n > limits_.max_body_bytes - request_.body.size()) {
          Fail(413, "message too large: the limit is " + std::to_string(limits_.max_body_bytes) +
                        " bytes; it was not read");
          return used;
        }
        if (n == 0) {
          chunk_state_ = ChunkState::kTrailer;
        } else {
          remaining_ = n;
          chunk_state_ = ChunkState::kData;
        }
        break;
      }
      case ChunkState::kData: {
        const size_t n = std::min(remaining_, bytes.size() - used);
        request_.body.append(bytes.substr(used, n));
        used += n;
        remaining_ -= n;
        if (remaining_ == 0) chunk_state_ = ChunkState::kDataEnd;
        break;
      }
      case ChunkState::kDataEnd: {
        const char c = bytes[used++];
        if (c == '\r' && line_.empty()) {
          line_.push_back(c);
        } else if (c == '\n') {
          line_.clear();
          chunk_state_ = ChunkState::kSize;
        } else {
          Fail(400, "bad request: chunk data not followed by CRLF");
          return used;
        }
        break;
      }
    }
  }
  return used;
}

const char* HttpReason(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 303:
      return "See Other";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 406:
      return "Not Acceptable";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 413:
      return "Payload Too Large";
    case 415:
      return "Unsupported Media Type";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Unknown";
  }
}

std::string HttpStatusLine(int status) {
  return "HTTP/1.1 " + std::to_string(status) + " " + HttpReason(status) + "\r\n";
}

}  // namespace uiscope::mcp
