#include "mcp/http_transport.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <random>
#include <thread>

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

bool Accepts(const httplib::Request& req, std::string_view type) {
  const std::string accept = Lower(req.get_header_value("Accept"));
  return accept.find(type) != std::string::npos || accept.find("*/*") != std::string::npos;
}

void SendJson(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
}

// An HTTP-level refusal with a JSON-RPC error body (id null), as the MCP
// reference servers send.
void Refuse(httplib::Response& res, int status, const std::string& message,
            int code = kServerErrorCode) {
  SendJson(res, status, MakeError(nullptr, RpcError{code, message, nullptr}));
}

std::string SseEvent(const json& message) {
  return "event: message\ndata: " + message.dump(-1, ' ', false, json::error_handler_t::replace) +
         "\n\n";
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

// Writes messages as SSE events to an httplib sink (the POST's stream).
class SinkWriter final : public Outbound {
 public:
  explicit SinkWriter(httplib::DataSink& sink) : sink_(sink) {}
  bool Send(const json& message) override {
    std::lock_guard lock(mutex_);
    if (failed_) return false;
    std::string event = SseEvent(message);
    if (!sink_.write(event.data(), event.size())) failed_ = true;
    last_write_ = std::chrono::steady_clock::now();
    return !failed_;
  }
  // A tool call waiting for the client's answer (elicitation) notices a
  // client that went away instead of waiting out its timeout. httplib
  // 0.11's is_writable() only selects for writing, which a closed peer's
  // socket still is; a comment line (ignored by SSE clients) once a second
  // fails instead, by the second write after the peer left.
  bool Alive() override {
    std::lock_guard lock(mutex_);
    if (failed_) return false;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_write_ < std::chrono::seconds(1)) return true;
    static constexpr char kComment[] = ": waiting for the client\n\n";
    if (!sink_.write(kComment, sizeof(kComment) - 1)) failed_ = true;
    last_write_ = now;
    return !failed_;
  }

 private:
  std::mutex mutex_;
  httplib::DataSink& sink_;
  bool failed_ = false;
  std::chrono::steady_clock::time_point last_write_ = std::chrono::steady_clock::now();
};

struct HttpSession {
  std::string id;
  std::unique_ptr<Session> session;
  Clock::time_point last_used = Clock::now();
  int active_requests = 0;  // guarded by the transport's mutex
  // The GET stream, guarded by `mutex`.
  std::mutex mutex;
  std::condition_variable wake;
  bool stream_open = false;
  bool ended = false;
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

}  // namespace

bool IsLoopbackHost(std::string_view host_and_port) {
  const std::string host = Lower(HostPart(host_and_port));
  if (host == "localhost" || host == "[::1]" || host == "::1") return true;
  return host.rfind("127.", 0) == 0 && host.find_first_not_of("0123456789.") == std::string::npos;
}

class HttpTransport::Impl {
 public:
  Impl(const Server& server, HttpOptions options) : server_(server), options_(std::move(options)) {}

  Status Bind() {
    const int threads = std::max(4, options_.threads);
    http_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    // Our POST handler enforces max_message_bytes itself (below); httplib's
    // own limit would turn an oversized body into a bare 400.
    http_.set_payload_max_length(std::numeric_limits<size_t>::max());
    // Without NODELAY every reply waits ~40 ms for the client's delayed ACK
    // (httplib writes headers and body separately): bench_mcp measured 43 ms
    // per ping before, 0.1 ms after.
    http_.set_tcp_nodelay(true);
    http_.set_keep_alive_max_count(1000000);
    // httplib notices stop() only between requests, so an idle keep-alive
    // connection delays shutdown by up to this long; reconnecting on loopback
    // costs ~0.1 ms, so keep it short.
    http_.set_keep_alive_timeout(2);
    http_.set_read_timeout(30);
    http_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      return Screen(req, res) ? httplib::Server::HandlerResponse::Unhandled
                              : httplib::Server::HandlerResponse::Handled;
    });
    // The body is read here rather than by httplib, which does not apply its
    // payload limit to chunked bodies: a 40 MiB chunked POST was accepted.
    http_.Post("/mcp", [this](const httplib::Request& req, httplib::Response& res,
                              const httplib::ContentReader& read) {
      std::string body;
      bool too_large = false;
      if (req.has_header("Content-Length")) {
        too_large = std::strtoull(req.get_header_value("Content-Length").c_str(), nullptr, 10) >
                    options_.max_message_bytes;
      }
      if (!too_large)
        read([&](const char* data, size_t length) {
          if (body.size() + length > options_.max_message_bytes) {
            too_large = true;
            return false;
          }
          body.append(data, length);
          return true;
        });
      if (too_large) {
        res.set_header("Connection", "close");
        Refuse(res, 413,
               "message too large: the limit is " + std::to_string(options_.max_message_bytes) +
                   " bytes; it was not read",
               kInvalidRequest);
        return;
      }
      Post(req, body, res);
    });
    http_.Get("/mcp",
              [this](const httplib::Request& req, httplib::Response& res) { Get(req, res); });
    http_.Delete("/mcp",
                 [this](const httplib::Request& req, httplib::Response& res) { Delete(req, res); });
    http_.Options("/mcp",
                  [](const httplib::Request&, httplib::Response& res) { res.status = 204; });
    for (const char* method : {"/mcp"}) {
      http_.Put(method, [](const httplib::Request&, httplib::Response& res) { NotAllowed(res); });
      http_.Patch(method, [](const httplib::Request&, httplib::Response& res) { NotAllowed(res); });
    }
    http_.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
      if (!res.body.empty()) return;
      if (res.status == 413) {
        Refuse(res, 413, "message too large: the limit is set by --max-message-bytes",
               kInvalidRequest);
      } else if (res.status == 404) {
        Refuse(res, 404, "not found: the MCP endpoint is /mcp");
      }
    });
    http_.set_exception_handler(
        [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
          std::string what = "unknown exception";
          try {
            if (ep) std::rethrow_exception(ep);
          } catch (const std::exception& e) {
            what = e.what();
          } catch (...) {
          }
          Refuse(res, 500, "internal error: " + what, kInternalError);
        });

    if (options_.port == 0) {
      port_ = http_.bind_to_any_port(options_.host);
      if (port_ <= 0) port_ = -1;
    } else {
      port_ = http_.bind_to_port(options_.host, options_.port) ? options_.port : -1;
    }
    if (port_ < 0) {
      return MakeError(ErrorCode::kUnavailable,
                       "cannot listen on " + options_.host + ":" + std::to_string(options_.port) +
                           " (address in use, or not an address of this machine); pick another "
                           "port or use port 0 for any free one");
    }
    loopback_ = IsLoopbackHost(options_.host);
    listener_ = std::thread([this] { http_.listen_after_bind(); });
    return OkStatus();
  }

  int port() const { return port_; }
  std::string url() const {
    std::string host =
        options_.host.find(':') != std::string::npos ? "[" + options_.host + "]" : options_.host;
    return "http://" + host + ":" + std::to_string(port_) + "/mcp";
  }

  void Stop() {
    std::unique_lock lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
    auto sessions = std::move(sessions_);
    lock.unlock();
    for (auto& [id, s] : sessions) EndStream(*s);
    http_.stop();
    if (listener_.joinable()) listener_.join();
    for (auto& [id, s] : sessions) s->session->Close();
    stop_cv_.notify_all();
  }

  void Wait() {
    std::unique_lock lock(mutex_);
    stop_cv_.wait(lock, [&] { return stopped_; });
  }

 private:
  static void NotAllowed(httplib::Response& res) {
    res.set_header("Allow", "GET, POST, DELETE");
    Refuse(res, 405, "method not allowed: use POST, GET or DELETE on /mcp");
  }

  // Origin, Host and token checks, before any routing. False = refused.
  bool Screen(const httplib::Request& req, httplib::Response& res) {
    if (req.has_header("Origin")) {
      const std::string origin = req.get_header_value("Origin");
      if (!OriginAllowed(origin)) {
        Refuse(res, 403,
               "forbidden: Origin " + origin +
                   " is not a local origin (DNS rebinding protection); allow it with "
                   "--allow-origin");
        return false;
      }
      res.set_header("Access-Control-Allow-Origin", origin);
      res.set_header("Vary", "Origin");
      res.set_header("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
      res.set_header("Access-Control-Allow-Headers",
                     "Content-Type, Accept, Authorization, Mcp-Session-Id, MCP-Protocol-Version, "
                     "Last-Event-ID");
      res.set_header("Access-Control-Expose-Headers", "Mcp-Session-Id, MCP-Protocol-Version");
    }
    if (loopback_ && !IsLoopbackHost(req.get_header_value("Host"))) {
      Refuse(res, 403,
             "forbidden: Host " + req.get_header_value("Host") +
                 " is not a loopback name; this server answers only to localhost (DNS rebinding "
                 "protection)");
      return false;
    }
    if (req.method == "OPTIONS") return true;  // CORS preflight carries no credentials
    if (!options_.token.empty()) {
      const std::string auth = req.get_header_value("Authorization");
      const std::string prefix = "Bearer ";
      if (auth.size() <= prefix.size() || Lower(auth.substr(0, prefix.size())) != "bearer " ||
          !ConstantTimeEquals(auth.substr(prefix.size()), options_.token)) {
        res.set_header("WWW-Authenticate", "Bearer realm=\"uiscope\"");
        Refuse(res, 401, "unauthorized: send the server's token as `Authorization: Bearer TOKEN`");
        return false;
      }
    }
    return true;
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
  std::shared_ptr<HttpSession> FindSession(const httplib::Request& req, httplib::Response& res) {
    if (!req.has_header(kSessionHeader)) {
      Refuse(res, 400, "bad request: Mcp-Session-Id header is required (send initialize first)");
      return nullptr;
    }
    const std::string id = req.get_header_value(kSessionHeader);
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end()) {
      Refuse(res, 404, "session not found: it ended or never existed; initialize a new one");
      return nullptr;
    }
    it->second->last_used = Clock::now();
    return it->second;
  }

  bool VersionHeaderOk(const httplib::Request& req, httplib::Response& res) {
    if (!req.has_header(kVersionHeader)) return true;  // 2025-03-26 clients do not send it
    const std::string v = req.get_header_value(kVersionHeader);
    if (IsSupportedProtocolVersion(v)) return true;
    Refuse(res, 400,
           "bad request: unsupported MCP-Protocol-Version " + v +
               " (supported: 2025-11-25, 2025-06-18, 2025-03-26)");
    return false;
  }

  std::shared_ptr<HttpSession> OpenSession() {
    auto s = std::make_shared<HttpSession>();
    s->id = NewSessionId();
    s->session = server_.NewSession();
    std::shared_ptr<HttpSession> evicted;
    {
      std::lock_guard lock(mutex_);
      if (static_cast<int>(sessions_.size()) >= options_.max_sessions) {
        auto oldest = sessions_.end();
        for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
          if (it->second->active_requests > 0) continue;
          if (oldest == sessions_.end() || it->second->last_used < oldest->second->last_used)
            oldest = it;
        }
        if (oldest != sessions_.end()) {
          evicted = oldest->second;
          sessions_.erase(oldest);
        }
      }
      sessions_[s->id] = s;
    }
    if (evicted) EndStream(*evicted);
    return s;
  }

  void Post(const httplib::Request& req, const std::string& body, httplib::Response& res) {
    if (!Accepts(req, "application/json") || !Accepts(req, "text/event-stream")) {
      Refuse(res, 406,
             "not acceptable: the client must accept both application/json and "
             "text/event-stream");
      return;
    }
    const std::string type = Lower(req.get_header_value("Content-Type"));
    if (type.rfind("application/json", 0) != 0) {
      Refuse(res, 415, "unsupported media type: the body must be application/json");
      return;
    }
    Parsed parsed = ParseFrame(body);
    if (!parsed.ok) {
      SendJson(res, 400, MakeError(nullptr, parsed.error));
      return;
    }
    const json& frame = parsed.value;
    std::shared_ptr<HttpSession> s;
    const bool initialize = ContainsMethod(frame, "initialize");
    if (initialize && !req.has_header(kSessionHeader)) {
      s = OpenSession();
    } else {
      s = FindSession(req, res);
      if (!s) return;
      if (!VersionHeaderOk(req, res)) return;
    }
    res.set_header(kSessionHeader, s->id);
    {
      std::lock_guard lock(mutex_);
      ++s->active_requests;
    }
    auto done = [this, s] {
      std::lock_guard lock(mutex_);
      --s->active_requests;
      s->last_used = Clock::now();
    };

    if (ContainsMethod(frame, "tools/call") && !frame.is_array()) {
      // A stream: progress and log notifications, then the result.
      res.status = 200;
      res.set_header("Cache-Control", "no-cache");
      res.set_chunked_content_provider(
          "text/event-stream",
          [s, frame](size_t, httplib::DataSink& sink) {
            SinkWriter writer(sink);
            s->session->Handle(frame, writer);
            sink.done();
            return true;
          },
          [done](bool) { done(); });
      return;
    }

    ReplyCollector collector;
    s->session->Handle(frame, collector);
    std::vector<json> replies = collector.Take();
    done();
    if (initialize && !s->session->initialized()) {
      // A rejected initialize leaves no session behind.
      std::lock_guard lock(mutex_);
      sessions_.erase(s->id);
    }
    if (!ContainsRequest(frame)) {
      if (replies.empty()) {
        res.status = 202;
      } else {
        SendJson(res, 400, replies.front());
      }
      return;
    }
    if (replies.empty()) {
      res.status = 202;  // the request was cancelled: no reply
      return;
    }
    SendJson(res, 200, replies.front());
    if (s->session->shutdown_requested()) EndSession(s->id);
  }

  void Get(const httplib::Request& req, httplib::Response& res) {
    if (!Accepts(req, "text/event-stream")) {
      Refuse(res, 406, "not acceptable: the event stream needs Accept: text/event-stream");
      return;
    }
    auto s = FindSession(req, res);
    if (!s) return;
    if (!VersionHeaderOk(req, res)) return;
    {
      std::lock_guard lock(s->mutex);
      if (s->stream_open) {
        Refuse(res, 409, "conflict: this session already has an open event stream");
        return;
      }
      s->stream_open = true;
    }
    res.status = 200;
    res.set_header(kSessionHeader, s->id);
    res.set_header("Cache-Control", "no-cache");
    const auto keepalive = std::chrono::seconds(std::max(1, options_.keepalive_seconds));
    res.set_chunked_content_provider(
        "text/event-stream",
        [s, keepalive](size_t, httplib::DataSink& sink) {
          std::unique_lock lock(s->mutex);
          if (s->ended) {
            sink.done();
            return true;
          }
          s->wake.wait_for(lock, keepalive, [&] { return s->ended; });
          if (s->ended) {
            sink.done();
            return true;
          }
          lock.unlock();
          static constexpr char kComment[] = ": keep-alive\n\n";
          return sink.write(kComment, sizeof(kComment) - 1);
        },
        [s](bool) {
          std::lock_guard lock(s->mutex);
          s->stream_open = false;
        });
  }

  void Delete(const httplib::Request& req, httplib::Response& res) {
    auto s = FindSession(req, res);
    if (!s) return;
    EndSession(s->id);
    res.status = 200;
  }

  void EndSession(const std::string& id) {
    std::shared_ptr<HttpSession> s;
    {
      std::lock_guard lock(mutex_);
      auto it = sessions_.find(id);
      if (it == sessions_.end()) return;
      s = it->second;
      sessions_.erase(it);
    }
    EndStream(*s);
    // Requests still running finish on their own threads; Close() would wait
    // for them, so leave it to the last reference.
  }

  static void EndStream(HttpSession& s) {
    std::lock_guard lock(s.mutex);
    s.ended = true;
    s.wake.notify_all();
  }

  const Server& server_;
  HttpOptions options_;
  httplib::Server http_;
  int port_ = -1;
  bool loopback_ = true;
  std::thread listener_;

  std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stopped_ = false;
  std::map<std::string, std::shared_ptr<HttpSession>> sessions_;
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
