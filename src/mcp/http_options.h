// The settings of the Streamable HTTP transport, shared by its two halves:
// the endpoint (mcp/http_endpoint.h: security, sessions and their limits)
// and the connection server (mcp/http_server.h: sockets, deadlines, worker
// pools). Plain data; `uiscope mcp` fills it from its flags (mcp/serve.h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "mcp/stdio_transport.h"

namespace uiscope::mcp {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 0;                              // 0 = any free port; HttpTransport::port() tells which
  std::string token;  // "" = HttpTransport makes one (McpHttpEndpoint alone: no authentication)
  bool mcp = true;  // false: /mcp is not served (`uiscope web`: the page alone)
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
  // a client already at `max_sessions_per_client` ends its own least
  // recently used idle one instead (429 when all of them are busy).
  // What a "client" is: see ClientKey in http_endpoint.cpp.
  int max_sessions = 256;
  int max_sessions_per_client = 64;
  int keepalive_seconds = 15;  // comment lines on idle event streams
};

}  // namespace uiscope::mcp
