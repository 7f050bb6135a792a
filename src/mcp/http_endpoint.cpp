#include "mcp/http_endpoint.h"

#include <sys/random.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/ascii.h"
#include "mcp/http_site.h"

namespace uiscope::mcp {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kSessionHeader = "Mcp-Session-Id";
constexpr const char* kVersionHeader = "MCP-Protocol-Version";
constexpr int kServerErrorCode = -32000;  // transport-level errors in a JSON-RPC body

// The host part of "host", "host:port", "[v6]" or "[v6]:port".
std::string HostPart(std::string_view s) {
  if (!s.empty() && s.front() == '[') {
    auto close = s.find(']');
    return std::string(close == std::string_view::npos ? s : s.substr(0, close + 1));
  }
  auto colon = s.find(':');
  return std::string(colon == std::string_view::npos ? s : s.substr(0, colon));
}

std::string NewSessionId() {
  static std::mutex mutex;
  static std::random_device device;
  static std::mt19937_64 rng(((static_cast<uint64_t>(device()) << 32) ^ device()));
  std::lock_guard lock(mutex);
  char buf[33];
  std::snprintf(buf, sizeof(buf), "%016llx%016llx", static_cast<unsigned long long>(rng()),
                static_cast<unsigned long long>(rng()));
  return buf;
}

bool Accepts(const HttpRequest& req, std::string_view type) {
  const std::string accept = AsciiLower(req.Header("Accept"));
  return accept.find(type) != std::string::npos || accept.find("*/*") != std::string::npos;
}

HttpReply JsonReply(int status, const json& body) {
  HttpReply r;
  r.status = status;
  r.content_type = "application/json";
  r.body = DumpMessage(body);
  return r;
}

// An HTTP-level refusal with a JSON-RPC error body (id null), as the MCP
// reference servers send.
HttpReply Refuse(int status, const std::string& message, int code = kServerErrorCode) {
  return JsonReply(status, MakeError(nullptr, RpcError{code, message, nullptr}));
}

// A session's notifier (Session::SetNotifier) while its GET stream is open.
class EventStreamOutbound final : public Outbound {
 public:
  explicit EventStreamOutbound(std::shared_ptr<HttpReply::EventStream> stream)
      : stream_(std::move(stream)) {}
  bool Send(const json& message) override { return stream_->Push(message); }
  bool Alive() override { return !stream_->ended(); }

 private:
  std::shared_ptr<HttpReply::EventStream> stream_;
};

// Collects the replies of one POST answered as application/json.
class ReplyCollector final : public Outbound {
 public:
  bool Send(const json& message) override {
    std::lock_guard lock(mutex_);
    // Notifications of a plain-JSON exchange have nowhere to go.
    if (message.is_array() || message.contains("id")) replies_.push_back(message);
    return true;
  }
  std::vector<json> Take() {
    std::lock_guard lock(mutex_);
    return std::move(replies_);
  }

 private:
  std::mutex mutex_;
  std::vector<json> replies_;
};

bool ContainsMethod(const json& frame, std::string_view method) {
  auto is = [&](const json& m) {
    return m.is_object() && m.contains("method") && m["method"].is_string() &&
           m["method"].get<std::string>() == method;
  };
  if (frame.is_array()) return std::any_of(frame.begin(), frame.end(), is);
  return is(frame);
}

bool ContainsRequest(const json& frame) {
  auto is = [](const json& m) { return m.is_object() && m.contains("method") && m.contains("id"); };
  if (frame.is_array()) return std::any_of(frame.begin(), frame.end(), is);
  return is(frame);
}

// Who a session belongs to, for the per-client session limit.
//
// On loopback TCP there is no peer identity to trust: no SO_PEERCRED (that
// is Unix sockets), every local process of the user shares one uid and the
// one bearer token, and the peer port changes with every connection. So a
// client is what it says it is: the token it presented and the
// `clientInfo.name` of its initialize. That stops a runaway client (a loop
// opening sessions) from crowding out the others: beyond its limit it ends
// its own idle sessions, and gets a clear 429 when all of them are busy;
// a hostile local process can rotate names, and against it the rule that
// matters is that eviction never ends a busy session (a request in flight —
// which includes a tool call waiting for a person's confirmation — or an
// open event stream) and takes from the client holding the most sessions.
std::string ClientKey(const HttpRequest& req, const json& frame) {
  std::string name = "(unnamed)";
  auto from = [&](const json& m) {
    if (!m.is_object() || !m.contains("params") || !m["params"].is_object()) return;
    const json& params = m["params"];
    if (params.contains("clientInfo") && params["clientInfo"].is_object() &&
        params["clientInfo"].contains("name") && params["clientInfo"]["name"].is_string()) {
      name = params["clientInfo"]["name"].get<std::string>().substr(0, 200);
    }
  };
  if (frame.is_array()) {
    for (const auto& m : frame) from(m);
  } else {
    from(frame);
  }
  return std::string(req.Header("Authorization")) + "\n" + name;
}

// "127.a.b.c" with four decimal parts of 0..255, nothing else.
bool IsLoopbackIpv4(std::string_view host) {
  int parts = 0;
  while (true) {
    const size_t dot = host.find('.');
    const std::string_view part = host.substr(0, dot);
    if (part.empty() || part.size() > 3 ||
        part.find_first_not_of("0123456789") != std::string_view::npos ||
        std::stoi(std::string(part)) > 255) {
      return false;
    }
    if (parts == 0 && part != "127") return false;
    ++parts;
    if (dot == std::string_view::npos) break;
    host.remove_prefix(dot + 1);
  }
  return parts == 4;
}

}  // namespace

bool IsLoopbackHost(std::string_view host_and_port) {
  // Parsed whole: what follows the host may only be ":PORT". A prefix
  // match let "127.0.0.1:80@evil.example" or "localhost.evil.example"
  // through, names a browser resolves elsewhere.
  const std::string lower = AsciiLower(host_and_port);
  // A bare IPv6 address has colons of its own: only without a port.
  if (lower == "::1") return true;
  const std::string host = HostPart(lower);
  std::string_view rest = std::string_view(lower).substr(host.size());
  if (!rest.empty()) {
    if (rest.front() != ':') return false;
    rest.remove_prefix(1);
    if (rest.empty() || rest.size() > 5 ||
        rest.find_first_not_of("0123456789") != std::string_view::npos ||
        std::stoi(std::string(rest)) > 65535) {
      return false;
    }
  }
  if (host == "localhost" || host == "[::1]") return true;
  return IsLoopbackIpv4(host);
}

bool TokenMatches(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) diff |= a[i] ^ (i < b.size() ? b[i] : 0);
  return diff == 0;
}

bool IsAllowedOrigin(std::string_view origin, std::string_view host,
                     const std::vector<std::string>& allowed_origins) {
  const std::string lower = AsciiLower(origin);
  for (const auto& allowed : allowed_origins) {
    if (AsciiLower(allowed) == lower) return true;
  }
  // The server's own origin only: a page served by another local port is
  // another origin, and must not drive this server from a person's browser.
  return !host.empty() && lower == "http://" + AsciiLower(host);
}

std::string NewHttpToken() {
  unsigned char bytes[16] = {};
  size_t got = 0;
  while (got < sizeof(bytes)) {
    const ssize_t n = getrandom(bytes + got, sizeof(bytes) - got, 0);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  if (got < sizeof(bytes)) {
    // getrandom does not fail on Linux >= 3.17 once the pool is ready.
    std::random_device device;
    for (auto& b : bytes) b = static_cast<unsigned char>(device());
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char b : bytes) {
    hex += kDigits[b >> 4];
    hex += kDigits[b & 15];
  }
  return hex;
}

// --- EventStream -------------------------------------------------------------

void HttpReply::EventStream::End() {
  std::function<void()> wake;
  {
    std::lock_guard lock(mutex_);
    if (ended_) return;
    ended_ = true;
    wake = wake_;
  }
  if (wake) wake();
}

bool HttpReply::EventStream::Push(const json& message) {
  std::function<void()> wake;
  {
    std::lock_guard lock(mutex_);
    if (ended_ || closed_) return false;
    // A client that stopped reading must not grow this without bound.
    constexpr size_t kMaxPending = 1000;
    if (pending_.size() >= kMaxPending) return false;
    pending_.push_back(message);
    wake = wake_;
  }
  if (wake) wake();
  return true;
}

std::vector<json> HttpReply::EventStream::TakePending() {
  std::lock_guard lock(mutex_);
  return std::move(pending_);
}

bool HttpReply::EventStream::ended() {
  std::lock_guard lock(mutex_);
  return ended_;
}

void HttpReply::EventStream::SetWake(std::function<void()> wake) {
  std::lock_guard lock(mutex_);
  wake_ = std::move(wake);
}

void HttpReply::EventStream::SetOnClosed(std::function<void()> on_closed) {
  std::lock_guard lock(mutex_);
  on_closed_ = std::move(on_closed);
}

void HttpReply::EventStream::Closed() {
  std::function<void()> on_closed;
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    closed_ = true;
    on_closed = std::move(on_closed_);
    wake_ = nullptr;
  }
  if (on_closed) on_closed();
}

// --- The endpoint ------------------------------------------------------------

namespace {

struct HttpSession {
  std::string id;
  std::string client;  // ClientKey
  std::unique_ptr<Session> session;
  // Guarded by the endpoint's mutex:
  Clock::time_point last_used = Clock::now();
  int active_requests = 0;
  std::shared_ptr<HttpReply::EventStream> stream;  // the open GET stream, if any
};

}  // namespace

class McpHttpEndpoint::Impl {
 public:
  Impl(const Server& server, HttpOptions options, bool loopback, std::shared_ptr<HttpSite> site)
      : server_(server),
        options_(std::move(options)),
        loopback_(loopback),
        site_(std::move(site)) {}

  HttpReply Handle(const HttpRequest& req) {
    if (req.path != "/mcp" || !options_.mcp) {
      if (site_ && req.path != "/mcp") return site_->Handle(req);
      return Refuse(404, "not found: the MCP endpoint is /mcp");
    }
    if (auto refusal = Screen(req)) return std::move(*refusal);
    HttpReply reply;
    if (req.method == "POST") {
      reply = Post(req);
    } else if (req.method == "GET") {
      reply = Get(req);
    } else if (req.method == "DELETE") {
      reply = Delete(req);
    } else if (req.method == "OPTIONS") {
      reply.status = 204;
    } else {
      reply = Refuse(405, "method not allowed: use POST, GET or DELETE on /mcp");
      reply.headers.emplace_back("Allow", "GET, POST, DELETE");
    }
    for (auto& h : cors_headers(req)) reply.headers.push_back(std::move(h));
    return reply;
  }

  void EndAll() {
    std::map<std::string, std::shared_ptr<HttpSession>> sessions;
    {
      std::lock_guard lock(mutex_);
      sessions = std::move(sessions_);
      sessions_.clear();
      per_client_.clear();
      ended_all_ = true;
    }
    for (auto& [id, s] : sessions) {
      if (s->stream) s->stream->End();
    }
    for (auto& [id, s] : sessions) s->session->Close();
  }

  size_t session_count() {
    std::lock_guard lock(mutex_);
    return sessions_.size();
  }

 private:
  HttpHeaders cors_headers(const HttpRequest& req) {
    if (!req.HasHeader("Origin")) return {};
    const std::string origin(req.Header("Origin"));
    return {{"Access-Control-Allow-Origin", origin},
            {"Vary", "Origin"},
            {"Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS"},
            {"Access-Control-Allow-Headers",
             "Content-Type, Accept, Authorization, Mcp-Session-Id, MCP-Protocol-Version, "
             "Last-Event-ID"},
            {"Access-Control-Expose-Headers", "Mcp-Session-Id, MCP-Protocol-Version"}};
  }

  // Origin, Host and token checks, before anything else. A refusal, or none.
  std::optional<HttpReply> Screen(const HttpRequest& req) {
    if (req.HasHeader("Origin")) {
      const std::string origin(req.Header("Origin"));
      if (!IsAllowedOrigin(origin, req.Header("Host"), options_.allowed_origins)) {
        return Refuse(403, "forbidden: Origin " + origin +
                               " is not this server's origin (no other page may drive it from "
                               "a browser); allow it with --allow-origin");
      }
    }
    if (loopback_ && !IsLoopbackHost(req.Header("Host"))) {
      return Refuse(403, "forbidden: Host " + std::string(req.Header("Host")) +
                             " is not a loopback name; this server answers only to localhost "
                             "(DNS rebinding protection)");
    }
    if (req.method == "OPTIONS") return std::nullopt;  // CORS preflight carries no credentials
    if (!options_.token.empty()) {
      const std::string auth(req.Header("Authorization"));
      const std::string prefix = "Bearer ";
      if (auth.size() <= prefix.size() || AsciiLower(auth.substr(0, prefix.size())) != "bearer " ||
          !TokenMatches(std::string_view(auth).substr(prefix.size()), options_.token)) {
        HttpReply r =
            Refuse(401, "unauthorized: send the server's token as `Authorization: Bearer TOKEN`");
        r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"uiscope\"");
        return r;
      }
    }
    return std::nullopt;
  }

  // The session named by the request's header, or a refusal. With `hold`,
  // the request's hold on it (active_requests) is taken under the same lock
  // as the lookup, so the session cannot be evicted in between.
  std::shared_ptr<HttpSession> FindSession(const HttpRequest& req, HttpReply* refusal,
                                           bool hold = false) {
    if (!req.HasHeader(kSessionHeader)) {
      *refusal =
          Refuse(400, "bad request: Mcp-Session-Id header is required (send initialize first)");
      return nullptr;
    }
    const std::string id(req.Header(kSessionHeader));
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end()) {
      *refusal = Refuse(404, "session not found: it ended or never existed; initialize a new one");
      return nullptr;
    }
    it->second->last_used = Clock::now();
    if (hold) ++it->second->active_requests;
    return it->second;
  }

  std::optional<HttpReply> VersionRefusal(const HttpRequest& req) {
    if (!req.HasHeader(kVersionHeader)) return std::nullopt;  // 2025-03-26 clients do not send it
    const std::string v(req.Header(kVersionHeader));
    if (IsSupportedProtocolVersion(v)) return std::nullopt;
    return Refuse(400, "bad request: unsupported MCP-Protocol-Version " + v +
                           " (supported: 2025-11-25, 2025-06-18, 2025-03-26)");
  }

  static bool Busy(const HttpSession& s) { return s.active_requests > 0 || s.stream != nullptr; }

  // A new session for `client`, or a refusal (429: this client is at its
  // limit and all of its sessions are busy; 503: every session is busy).
  // Called with mutex_ held.
  std::shared_ptr<HttpSession> OpenSessionLocked(const std::string& client,
                                                 std::unique_ptr<Session> session,
                                                 HttpReply* refusal,
                                                 std::shared_ptr<HttpSession>* evicted) {
    if (ended_all_) {
      *refusal = Refuse(503, "the server is stopping");
      return nullptr;
    }
    if (per_client_[client] >= options_.max_sessions_per_client) {
      // At its limit, the client's new session takes the place of its own
      // least recently used idle one. Refusing it instead locked out, for
      // the server's lifetime, a client that opens a session per task and
      // never ends them (the TypeScript SDK's close() sends no DELETE):
      // nothing else ends an idle session below max_sessions.
      auto own = sessions_.end();
      for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
        if (it->second->client != client || Busy(*it->second)) continue;
        if (own == sessions_.end() || it->second->last_used < own->second->last_used) own = it;
      }
      if (own == sessions_.end()) {
        *refusal =
            Refuse(429, "too many sessions for this client: it holds " +
                            std::to_string(per_client_[client]) + ", all busy (the limit is " +
                            std::to_string(options_.max_sessions_per_client) +
                            "); end sessions it no longer needs with DELETE /mcp");
        refusal->headers.emplace_back("Retry-After", std::to_string(options_.retry_after_seconds));
        return nullptr;
      }
      *evicted = own->second;
      RemoveLocked(own);
    } else if (static_cast<int>(sessions_.size()) >= options_.max_sessions) {
      // Take from the client holding the most sessions its least recently
      // used idle one; a busy session is never ended.
      auto victim = sessions_.end();
      for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
        if (Busy(*it->second)) continue;
        if (victim == sessions_.end()) {
          victim = it;
          continue;
        }
        const int mine = per_client_[it->second->client];
        const int theirs = per_client_[victim->second->client];
        if (mine > theirs || (mine == theirs && it->second->last_used < victim->second->last_used))
          victim = it;
      }
      if (victim == sessions_.end()) {
        *refusal = Refuse(503, "too many sessions: all " + std::to_string(sessions_.size()) +
                                   " are busy; try again later");
        refusal->headers.emplace_back("Retry-After", std::to_string(options_.retry_after_seconds));
        return nullptr;
      }
      *evicted = victim->second;
      RemoveLocked(victim);
    }
    auto s = std::make_shared<HttpSession>();
    s->id = NewSessionId();
    s->client = client;
    s->session = std::move(session);
    sessions_[s->id] = s;
    ++per_client_[client];
    return s;
  }

  void RemoveLocked(std::map<std::string, std::shared_ptr<HttpSession>>::iterator it) {
    if (--per_client_[it->second->client] <= 0) per_client_.erase(it->second->client);
    sessions_.erase(it);
  }

  HttpReply Post(const HttpRequest& req) {
    if (!Accepts(req, "application/json") || !Accepts(req, "text/event-stream")) {
      return Refuse(406,
                    "not acceptable: the client must accept both application/json and "
                    "text/event-stream");
    }
    const std::string type = AsciiLower(req.Header("Content-Type"));
    if (type.rfind("application/json", 0) != 0) {
      return Refuse(415, "unsupported media type: the body must be application/json");
    }
    Parsed parsed;
    try {
      parsed = ParseFrame(req.body);
    } catch (const std::exception&) {
      // nlohmann throws out_of_range (not parse_error) for a number such as
      // 1e400; whatever the parser lets escape, the body was not usable JSON.
      parsed.ok = false;
      parsed.error = RpcError{kParseError,
                              "parse error: the body is not valid JSON (a number out "
                              "of range?)",
                              nullptr};
    }
    if (!parsed.ok) return JsonReply(400, MakeError(nullptr, parsed.error));
    const json& frame = parsed.value;
    std::shared_ptr<HttpSession> s;
    const bool initialize = ContainsMethod(frame, "initialize");
    HttpReply refusal;
    if (initialize && !req.HasHeader(kSessionHeader)) {
      std::shared_ptr<HttpSession> evicted;
      auto session = server_.NewSession();
      {
        std::lock_guard lock(mutex_);
        s = OpenSessionLocked(ClientKey(req, frame), std::move(session), &refusal, &evicted);
        if (s) ++s->active_requests;  // not evictable before its first request is done
      }
      if (evicted) {
        if (evicted->stream) evicted->stream->End();
        // Close() waits for requests in flight; an evicted session has none.
        evicted->session->Close();
      }
      if (!s) return refusal;
    } else {
      s = FindSession(req, &refusal, /*hold=*/true);
      if (!s) return refusal;
      if (auto bad = VersionRefusal(req)) {
        std::lock_guard lock(mutex_);
        --s->active_requests;
        return std::move(*bad);
      }
    }
    // Ends the request's hold on the session, however the reply goes (a
    // stream may be dropped before it runs: 503, the server stopping).
    struct Done {
      Impl* self;
      std::shared_ptr<HttpSession> s;
      ~Done() {
        std::lock_guard lock(self->mutex_);
        --s->active_requests;
        s->last_used = Clock::now();
      }
    };
    // Not make_shared<Done>(Done{...}): the temporary's destructor would end
    // the hold at once.
    auto done = std::shared_ptr<Done>(new Done{this, s});

    if (ContainsMethod(frame, "tools/call") && !frame.is_array()) {
      // A stream: progress and log notifications, then the result.
      HttpReply reply;
      reply.status = 200;
      reply.content_type = "text/event-stream";
      reply.headers = {{kSessionHeader, s->id}, {"Cache-Control", "no-cache"}};
      reply.stream = [s, frame, done](Outbound& out) { s->session->Handle(frame, out); };
      return reply;
    }

    ReplyCollector collector;
    s->session->Handle(frame, collector);
    std::vector<json> replies = collector.Take();
    done.reset();
    if (initialize && !s->session->initialized()) {
      // A rejected initialize leaves no session behind.
      std::lock_guard lock(mutex_);
      if (auto it = sessions_.find(s->id); it != sessions_.end()) RemoveLocked(it);
    }
    HttpReply reply;
    if (!ContainsRequest(frame)) {
      reply = replies.empty() ? HttpReply{} : JsonReply(400, replies.front());
      if (replies.empty()) reply.status = 202;
    } else if (replies.empty()) {
      reply.status = 202;  // the request was cancelled: no reply
    } else {
      reply = JsonReply(200, replies.front());
      if (s->session->shutdown_requested()) EndSession(s->id);
    }
    reply.headers.emplace_back(kSessionHeader, s->id);
    return reply;
  }

  HttpReply Get(const HttpRequest& req) {
    if (!Accepts(req, "text/event-stream")) {
      return Refuse(406, "not acceptable: the event stream needs Accept: text/event-stream");
    }
    HttpReply refusal;
    auto s = FindSession(req, &refusal);
    if (!s) return refusal;
    if (auto bad = VersionRefusal(req)) return std::move(*bad);
    auto stream = std::make_shared<HttpReply::EventStream>();
    {
      std::lock_guard lock(mutex_);
      if (s->stream) return Refuse(409, "conflict: this session already has an open event stream");
      s->stream = stream;
    }
    s->session->SetNotifier(std::make_shared<EventStreamOutbound>(stream));
    std::weak_ptr<HttpSession> weak = s;
    stream->SetOnClosed([this, weak, raw = stream.get()] {
      auto session = weak.lock();
      if (!session) return;
      std::lock_guard lock(mutex_);
      if (session->stream.get() == raw) {
        session->stream = nullptr;
        session->session->SetNotifier(nullptr);
        session->last_used = Clock::now();
      }
    });
    HttpReply reply;
    reply.status = 200;
    reply.content_type = "text/event-stream";
    reply.headers = {{kSessionHeader, s->id}, {"Cache-Control", "no-cache"}};
    reply.events = std::move(stream);
    return reply;
  }

  HttpReply Delete(const HttpRequest& req) {
    HttpReply refusal;
    auto s = FindSession(req, &refusal);
    if (!s) return refusal;
    EndSession(s->id);
    HttpReply reply;
    reply.status = 200;
    return reply;
  }

  void EndSession(const std::string& id) {
    std::shared_ptr<HttpSession> s;
    std::shared_ptr<HttpReply::EventStream> stream;
    {
      std::lock_guard lock(mutex_);
      auto it = sessions_.find(id);
      if (it == sessions_.end()) return;
      s = it->second;
      stream = s->stream;
      RemoveLocked(it);
    }
    if (stream) stream->End();
    // Requests still running finish on their own threads; Close() would wait
    // for them, so leave it to the last reference.
  }

  const Server& server_;
  HttpOptions options_;
  bool loopback_;
  std::shared_ptr<HttpSite> site_;

  std::mutex mutex_;
  bool ended_all_ = false;
  std::map<std::string, std::shared_ptr<HttpSession>> sessions_;
  std::map<std::string, int> per_client_;  // sessions per ClientKey
};

McpHttpEndpoint::McpHttpEndpoint(const Server& server, HttpOptions options, bool loopback,
                                 std::shared_ptr<HttpSite> site)
    : impl_(std::make_unique<Impl>(server, std::move(options), loopback, std::move(site))) {}
McpHttpEndpoint::~McpHttpEndpoint() { EndAll(); }

HttpReply McpHttpEndpoint::Handle(const HttpRequest& request, const HttpPeer&) {
  // The transport boundary: nothing thrown below may reach the connection
  // loop, and no exception text reaches the client (issue 14, defect 1).
  try {
    return impl_->Handle(request);
  } catch (const std::exception& e) {
    std::cerr << "uiscope: internal error handling " << request.method << " " << request.path
              << ": " << e.what() << "\n";
  } catch (...) {
    std::cerr << "uiscope: internal error handling " << request.method << " " << request.path
              << "\n";
  }
  return Refuse(500, "internal error: the request could not be handled; the server serves on",
                kInternalError);
}

HttpReply McpHttpEndpoint::Refusal(int status, const std::string& message) {
  HttpReply r = Refuse(status, message, status == 413 ? kInvalidRequest : kServerErrorCode);
  r.close = true;
  return r;
}

void McpHttpEndpoint::EndAll() { impl_->EndAll(); }
size_t McpHttpEndpoint::session_count() { return impl_->session_count(); }

}  // namespace uiscope::mcp
