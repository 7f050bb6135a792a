#include "mcp/http_server.h"

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
#include <iostream>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "mcp/worker_pool.h"

namespace uiscope::mcp {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kWriteTimeout = std::chrono::seconds(10);
constexpr auto kTick = std::chrono::milliseconds(100);
constexpr auto kLinger = std::chrono::seconds(1);
constexpr uint64_t kListenKey = 0;
constexpr uint64_t kWakeKey = 1;

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

class HttpServer::Impl {
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

  Impl(McpHttpEndpoint& endpoint, HttpOptions options)
      : options_(std::move(options)),
        endpoint_(endpoint),
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
  int max_connections() const { return static_cast<int>(max_connections_); }
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
          FlushEvents();
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

  // Writes what the sessions queued on their GET streams (EventStream::Push)
  // as SSE events.
  void FlushEvents() {
    const auto now = Clock::now();
    std::vector<ConnPtr> broken;
    for (auto& [id, conn] : conns_) {
      if (!conn->events) continue;
      for (const json& message : conn->events->TakePending()) {
        const std::string event = "event: message\ndata: " + DumpMessage(message) + "\n\n";
        if (!WriteNow(conn->fd, conn->chunked ? Chunk(event) : event)) {
          broken.push_back(conn);
          break;
        }
        conn->last_write = now;
      }
    }
    for (auto& conn : broken) Unwatch(conn);
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
      Write("event: message\ndata: " + DumpMessage(message) + "\n\n");
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
  McpHttpEndpoint& endpoint_;
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

Result<std::unique_ptr<HttpServer>> HttpServer::Start(McpHttpEndpoint& endpoint,
                                                      HttpOptions options) {
  auto impl = std::make_unique<Impl>(endpoint, std::move(options));
  if (auto st = impl->Bind(); !st.ok()) return st.error();
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpServer::~HttpServer() { Stop(); }
int HttpServer::port() const { return impl_->port(); }
std::string HttpServer::url() const { return impl_->url(); }
int HttpServer::max_connections() const { return impl_->max_connections(); }
void HttpServer::Stop() { impl_->Stop(); }
void HttpServer::Wait() { impl_->Wait(); }

}  // namespace uiscope::mcp
