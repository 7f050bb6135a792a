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
// Connections (issue 14, defect 4): uiscope runs its own HTTP/1.1 loop
// rather than cpp-httplib's, whose Debian build (0.11, a shared library)
// fixes the listen backlog at 5 and gives every connection, event streams
// and unfinished request heads included, one thread of a fixed pool: 32
// open streams or 33 slow clients stopped it answering anyone. Here one
// reactor thread accepts (backlog SOMAXCONN), reads every request head and
// body without blocking, under deadlines (`header_timeout_ms` for the head
// from its first byte, `body_timeout_ms` for the body, `idle_timeout_ms`
// between requests), and keeps the open GET event streams itself; a request
// runs on a worker only once it is complete. Requests are handled on a few
// `request_threads`; a tools/call (which may run long and waits for the
// client's answers) moves to one of `threads` call threads. What does not
// fit is answered at once with 503 and `Retry-After`, never left to hang:
// more than `max_connections` connections, a full request queue, every
// call thread busy. When the process runs out of file descriptors, a
// reserved one is freed to accept the connection, answer 503 and close it.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/result.h"
#include "mcp/http_request.h"
#include "mcp/server.h"
#include "mcp/stdio_transport.h"

namespace uiscope::mcp {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 0;                              // 0 = any free port; HttpTransport::port() tells which
  std::string token;                         // "" = no authentication
  std::vector<std::string> allowed_origins;  // extra origins, e.g. "https://agent.example"
  size_t max_message_bytes = kDefaultMaxMessageBytes;
  int threads = 32;         // concurrent tools/call; beyond, 503 with Retry-After
  int request_threads = 4;  // every other request (they do not wait on anything)
  int max_queued_requests = 1024;
  int max_connections = 4096;     // also capped by the descriptor limit (RLIMIT_NOFILE)
  int header_timeout_ms = 10000;  // a request head must arrive within this of its first byte
  int body_timeout_ms = 30000;    // and its body within this of the head
  int idle_timeout_ms = 60000;    // a connection between requests
  int retry_after_seconds = 1;    // in every 503
  // Sessions. Beyond `max_sessions`, an idle session (no request in flight,
  // no open event stream) of the client holding the most sessions is ended;
  // a client already at `max_sessions_per_client` is refused instead (429).
  // What a "client" is: see ClientKey in http_transport.cpp.
  int max_sessions = 256;
  int max_sessions_per_client = 64;
  int keepalive_seconds = 15;  // comment lines on idle event streams
};

// The endpoint's answer to one request.
struct HttpReply {
  int status = 200;
  HttpHeaders headers;
  std::string content_type;  // "" = no body
  std::string body;
  bool close = false;  // Connection: close after this reply
  // A tools/call: a text/event-stream written by running this on a thread
  // that may block (a call thread); the reply is whatever it sends to `out`.
  std::function<void(Outbound& out)> stream;
  // A GET event stream: the transport keeps the connection open, writing
  // keep-alive comments, until the stream ends or the client goes.
  class EventStream;
  std::shared_ptr<EventStream> events;
};

// Shared by a session (which ends it) and the connection that carries it.
class HttpReply::EventStream {
 public:
  // The session ended: the transport closes the stream. Thread-safe.
  void End();
  bool ended();
  // Transport side: `wake` runs (on any thread) when End() is called.
  void SetWake(std::function<void()> wake);
  // Transport side: the connection is gone; runs `on_closed` (once).
  void Closed();
  // Endpoint side: what to do when the connection is gone.
  void SetOnClosed(std::function<void()> on_closed);

 private:
  std::mutex mutex_;
  bool ended_ = false;
  bool closed_ = false;
  std::function<void()> wake_;
  std::function<void()> on_closed_;
};

// Who sent a request, as the transport saw it.
struct HttpPeer {
  std::string address;  // "127.0.0.1:53312"
};

// The MCP semantics of the endpoint (sessions, headers, security checks),
// without sockets: the transport and the fuzzer call Handle with parsed
// requests. Handle never throws: what throws inside becomes a JSON-RPC
// error reply. Thread-safe.
class McpHttpEndpoint {
 public:
  McpHttpEndpoint(const Server& server, HttpOptions options, bool loopback);
  ~McpHttpEndpoint();
  HttpReply Handle(const HttpRequest& request, const HttpPeer& peer);
  // A reply for a request the parser refused (status 400, 413, 431, ...).
  static HttpReply Refusal(int status, const std::string& message);
  // Ends every session and its event stream, waiting for requests in flight.
  void EndAll();
  size_t session_count();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
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
