// The connections of the Streamable HTTP transport: uiscope's own HTTP/1.1
// loop, which reads requests off sockets, hands each complete one to the
// endpoint (mcp/http_endpoint.h) and writes its reply, event streams
// included.
//
// Why its own loop (issue 14, defect 4): cpp-httplib's Debian build (0.11, a
// shared library) fixes the listen backlog at 5 and gives every connection,
// event streams and unfinished request heads included, one thread of a
// fixed pool: 32 open streams or 33 slow clients stopped it answering
// anyone. Here one reactor thread (epoll) accepts (backlog SOMAXCONN), reads
// every request head and body without blocking, under deadlines
// (`header_timeout_ms` for the head from its first byte, `body_timeout_ms`
// for the body, `idle_timeout_ms` between requests; a request too slow is
// answered 408), and keeps the open GET event streams itself, writing their
// keep-alive comments; a request runs on a worker only once it is complete.
// Requests are handled on a few `request_threads`; a tools/call (which may
// run long and waits for the client's answers) moves to one of `threads`
// call threads. What does not fit is answered at once with 503 and
// `Retry-After`, never left to hang: more than `max_connections`
// connections, a full request queue, every call thread busy. When the
// process runs out of file descriptors, a reserved one is freed to accept
// the connection, answer 503 and close it. Bytes are parsed by
// HttpRequestParser (mcp/http_request.h), which refuses what is malformed or
// too large (400, 413, 431, 501).
//
// Who implements it: HttpServer, the only implementation; HttpTransport
// (mcp/http_transport.h) pairs it with an endpoint.
//
// Thread safety: every method may be called from any thread; Stop may also
// be called while another thread is in Wait (a signal handler thread does).
//
// Ownership: the server keeps a reference to the endpoint, which must
// outlive it. A connection is owned by exactly one thread at a time (the
// reactor, or the worker handling its request).
#pragma once

#include <memory>
#include <string>

#include "core/result.h"
#include "mcp/http_endpoint.h"
#include "mcp/http_options.h"

namespace uiscope::mcp {

class HttpServer {
 public:
  // Binds to options.host:options.port and starts serving on a background
  // thread. Unavailable when the address cannot be bound; InvalidArgument
  // when the host does not resolve.
  static Result<std::unique_ptr<HttpServer>> Start(McpHttpEndpoint& endpoint, HttpOptions options);

  ~HttpServer();  // Stop()

  int port() const;
  std::string url() const;  // "http://127.0.0.1:PORT/mcp"
  // options.max_connections, lowered to fit the file descriptor limit.
  int max_connections() const;

  // Stops listening, cuts connections short, ends every session of the
  // endpoint (EndAll) and returns when all threads are done.
  void Stop();
  // Blocks until Stop() is called from another thread.
  void Wait();

 private:
  class Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace uiscope::mcp
