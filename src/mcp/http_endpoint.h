// The MCP side of Streamable HTTP (MCP 2025-03-26 and later): one parsed
// request in, one reply out, no sockets.
//
//   POST   /mcp  one JSON-RPC message (or a 2025-03-26 batch). Requests are
//                answered with application/json, except tools/call, which is
//                answered with a text/event-stream carrying its progress and
//                log notifications, the requests it sends the client (an
//                elicitation/create asking the user to confirm), and then
//                the result. Notifications and responses alone (the
//                client's answer to such a request) get 202 Accepted.
//   GET    /mcp  the session's server-to-client event stream: keep-alive
//                comments, and the messages the client did not ask for
//                (notifications/resources/updated of its subscriptions).
//   DELETE /mcp  ends the session.
//
// Sessions: `initialize` opens one and its reply carries `Mcp-Session-Id`;
// every later request must carry it (400 without, 404 when unknown or
// ended). `MCP-Protocol-Version`, when sent, must be a version this server
// speaks (400 otherwise). Limits (issue 14, defect 8): a client already
// holding `max_sessions_per_client` sessions ends its own least recently
// used idle one to open another (429 when all of its sessions are busy);
// beyond `max_sessions`, an idle session of the client holding the most is
// ended. A busy session (a request in flight, which includes a tool call
// waiting for a person's confirmation, or an open event stream) never is:
// when every session is busy, 503 with Retry-After.
//
// Security (MCP "Security Warning"): rejects with 403 a request whose Origin
// is not the server's own (http://HOST as the Host header says) or one
// allowed with `allowed_origins` (so no CORS for pages of other local
// ports), and, when bound to loopback, one whose Host is not a loopback
// name (DNS rebinding; parsed whole, HOST[:PORT]); with a token, requires
// `Authorization: Bearer TOKEN` (401 otherwise). HttpTransport always
// gives it one (generated when none is configured); an empty token, no
// authentication, is left to in-process callers (the fuzzer, tests).
//
// Who implements it: McpHttpEndpoint, the only implementation. HttpServer
// (mcp/http_server.h) calls it for every request it has read; the fuzzer
// (fuzz/http_request.cpp) calls it with parsed bytes.
//
// Thread safety: Handle, EndAll and session_count may be called from any
// number of threads at once. A reply's `stream` runs on one thread, which
// may block (a tool call waiting for the client's answer).
//
// Ownership: the endpoint keeps a reference to the Server, which must have
// tools_inline set and outlive it. A reply may hold its session busy (not
// evictable): a tools/call until the `stream` closure is destroyed, run or
// not; a GET event stream until the transport calls its Closed().
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "mcp/http_options.h"
#include "mcp/http_request.h"
#include "mcp/server.h"

namespace uiscope::mcp {

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
  // Endpoint side: queues `message` for the client and wakes the
  // transport; false once the stream ended or closed. Thread-safe.
  bool Push(const json& message);
  // Transport side: the messages queued since the last call, in order.
  std::vector<json> TakePending();
  // Transport side: `wake` runs (on any thread) when End() or Push() is called.
  void SetWake(std::function<void()> wake);
  // Transport side: the connection is gone; runs `on_closed` (once).
  void Closed();
  // Endpoint side: what to do when the connection is gone.
  void SetOnClosed(std::function<void()> on_closed);

 private:
  std::mutex mutex_;
  bool ended_ = false;
  bool closed_ = false;
  std::vector<json> pending_;
  std::function<void()> wake_;
  std::function<void()> on_closed_;
};

class HttpSite;  // mcp/http_site.h

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
  // `loopback`: the server listens on a loopback address, so the Host header
  // must name one too.
  // `site`, when set, serves every path but /mcp (mcp/http_site.h).
  McpHttpEndpoint(const Server& server, HttpOptions options, bool loopback,
                  std::shared_ptr<HttpSite> site = nullptr);
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

// True for a loopback host name: localhost, 127.x.y.z, ::1 (brackets and a
// port allowed: "[::1]:8080", "localhost:3000"; nothing else after the
// host: "127.0.0.1:80@evil.example" is not one).
bool IsLoopbackHost(std::string_view host_and_port);

// The Origin rule of /mcp: the server's own origin ("http://" + `host`, the
// request's Host header), or one of `allowed` (compared case-insensitively).
bool IsAllowedOrigin(std::string_view origin, std::string_view host,
                     const std::vector<std::string>& allowed);

// A new bearer token: 128 bits from the kernel's CSPRNG, 32 hex digits.
std::string NewHttpToken();

// `given` equals `token`, in time that does not depend on where they differ.
bool TokenMatches(std::string_view given, std::string_view token);

}  // namespace uiscope::mcp
