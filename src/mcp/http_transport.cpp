#include "mcp/http_transport.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <unordered_map>
#include <unordered_set>

namespace uiscope::mcp {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kSessionHeader = "Mcp-Session-Id";
constexpr const char* kVersionHeader = "MCP-Protocol-Version";
constexpr int kServerErrorCode = -32000;  // transport-level errors in a JSON-RPC body

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string Lower(std::string_view s) { return Lower(std::string(s)); }

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

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) diff |= a[i] ^ (i < b.size() ? b[i] : 0);
  return diff == 0;
}

bool Accepts(const HttpRequest& req, std::string_view type) {
  const std::string accept = Lower(req.Header("Accept"));
  return accept.find(type) != std::string::npos || accept.find("*/*") != std::string::npos;
}

std::string Dump(const json& message) {
  return message.dump(-1, ' ', false, json::error_handler_t::replace);
}

HttpReply JsonReply(int status, const json& body) {
  HttpReply r;
  r.status = status;
  r.content_type = "application/json";
  r.body = Dump(body);
  return r;
}

// An HTTP-level refusal with a JSON-RPC error body (id null), as the MCP
// reference servers send.
HttpReply Refuse(int status, const std::string& message, int code = kServerErrorCode) {
  return JsonReply(status, MakeError(nullptr, RpcError{code, message, nullptr}));
}

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
// opening sessions) from crowding out the others, and it gets a clear 429;
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

}  // namespace

bool IsLoopbackHost(std::string_view host_and_port) {
  const std::string host = Lower(HostPart(host_and_port));
  if (host == "localhost" || host == "[::1]" || host == "::1") return true;
  return host.rfind("127.", 0) == 0 && host.find_first_not_of("0123456789.") == std::string::npos;
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
  Impl(const Server& server, HttpOptions options, bool loopback)
      : server_(server), options_(std::move(options)), loopback_(loopback) {}

  HttpReply Handle(const HttpRequest& req) {
    if (req.path != "/mcp") return Refuse(404, "not found: the MCP endpoint is /mcp");
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
      if (!OriginAllowed(origin)) {
        return Refuse(403, "forbidden: Origin " + origin +
                               " is not a local origin (DNS rebinding protection); allow it "
                               "with --allow-origin");
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
      if (auth.size() <= prefix.size() || Lower(auth.substr(0, prefix.size())) != "bearer " ||
          !ConstantTimeEquals(std::string_view(auth).substr(prefix.size()), options_.token)) {
        HttpReply r =
            Refuse(401, "unauthorized: send the server's token as `Authorization: Bearer TOKEN`");
        r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"uiscope\"");
        return r;
      }
    }
    return std::nullopt;
  }

  bool OriginAllowed(const std::string& origin) const {
    for (const auto& allowed : options_.allowed_origins) {
      if (Lower(allowed) == Lower(origin)) return true;
    }
    const std::string lower = Lower(origin);
    for (const char* scheme : {"http://", "https://"}) {
      if (lower.rfind(scheme, 0) == 0) {
        std::string rest = lower.substr(std::string_view(scheme).size());
        if (rest.find('/') != std::string::npos) return false;
        return IsLoopbackHost(rest);
      }
    }
    return false;
  }

  // The session named by the request's header, or a refusal.
  std::shared_ptr<HttpSession> FindSession(const HttpRequest& req, HttpReply* refusal) {
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
  // limit; 503: every session is busy). Called with mutex_ held.
  std::shared_ptr<HttpSession> OpenSessionLocked(const std::string& client,
                                                 std::unique_ptr<Session> session,
                                                 HttpReply* refusal,
                                                 std::shared_ptr<HttpSession>* evicted) {
    if (ended_all_) {
      *refusal = Refuse(503, "the server is stopping");
      return nullptr;
    }
    if (per_client_[client] >= options_.max_sessions_per_client) {
      *refusal = Refuse(429, "too many sessions for this client: it holds " +
                                 std::to_string(per_client_[client]) + " (the limit is " +
                                 std::to_string(options_.max_sessions_per_client) +
                                 "); end sessions it no longer needs with DELETE /mcp");
      refusal->headers.emplace_back("Retry-After", std::to_string(options_.retry_after_seconds));
      return nullptr;
    }
    if (static_cast<int>(sessions_.size()) >= options_.max_sessions) {
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
    const std::string type = Lower(req.Header("Content-Type"));
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
      s = FindSession(req, &refusal);
      if (!s) return refusal;
      if (auto bad = VersionRefusal(req)) return std::move(*bad);
      std::lock_guard lock(mutex_);
      ++s->active_requests;
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
    std::weak_ptr<HttpSession> weak = s;
    stream->SetOnClosed([this, weak, raw = stream.get()] {
      auto session = weak.lock();
      if (!session) return;
      std::lock_guard lock(mutex_);
      if (session->stream.get() == raw) {
        session->stream = nullptr;
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

  std::mutex mutex_;
  bool ended_all_ = false;
  std::map<std::string, std::shared_ptr<HttpSession>> sessions_;
  std::map<std::string, int> per_client_;  // sessions per ClientKey
};

McpHttpEndpoint::McpHttpEndpoint(const Server& server, HttpOptions options, bool loopback)
    : impl_(std::make_unique<Impl>(server, std::move(options), loopback)) {}
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

// --- The connection loop -----------------------------------------------------

namespace {

constexpr auto kWriteTimeout = std::chrono::seconds(10);
constexpr auto kTick = std::chrono::milliseconds(100);
constexpr auto kLinger = std::chrono::seconds(1);
constexpr uint64_t kListenKey = 0;
constexpr uint64_t kWakeKey = 1;

// A thread pool that refuses work it cannot start soon, instead of queueing
// it without bound: TryPost is false when `max_queue` jobs already wait
// (max_queue 0: unless a thread is idle now).
class WorkerPool {
 public:
  WorkerPool(int threads, int max_queue) : max_queue_(max_queue) {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Work(); });
  }
  ~WorkerPool() { Shutdown(); }

  bool TryPost(std::function<void()> job) {
    {
      std::lock_guard lock(mutex_);
      if (shutdown_) return false;
      if (static_cast<int>(jobs_.size()) >= idle_ + max_queue_) return false;
      jobs_.push_back(std::move(job));
    }
    wake_.notify_one();
    return true;
  }

  // Drops jobs not started and waits for those running.
  void Shutdown() {
    std::deque<std::function<void()>> dropped;
    {
      std::lock_guard lock(mutex_);
      if (shutdown_) return;
      shutdown_ = true;
      dropped.swap(jobs_);
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }

 private:
  void Work() {
    std::unique_lock lock(mutex_);
    for (;;) {
      ++idle_;
      wake_.wait(lock, [&] { return shutdown_ || !jobs_.empty(); });
      --idle_;
      if (shutdown_) return;
      auto job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      job();
      job = nullptr;  // what it holds (a connection, a session) goes now
      lock.lock();
    }
  }

  const int max_queue_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  int idle_ = 0;
  bool shutdown_ = false;
  std::vector<std::thread> threads_;
};

// Writes all of `data` to a non-blocking socket, waiting up to kWriteTimeout
// for a client that reads slowly. False when it failed or took too long.
bool WriteAll(int fd, std::string_view data) {
  const auto deadline = Clock::now() + kWriteTimeout;
  while (!data.empty()) {
    ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return false;
      pollfd p{fd, POLLOUT, 0};
      if (poll(&p, 1, static_cast<int>(left)) < 0 && errno != EINTR) return false;
      continue;
    }
    return false;
  }
  return true;
}

// Writes what fits now; false unless all of it did (the connection is then
// not worth keeping: the client does not read).
bool WriteNow(int fd, std::string_view data) {
  ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  return n == static_cast<ssize_t>(data.size());
}

std::string ResponseHead(const HttpReply& reply, bool keep_alive, bool streaming, bool chunked) {
  std::string head = HttpStatusLine(reply.status);
  if (!reply.content_type.empty()) head += "Content-Type: " + reply.content_type + "\r\n";
  if (streaming) {
    if (chunked) head += "Transfer-Encoding: chunked\r\n";
  } else if (reply.status != 204 && reply.status >= 200) {
    head += "Content-Length: " + std::to_string(reply.body.size()) + "\r\n";
  }
  head += keep_alive ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
  for (const auto& [name, value] : reply.headers) head += name + ": " + value + "\r\n";
  head += "\r\n";
  return head;
}

std::string Chunk(std::string_view data) {
  char size[20];
  std::snprintf(size, sizeof(size), "%zx\r\n", data.size());
  std::string out = size;
  out.append(data);
  out += "\r\n";
  return out;
}

constexpr std::string_view kLastChunk = "0\r\n\r\n";

std::string PeerName(const sockaddr_storage& addr) {
  char host[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (addr.ss_family == AF_INET) {
    auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
    port = ntohs(a->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
    port = ntohs(a->sin6_port);
  }
  return std::string(host) + ":" + std::to_string(port);
}

}  // namespace

class HttpTransport::Impl {
 public:
  // One client connection. Owned by exactly one of: the reactor (reading a
  // request, an open GET stream, lingering after a refusal) or a worker
  // (handling a request); handed over through Return().
  struct Conn {
    Conn(Impl& impl, int fd, std::string peer)
        : impl(impl), fd(fd), peer(std::move(peer)), parser(impl.parser_limits_) {
      impl.open_connections_.fetch_add(1);
    }
    ~Conn() {
      if (events) events->Closed();
      close(fd);
      impl.open_connections_.fetch_sub(1);
    }
    Impl& impl;
    uint64_t id = 0;
    int fd;
    std::string peer;
    HttpRequestParser parser;
    std::string pending;  // bytes after the last request (pipelined), not yet parsed
    Clock::time_point deadline;
    bool continue_sent = false;
    bool lingering = false;  // refused: drain what comes until the deadline, then close
    bool chunked = true;     // the stream's framing (HTTP/1.0 clients get raw bytes)
    std::shared_ptr<HttpReply::EventStream> events;  // an open GET stream
    Clock::time_point last_write;
  };
  using ConnPtr = std::shared_ptr<Conn>;

  Impl(const Server& server, HttpOptions options)
      : options_(std::move(options)),
        endpoint_(server, options_, IsLoopbackHost(options_.host)),
        requests_(std::max(1, options_.request_threads), std::max(0, options_.max_queued_requests)),
        calls_(std::max(1, options_.threads), 0) {
    parser_limits_.max_body_bytes = options_.max_message_bytes;
  }

  ~Impl() {
    Stop();
    if (listen_fd_ >= 0) close(listen_fd_);
    if (epoll_fd_ >= 0) close(epoll_fd_);
    if (wake_fd_ >= 0) close(wake_fd_);
    if (spare_fd_ >= 0) close(spare_fd_);
  }

  Status Bind() {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const std::string port = std::to_string(options_.port);
    if (getaddrinfo(options_.host.c_str(), port.c_str(), &hints, &found) != 0 || !found) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "cannot resolve listen host \"" + options_.host + "\" (e.g. 127.0.0.1)");
    }
    std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> addrs(found, freeaddrinfo);
    for (addrinfo* a = found; a && listen_fd_ < 0; a = a->ai_next) {
      int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
      if (fd < 0) continue;
      int one = 1;
      setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
      // cpp-httplib listened with a backlog of 5: a burst of connections
      // beyond it waited for SYN retransmits (1 s, 3 s, ...). The kernel caps
      // this at net.core.somaxconn (4096 on Linux 5.4+).
      if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, 4096) == 0) {
        listen_fd_ = fd;
      } else {
        close(fd);
      }
    }
    if (listen_fd_ < 0) {
      return MakeError(ErrorCode::kUnavailable,
                       "cannot listen on " + options_.host + ":" + std::to_string(options_.port) +
                           " (address in use, or not an address of this machine); pick another "
                           "port or use port 0 for any free one");
    }
    sockaddr_storage bound{};
    socklen_t len = sizeof(bound);
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &len);
    port_ = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                        : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);

    // Connections beyond the descriptor limit would fail in accept() and
    // wait in the backlog unanswered; keep 64 for everything else the
    // process opens (the desktop, the database, the spare below).
    rlimit nofile{};
    max_connections_ = options_.max_connections;
    if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY) {
      max_connections_ = std::min<long>(max_connections_,
                                        std::max<long>(1, static_cast<long>(nofile.rlim_cur) - 64));
    }
    spare_fd_ = open("/dev/null", O_RDONLY | O_CLOEXEC);

    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (epoll_fd_ < 0 || wake_fd_ < 0) {
      return MakeError(ErrorCode::kUnavailable,
                       std::string("cannot set up the HTTP server: ") + std::strerror(errno));
    }
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kListenKey;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &ev);
    ev.data.u64 = kWakeKey;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev);
    reactor_ = std::thread([this] { Run(); });
    return OkStatus();
  }

  int port() const { return port_; }
  std::string url() const {
    std::string host =
        options_.host.find(':') != std::string::npos ? "[" + options_.host + "]" : options_.host;
    return "http://" + host + ":" + std::to_string(port_) + "/mcp";
  }

  void Stop() {
    {
      std::lock_guard lock(stop_mutex_);
      if (stopped_) return;
      stopped_ = true;
    }
    {
      std::lock_guard lock(inbox_mutex_);
      stopping_ = true;
    }
    Wake();
    if (reactor_.joinable()) reactor_.join();
    // Connections on workers: their reads and writes fail from now on.
    {
      std::lock_guard lock(busy_mutex_);
      for (int fd : busy_fds_) shutdown(fd, SHUT_RDWR);
    }
    endpoint_.EndAll();
    requests_.Shutdown();
    calls_.Shutdown();
    stop_cv_.notify_all();
  }

  void Wait() {
    std::unique_lock lock(stop_mutex_);
    stop_cv_.wait(lock, [&] { return stopped_; });
  }

 private:
  // --- Reactor thread ---

  void Run() {
    std::vector<epoll_event> events(256);
    auto next_tick = Clock::now() + kTick;
    for (;;) {
      const int n = epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()),
                               static_cast<int>(kTick.count()));
      {
        std::lock_guard lock(inbox_mutex_);
        if (stopping_) break;
      }
      for (int i = 0; i < n; ++i) {
        const uint64_t key = events[i].data.u64;
        if (key == kListenKey) {
          Accept();
        } else if (key == kWakeKey) {
          uint64_t count;
          while (read(wake_fd_, &count, sizeof(count)) > 0) {
          }
          TakeInbox();
        } else if (auto it = conns_.find(key); it != conns_.end()) {
          OnReadable(it->second);
        }
      }
      if (Clock::now() >= next_tick) {
        Tick();
        next_tick = Clock::now() + kTick;
      }
    }
    // Stopping: open streams end properly, everything else just closes.
    for (auto& [id, conn] : conns_) {
      if (conn->events) WriteNow(conn->fd, conn->chunked ? kLastChunk : "");
    }
    conns_.clear();
    std::lock_guard lock(inbox_mutex_);
    returned_.clear();
  }

  void Accept() {
    for (;;) {
      sockaddr_storage addr{};
      socklen_t len = sizeof(addr);
      int fd = accept4(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len,
                       SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if ((errno == EMFILE || errno == ENFILE) && spare_fd_ >= 0) {
          // Out of descriptors: the connection would wait in the backlog
          // with no answer, and the listening socket would stay readable
          // (a busy loop). Free the spare to take it, say so, close it.
          close(spare_fd_);
          fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
          if (fd >= 0) {
            WriteNow(fd, Overloaded("the server is out of file descriptors"));
            close(fd);
          }
          spare_fd_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
          if (fd >= 0) continue;
        }
        return;  // EAGAIN, or an error the next readiness retries
      }
      int one = 1;
      // Without NODELAY a reply written as head + body waits ~40 ms for the
      // client's delayed ACK (bench_mcp: 43 ms per ping before, 0.1 ms after).
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      auto conn = std::make_shared<Conn>(*this, fd, PeerName(addr));
      conn->id = next_id_++;
      if (open_connections_.load() > max_connections_) {
        WriteNow(fd, Overloaded("too many connections (" + std::to_string(max_connections_) +
                                "); close idle ones"));
        Linger(conn);
        continue;
      }
      conn->deadline = Clock::now() + std::chrono::milliseconds(options_.header_timeout_ms);
      Watch(conn);
    }
  }

  // A complete 503 response with Retry-After, for refusals before a request
  // was read.
  std::string Overloaded(const std::string& why) {
    HttpReply r = McpHttpEndpoint::Refusal(
        503, why + "; try again after " + std::to_string(options_.retry_after_seconds) + " s");
    r.headers.emplace_back("Retry-After", std::to_string(options_.retry_after_seconds));
    return ResponseHead(r, false, false, false) + r.body;
  }

  // After a refusal: close the sending side, read and drop what the client
  // still sends for a moment (closing with unread input would reset the
  // connection, and the client might lose the refusal), then close.
  void Linger(const ConnPtr& conn) {
    shutdown(conn->fd, SHUT_WR);
    conn->lingering = true;
    conn->deadline = Clock::now() + kLinger;
    if (conns_.size() > static_cast<size_t>(max_connections_) * 2) return;  // just close
    Watch(conn);
  }

  void Watch(const ConnPtr& conn) {
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.u64 = conn->id;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, conn->fd, &ev) == 0) conns_[conn->id] = conn;
  }

  void Unwatch(const ConnPtr& conn) {
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, conn->fd, nullptr);
    conns_.erase(conn->id);
  }

  void OnReadable(ConnPtr conn) {
    char buf[16384];
    for (;;) {
      ssize_t n = recv(conn->fd, buf, sizeof(buf), 0);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        Unwatch(conn);  // the client went (an open stream ends here too)
        return;
      }
      if (n < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (conn->lingering || conn->events) continue;  // nothing expected: dropped
      // A client with Nagle's algorithm on (httplib's default) sends a
      // request's body only once its head is acknowledged, and Linux delays
      // that ACK by 40 ms: every request on a reused connection took 40 ms.
      // Quick ACKs while a request is coming in (the flag does not stick).
      int one = 1;
      setsockopt(conn->fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
      conn->pending.append(buf, static_cast<size_t>(n));
      if (!Parse(conn)) return;
    }
  }

  // Feeds what is pending to the parser. False when the connection left the
  // reactor (a request went to a worker, or it was refused).
  bool Parse(const ConnPtr& conn) {
    if (conn->pending.empty()) return true;
    const bool fresh = conn->parser.bytes_seen() == 0;
    const auto before = conn->parser.state();
    const size_t used = conn->parser.Feed(conn->pending);
    conn->pending.erase(0, used);
    const auto now = Clock::now();
    if (fresh && conn->parser.bytes_seen() > 0) {
      conn->deadline = now + std::chrono::milliseconds(options_.header_timeout_ms);
    }
    switch (conn->parser.state()) {
      case HttpRequestParser::State::kHead:
        return true;
      case HttpRequestParser::State::kBody:
        if (before == HttpRequestParser::State::kHead) {
          conn->deadline = now + std::chrono::milliseconds(options_.body_timeout_ms);
        }
        if (conn->parser.ExpectsContinue() && !conn->continue_sent) {
          conn->continue_sent = true;
          WriteNow(conn->fd, "HTTP/1.1 100 Continue\r\n\r\n");
        }
        return true;
      case HttpRequestParser::State::kError: {
        const HttpReply r =
            McpHttpEndpoint::Refusal(conn->parser.error_status(), conn->parser.error_message());
        WriteNow(conn->fd, ResponseHead(r, false, false, false) + r.body);
        Unwatch(conn);
        Linger(conn);
        return false;
      }
      case HttpRequestParser::State::kDone:
        break;
    }
    Unwatch(conn);
    conn->continue_sent = false;
    auto request = std::make_shared<HttpRequest>(conn->parser.TakeRequest());
    conn->parser.Reset();
    if (!requests_.TryPost([this, conn, request] { RunRequest(conn, *request); })) {
      WriteNow(conn->fd, Overloaded("too many requests waiting (" +
                                    std::to_string(options_.max_queued_requests) + ")"));
      Linger(conn);
    }
    return false;
  }

  void Tick() {
    const auto now = Clock::now();
    const auto keepalive = std::chrono::seconds(std::max(1, options_.keepalive_seconds));
    std::vector<ConnPtr> expired;
    for (auto& [id, conn] : conns_) {
      if (conn->events) {
        if (conn->events->ended()) {
          WriteNow(conn->fd, conn->chunked ? kLastChunk : "");
          expired.push_back(conn);
        } else if (now - conn->last_write >= keepalive) {
          static constexpr std::string_view kComment = ": keep-alive\n\n";
          if (!WriteNow(conn->fd, conn->chunked ? Chunk(kComment) : std::string(kComment))) {
            expired.push_back(conn);
          }
          conn->last_write = now;
        }
      } else if (now >= conn->deadline) {
        if (!conn->lingering && conn->parser.bytes_seen() > 0) {
          const HttpReply r = McpHttpEndpoint::Refusal(
              408, "request timeout: the request did not arrive in time (head within " +
                       std::to_string(options_.header_timeout_ms) + " ms, body within " +
                       std::to_string(options_.body_timeout_ms) + " ms)");
          WriteNow(conn->fd, ResponseHead(r, false, false, false) + r.body);
        }
        expired.push_back(conn);
      }
    }
    for (auto& conn : expired) Unwatch(conn);
  }

  void TakeInbox() {
    std::vector<ConnPtr> returned;
    {
      std::lock_guard lock(inbox_mutex_);
      returned.swap(returned_);
    }
    const auto now = Clock::now();
    for (auto& conn : returned) {
      if (conn->events) {
        conn->last_write = now;
        Watch(conn);
        if (conn->events->ended()) Tick();
        continue;
      }
      conn->deadline = now + std::chrono::milliseconds(options_.idle_timeout_ms);
      Watch(conn);
      Parse(conn);  // a pipelined request already read
    }
  }

  void Wake() {
    uint64_t one = 1;
    (void)!write(wake_fd_, &one, sizeof(one));
  }

  // --- Worker threads ---

  // Gives a connection back to the reactor (keep-alive, or an open stream).
  void Return(ConnPtr conn) {
    {
      std::lock_guard lock(inbox_mutex_);
      if (stopping_) return;  // dropped: closes
      returned_.push_back(std::move(conn));
    }
    Wake();
  }

  // Marks a connection as on a worker, so Stop() can cut it short.
  class BusyScope {
   public:
    BusyScope(Impl& impl, int fd) : impl_(impl), fd_(fd) {
      std::lock_guard lock(impl_.busy_mutex_);
      impl_.busy_fds_.insert(fd_);
    }
    ~BusyScope() {
      std::lock_guard lock(impl_.busy_mutex_);
      impl_.busy_fds_.erase(fd_);
    }

   private:
    Impl& impl_;
    int fd_;
  };

  void RunRequest(ConnPtr conn, const HttpRequest& request) {
    BusyScope busy(*this, conn->fd);
    HttpReply reply = endpoint_.Handle(request, HttpPeer{conn->peer});
    const bool keep_alive = request.KeepAlive() && !reply.close;
    if (reply.stream) {
      auto shared = std::make_shared<HttpReply>(std::move(reply));
      const bool chunked = request.minor_version >= 1;
      if (calls_.TryPost([this, conn, shared, keep_alive, chunked] {
            RunCall(conn, *shared, keep_alive && chunked, chunked);
          })) {
        return;
      }
      HttpReply r = McpHttpEndpoint::Refusal(
          503, "too many tool calls in progress (" + std::to_string(options_.threads) +
                   "); try again after " + std::to_string(options_.retry_after_seconds) + " s");
      r.headers.emplace_back("Retry-After", std::to_string(options_.retry_after_seconds));
      r.close = false;
      shared.reset();  // the session's request ends now
      Respond(conn, r, keep_alive);
      return;
    }
    if (reply.events) {
      conn->chunked = request.minor_version >= 1;
      if (!WriteAll(conn->fd, ResponseHead(reply, conn->chunked, true, conn->chunked))) {
        reply.events->Closed();
        return;
      }
      conn->events = reply.events;
      conn->events->SetWake([this] { Wake(); });
      Return(std::move(conn));
      return;
    }
    Respond(conn, reply, keep_alive);
  }

  void Respond(ConnPtr conn, const HttpReply& reply, bool keep_alive) {
    if (WriteAll(conn->fd, ResponseHead(reply, keep_alive, false, false) + reply.body) &&
        keep_alive) {
      Return(std::move(conn));
    }
  }

  // Writes a tools/call's messages as SSE events in the HTTP chunks of the
  // POST's reply.
  class SseWriter final : public Outbound {
   public:
    SseWriter(int fd, bool chunked) : fd_(fd), chunked_(chunked) {}
    bool Send(const json& message) override {
      std::lock_guard lock(mutex_);
      if (failed_) return false;
      Write("event: message\ndata: " + Dump(message) + "\n\n");
      return !failed_;
    }
    // A tool call waiting for the client's answer (elicitation) notices a
    // client that went away instead of waiting out its timeout: a comment
    // line (ignored by SSE clients) once a second fails once the peer left.
    bool Alive() override {
      std::lock_guard lock(mutex_);
      if (failed_) return false;
      if (Clock::now() - last_write_ < std::chrono::seconds(1)) return true;
      Write(": waiting for the client\n\n");
      return !failed_;
    }
    bool Finish() {
      std::lock_guard lock(mutex_);
      if (!failed_ && chunked_) failed_ = !WriteAll(fd_, kLastChunk);
      return !failed_;
    }

   private:
    void Write(const std::string& text) {
      if (!WriteAll(fd_, chunked_ ? Chunk(text) : text)) failed_ = true;
      last_write_ = Clock::now();
    }
    std::mutex mutex_;
    int fd_;
    bool chunked_;
    bool failed_ = false;
    Clock::time_point last_write_ = Clock::now();
  };

  void RunCall(ConnPtr conn, HttpReply& reply, bool keep_alive, bool chunked) {
    BusyScope busy(*this, conn->fd);
    if (!WriteAll(conn->fd, ResponseHead(reply, keep_alive, true, chunked))) return;
    SseWriter out(conn->fd, chunked);
    try {
      reply.stream(out);
    } catch (const std::exception& e) {
      std::cerr << "uiscope: internal error in a tool call: " << e.what() << "\n";
      return;  // the stream is cut short: the client sees no result
    }
    reply.stream = nullptr;  // the session's request ends now
    if (out.Finish() && keep_alive) Return(std::move(conn));
  }

  HttpOptions options_;
  McpHttpEndpoint endpoint_;
  HttpRequestParser::Limits parser_limits_;
  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  int spare_fd_ = -1;  // released to accept (and refuse) when out of descriptors
  int port_ = -1;
  long max_connections_ = 0;
  std::atomic<long> open_connections_{0};
  uint64_t next_id_ = 2;  // 0 and 1 are the listening socket and the wake fd

  // Reactor-only.
  std::unordered_map<uint64_t, ConnPtr> conns_;
  std::thread reactor_;

  std::mutex inbox_mutex_;
  bool stopping_ = false;          // guarded by inbox_mutex_
  std::vector<ConnPtr> returned_;  // guarded by inbox_mutex_

  std::mutex busy_mutex_;
  std::unordered_set<int> busy_fds_;

  WorkerPool requests_;
  WorkerPool calls_;

  std::mutex stop_mutex_;
  std::condition_variable stop_cv_;
  bool stopped_ = false;
};

Result<std::unique_ptr<HttpTransport>> HttpTransport::Start(const Server& server,
                                                            HttpOptions options) {
  if (!server.options().tools_inline) {
    return MakeError(ErrorCode::kInternal,
                     "the HTTP transport needs a Server with tools_inline set");
  }
  if (options.host.empty() || options.host.find_first_of("/ ") != std::string::npos) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "invalid listen host \"" + options.host + "\" (e.g. 127.0.0.1)");
  }
  auto impl = std::make_unique<Impl>(server, std::move(options));
  if (auto st = impl->Bind(); !st.ok()) return st.error();
  return std::unique_ptr<HttpTransport>(new HttpTransport(std::move(impl)));
}

HttpTransport::HttpTransport(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpTransport::~HttpTransport() { Stop(); }
int HttpTransport::port() const { return impl_->port(); }
std::string HttpTransport::url() const { return impl_->url(); }
void HttpTransport::Stop() { impl_->Stop(); }
void HttpTransport::Wait() { impl_->Wait(); }

}  // namespace uiscope::mcp
