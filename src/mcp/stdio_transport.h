// The stdio transport: newline-delimited JSON-RPC on a pair of file
// descriptors (MCP "stdio": one message per line, UTF-8, no embedded
// newlines; logs go to stderr, never stdout).
//
// A line longer than the limit is skipped as it streams past, without
// buffering it, and answered with an InvalidRequest error: a 64 MiB message
// costs the limit in memory, not 64 MiB. A line that is not JSON is answered
// with a ParseError and the loop goes on.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "mcp/server.h"

namespace uiscope::mcp {

inline constexpr size_t kDefaultMaxMessageBytes = 16u << 20;  // 16 MiB

// Splits a byte stream into lines (without the "\n" and a trailing "\r").
// Pure, so the fuzzer drives the same code as the real loop.
class LineSplitter {
 public:
  struct Line {
    std::string_view text;  // valid until the next Feed
    bool too_long = false;  // the line exceeded the limit; `text` is empty
    size_t length = 0;      // bytes of the line as received
  };
  using Sink = std::function<void(const Line&)>;

  explicit LineSplitter(size_t max_line_bytes) : max_(max_line_bytes) {}

  void Feed(std::string_view bytes, const Sink& sink);
  // End of input: a last line without "\n" is delivered.
  void Finish(const Sink& sink);

 private:
  size_t max_;
  std::string pending_;
  bool discarding_ = false;
  size_t discarded_ = 0;
};

// Feeds one line to the session: parse, too-long and blank-line handling as
// in the stdio loop. Exposed for the fuzzer and the transcript tests.
void HandleLine(Session& session, const LineSplitter::Line& line, size_t max_message_bytes,
                Outbound& out);

struct StdioOptions {
  size_t max_message_bytes = kDefaultMaxMessageBytes;
  // When this descriptor becomes readable the loop stops reading, as at end
  // of input (a signal handler thread writes to it); -1 = none.
  int stop_fd = -1;
};

// Serves one session on `in_fd` / `out_fd` until end of input, a `shutdown`
// request or a closed output; then waits for requests in flight. Returns 0,
// or 1 when the output failed.
int ServeStdio(const Server& server, int in_fd, int out_fd, const StdioOptions& options = {});

// An Outbound writing one JSON line per message to a file descriptor,
// serialised by a mutex (worker threads reply concurrently).
class FdLineWriter final : public Outbound {
 public:
  explicit FdLineWriter(int fd) : fd_(fd) {}
  bool Send(const json& message) override;
  bool failed() const;

 private:
  int fd_;
  mutable std::mutex mutex_;
  bool failed_ = false;
};

}  // namespace uiscope::mcp
