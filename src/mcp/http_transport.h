// The Streamable HTTP transport (MCP 2025-03-26 and later) on cpp-httplib.
//
//   POST   /mcp  one JSON-RPC message (or a 2025-03-26 batch). Requests are
//                answered with application/json, except tools/call, which is
//                answered with a text/event-stream carrying its progress and
//                log notifications, the requests it sends the client (an
//                elicitation/create asking the user to confirm), and then
//                the result. Notifications and responses alone (the
//                client's answer to such a request) get 202 Accepted.
//   GET    /mcp  the session's server-to-client event stream (keep-alive
//                comments only today: this server sends nothing unprompted).
//   DELETE /mcp  ends the session.
//
// Sessions: `initialize` opens one and its reply carries `Mcp-Session-Id`;
// every later request must carry it (400 without, 404 when unknown or
// ended). `MCP-Protocol-Version`, when sent, must be a version this server
// speaks (400 otherwise).
//
// Security (MCP "Security Warning"): binds to loopback unless told
// otherwise; rejects with 403 a request whose Origin is not a local origin
// (or one allowed with `allowed_origins`), and, when bound to loopback, one
// whose Host is not a loopback name (DNS rebinding); with a token, requires
// `Authorization: Bearer TOKEN` (401 otherwise). Bodies above
// `max_message_bytes` get 413 without being kept in memory.
//
// Threading: one thread listens; requests run on a pool of `threads`
// threads, one request each (an open GET stream holds one thread).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "mcp/server.h"
#include "mcp/stdio_transport.h"

namespace uiscope::mcp {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 0;                              // 0 = any free port; HttpTransport::port() tells which
  std::string token;                         // "" = no authentication
  std::vector<std::string> allowed_origins;  // extra origins, e.g. "https://agent.example"
  size_t max_message_bytes = kDefaultMaxMessageBytes;
  int threads = 32;
  int max_sessions = 256;      // beyond this, the least recently used idle session is ended
  int keepalive_seconds = 15;  // comment lines on idle event streams
};

class HttpTransport {
 public:
  // Binds and starts serving on a background thread. Unavailable when the
  // address cannot be bound; InvalidArgument for a malformed host.
  // `server` must have tools_inline set and outlive the transport.
  static Result<std::unique_ptr<HttpTransport>> Start(const Server& server, HttpOptions options);

  ~HttpTransport();  // Stop()

  int port() const;
  std::string url() const;  // "http://127.0.0.1:PORT/mcp"

  // Ends every session and stops listening; returns when all threads are done.
  void Stop();
  // Blocks until Stop() is called from another thread (or a signal handler
  // thread).
  void Wait();

  class Impl;

 private:
  explicit HttpTransport(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// True for a loopback host name: localhost, 127.x.y.z, ::1 (brackets and a
// port allowed: "[::1]:8080", "localhost:3000").
bool IsLoopbackHost(std::string_view host_and_port);

}  // namespace uiscope::mcp
