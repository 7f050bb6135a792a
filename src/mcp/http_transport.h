// The Streamable HTTP transport (MCP 2025-03-26 and later), as `uiscope mcp
// --http` runs it: an endpoint (mcp/http_endpoint.h: the MCP semantics of
// POST, GET and DELETE /mcp, sessions and their limits, the Origin, Host and
// token checks) behind a connection server (mcp/http_server.h: uiscope's own
// HTTP/1.1 loop with read deadlines, event streams without a thread each,
// bounded worker pools, 503 with Retry-After for what does not fit). The
// settings of both are HttpOptions (mcp/http_options.h). Binds to loopback
// unless told otherwise.
//
// Who implements it: this class only joins the two; tests and the fuzzer
// that need no sockets use McpHttpEndpoint directly.
//
// Thread safety: every method may be called from any thread; Stop may be
// called while another thread is in Wait (a signal handler thread does).
//
// Ownership: the transport owns its endpoint and server; the Server it
// serves must outlive it.
#pragma once

#include <memory>
#include <string>

#include "core/result.h"
#include "mcp/http_endpoint.h"
#include "mcp/http_options.h"
#include "mcp/http_server.h"
#include "mcp/server.h"

namespace uiscope::mcp {

class HttpTransport {
 public:
  // Binds and starts serving on a background thread. Unavailable when the
  // address cannot be bound; InvalidArgument for a malformed host.
  // `server` must have tools_inline set and outlive the transport. `site`,
  // when set, serves every path but /mcp (the web page, mcp/http_site.h).
  static Result<std::unique_ptr<HttpTransport>> Start(const Server& server, HttpOptions options,
                                                      std::shared_ptr<HttpSite> site = nullptr);

  ~HttpTransport();  // Stop()

  int port() const;
  std::string url() const;      // "http://127.0.0.1:PORT/mcp"
  int max_connections() const;  // HttpServer::max_connections
  // The bearer token /mcp requires: HttpOptions::token, or the one made
  // because none was given.
  const std::string& token() const { return token_; }

  // Ends every session and stops listening; returns when all threads are done.
  void Stop();
  // Blocks until Stop() is called from another thread (or a signal handler
  // thread).
  void Wait();

 private:
  HttpTransport(std::unique_ptr<McpHttpEndpoint> endpoint, std::unique_ptr<HttpServer> http,
                std::string token);
  std::unique_ptr<McpHttpEndpoint> endpoint_;  // declared first: outlives http_
  std::unique_ptr<HttpServer> http_;
  std::string token_;
};

}  // namespace uiscope::mcp
