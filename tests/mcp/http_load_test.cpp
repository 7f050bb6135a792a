// The HTTP transport under load and abuse (issue 14, defects 4 and 8): open
// event streams and slow clients must not stop it serving a new client;
// what does not fit is refused at once with 503 and Retry-After; a client
// flooding sessions is refused without ending anybody else's.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "mcp/http_transport.h"
#include "test_tools.h"

namespace uiscope::mcp {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::string Init(const std::string& client, bool elicitation = false) {
  json caps = elicitation ? json{{"elicitation", json::object()}} : json::object();
  return json{{"jsonrpc", "2.0"},
              {"id", 1},
              {"method", "initialize"},
              {"params",
               {{"protocolVersion", "2025-11-25"},
                {"capabilities", caps},
                {"clientInfo", {{"name", client}, {"version", "1"}}}}}}
      .dump();
}

// A raw TCP connection to the server, for clients httplib cannot play
// (hundreds of them at once, or ones that never finish a request).
class RawClient {
 public:
  explicit RawClient(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      close(fd_);
      fd_ = -1;
    }
  }
  ~RawClient() {
    if (fd_ >= 0) close(fd_);
  }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool ok() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  bool Send(std::string_view bytes) {
    return fd_ >= 0 && send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
                           static_cast<ssize_t>(bytes.size());
  }
  // Reads what is there without waiting; false at end of stream.
  bool ReadSome() {
    char buf[4096];
    for (;;) {
      ssize_t n = recv(fd_, buf, sizeof(buf), MSG_DONTWAIT);
      if (n > 0) {
        received_.append(buf, static_cast<size_t>(n));
        continue;
      }
      return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    }
  }
  // Waits until `what` was received or the peer closed; false on timeout.
  bool WaitFor(std::string_view what, milliseconds timeout, bool until_closed = false) {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      const bool open = ReadSome();
      if (!until_closed && received_.find(what) != std::string::npos) return true;
      if (!open) return until_closed || received_.find(what) != std::string::npos;
      pollfd p{fd_, POLLIN, 0};
      poll(&p, 1, 20);
    }
    return false;
  }
  const std::string& received() const { return received_; }

 private:
  int fd_ = -1;
  std::string received_;
};

// /mcp over a socket always needs a token; the raw requests below spell it.
constexpr char kToken[] = "load-test-token";

std::string StreamRequest(const std::string& session) {
  return "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer load-test-token\r\nAccept: "
         "text/event-stream\r\n"
         "Mcp-Session-Id: " +
         session + "\r\n\r\n";
}

// Raises the soft descriptor limit; the test needs one per connection.
bool EnsureDescriptors(rlim_t wanted) {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) != 0) return false;
  if (r.rlim_cur >= wanted) return true;
  r.rlim_cur = std::min(wanted, r.rlim_max);
  return setrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur >= wanted;
}

class HttpLoadTest : public ::testing::Test {
 protected:
  void Start(HttpOptions options, bool may_wait = false) {
    ServerOptions so;
    so.tools_inline = true;
    so.inline_calls_may_wait = may_wait;
    server_ = std::make_unique<Server>(tools_, so);
    options.token = kToken;
    auto t = HttpTransport::Start(*server_, options);
    ASSERT_TRUE(t.ok()) << t.error().message;
    transport_ = std::move(t).value();
  }

  std::unique_ptr<httplib::Client> NewClient() {
    auto c = std::make_unique<httplib::Client>("127.0.0.1", transport_->port());
    c->set_connection_timeout(2);
    c->set_read_timeout(5);
    return c;
  }

  static httplib::Headers Headers(const std::string& session = "") {
    httplib::Headers h = {{"Accept", "application/json, text/event-stream"},
                          {"Authorization", std::string("Bearer ") + kToken}};
    if (!session.empty()) h.emplace("Mcp-Session-Id", session);
    return h;
  }

  // initialize on `c`; the session id, or "" with the status in `status`.
  std::string Open(httplib::Client& c, const std::string& client, int* status = nullptr,
                   bool elicitation = false) {
    auto r = c.Post("/mcp", Headers(), Init(client, elicitation), "application/json");
    if (status) *status = r ? r->status : -1;
    if (!r || r->status != 200) return "";
    std::string id = r->get_header_value("Mcp-Session-Id");
    c.Post("/mcp", Headers(id), R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
           "application/json");
    return id;
  }

  ToolRegistry tools_ = test::MakeTestTools();
  std::unique_ptr<Server> server_;
  std::unique_ptr<HttpTransport> transport_;
};

// Defect 4: 32 open GET streams made the 33rd client hang, 33 slow clients
// stopped the server answering anyone (cpp-httplib: one pool thread per
// connection, backlog 5). Target: 1,000 streams and 100 slow clients leave a
// new client served within 100 ms; asserted with 10x slack.
TEST_F(HttpLoadTest, ThousandStreamsAndHundredSlowClientsLeaveNewClientsServed) {
  constexpr int kStreams = 1000;
  constexpr int kSlow = 100;
  if (!EnsureDescriptors(2 * (kStreams + kSlow) + 256)) {
    GTEST_SKIP() << "needs ~2,500 file descriptors (ulimit -n)";
  }
  HttpOptions options;
  options.max_sessions = kStreams + 10;
  options.max_sessions_per_client = kStreams + 10;
  Start(options);

  auto c = NewClient();
  c->set_keep_alive(true);
  std::vector<std::string> sessions;
  for (int i = 0; i < kStreams; ++i) {
    int status = 0;
    sessions.push_back(Open(*c, "streamer", &status));
    ASSERT_FALSE(sessions.back().empty()) << "initialize " << i << ": " << status;
  }

  const auto t0 = Clock::now();
  auto phase = [&](const char* what) {
    std::printf("%s: %.0f ms\n", what,
                std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  };
  phase("sessions");
  std::vector<std::unique_ptr<RawClient>> streams;
  for (int i = 0; i < kStreams; ++i) {
    streams.push_back(std::make_unique<RawClient>(transport_->port()));
    ASSERT_TRUE(streams.back()->ok()) << "connect " << i;
    ASSERT_TRUE(streams.back()->Send(StreamRequest(sessions[i])));
  }
  // Every stream gets its 200 head (the 33rd hung before).
  for (int i = 0; i < kStreams; ++i) {
    ASSERT_TRUE(streams[i]->WaitFor("\r\n\r\n", milliseconds(10000)))
        << "stream " << i << " got no response head: " << streams[i]->received();
    ASSERT_EQ(streams[i]->received().rfind("HTTP/1.1 200", 0), 0u) << streams[i]->received();
  }

  phase("streams");
  // Slow clients: a request head that never ends, a byte now and then.
  std::vector<std::unique_ptr<RawClient>> slow;
  for (int i = 0; i < kSlow; ++i) {
    slow.push_back(std::make_unique<RawClient>(transport_->port()));
    ASSERT_TRUE(slow.back()->ok());
    ASSERT_TRUE(
        slow.back()->Send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                          "load-test-token\r\nX-Slow: "));
  }
  std::atomic<bool> done{false};
  std::thread drip([&] {
    while (!done) {
      for (auto& s : slow) s->Send("a");
      std::this_thread::sleep_for(milliseconds(100));
    }
  });

  // New clients, each on a fresh connection, are served promptly.
  std::vector<double> ms;
  for (int i = 0; i < 20; ++i) {
    auto fresh = NewClient();
    const auto start = Clock::now();
    int status = 0;
    const std::string id = Open(*fresh, "newcomer", &status);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    EXPECT_EQ(status, 200);
    EXPECT_FALSE(id.empty());
  }
  std::sort(ms.begin(), ms.end());
  std::printf(
      "new client initialize (+ initialized) with %d streams and %d slow clients open: "
      "median %.2f ms, max %.2f ms\n",
      kStreams, kSlow, ms[ms.size() / 2], ms.back());
  EXPECT_LT(ms.back(), 1000.0);

  // A session with an open stream still answers on another connection.
  auto ping = NewClient()->Post("/mcp", Headers(sessions[kStreams - 1]),
                                R"({"jsonrpc":"2.0","id":9,"method":"ping"})", "application/json");
  ASSERT_TRUE(ping);
  EXPECT_EQ(ping->status, 200);
  done = true;
  drip.join();
  phase("served");
  streams.clear();
  slow.clear();
  phase("closed");
  transport_->Stop();
  phase("stopped");
}

// Defect 4: a request head that trickles in is cut at the header deadline
// (408), whatever the pace of its bytes.
TEST_F(HttpLoadTest, ASlowRequestHeadIsCutAtTheDeadline) {
  HttpOptions options;
  options.header_timeout_ms = 300;
  Start(options);
  RawClient slow(transport_->port());
  ASSERT_TRUE(slow.Send(
      "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer load-test-token\r\n"));
  const auto start = Clock::now();
  bool closed = false;
  while (Clock::now() - start < std::chrono::seconds(3)) {
    if (!slow.Send("X")) break;  // one byte every 50 ms: each read succeeds
    if (!slow.ReadSome()) {
      closed = true;
      break;
    }
    std::this_thread::sleep_for(milliseconds(50));
  }
  slow.WaitFor("", milliseconds(1000), /*until_closed=*/true);
  EXPECT_TRUE(closed || slow.received().find("408") != std::string::npos);
  EXPECT_EQ(slow.received().rfind("HTTP/1.1 408", 0), 0u) << slow.received();
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(3));
}

// Defect 4: beyond the connection limit a client is told so at once — 503
// with Retry-After — rather than left waiting.
TEST_F(HttpLoadTest, OverTheConnectionLimitIs503WithRetryAfter) {
  HttpOptions options;
  options.max_connections = 8;
  Start(options);
  std::vector<std::unique_ptr<RawClient>> idle;
  for (int i = 0; i < 8; ++i) idle.push_back(std::make_unique<RawClient>(transport_->port()));
  // Let the server accept them: a ping on the 8th answers once it has.
  ASSERT_TRUE(idle.back()->Send(
      "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
      "load-test-token\r\nContent-Type: application/json\r\n"
      "Accept: application/json, text/event-stream\r\nContent-Length: 5\r\n\r\n1e400"));
  ASSERT_TRUE(idle.back()->WaitFor("\r\n\r\n", milliseconds(5000)));

  const auto start = Clock::now();
  auto c = NewClient();
  auto r = c->Post("/mcp", Headers(), Init("ninth"), "application/json");
  ASSERT_TRUE(r) << "no answer: " << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(r->get_header_value("Retry-After"), "1");
  EXPECT_NE(r->body.find("too many connections"), std::string::npos) << r->body;
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(1));

  // Once connections close, new clients are served again.
  idle.clear();
  int status = 0;
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while (Clock::now() < deadline) {
    auto again = NewClient();
    if (!Open(*again, "later", &status).empty()) break;
    std::this_thread::sleep_for(milliseconds(20));
  }
  EXPECT_EQ(status, 200);
}

// Reads SSE events from a raw connection's buffer.
std::vector<json> Events(const std::string& text) {
  std::vector<json> out;
  size_t at = 0;
  while ((at = text.find("data: ", at)) != std::string::npos) {
    const size_t end = text.find('\n', at);
    if (end == std::string::npos) break;
    out.push_back(json::parse(text.substr(at + 6, end - at - 6), nullptr, false));
    at = end;
  }
  return out;
}

// Defect 8: any local client could end others' idle sessions (LRU, cap
// 256), one waiting on a person's confirmation included. Now a flood from one
// client ends only its own idle sessions (429 when all of them are busy: see
// AClientAtItsSessionLimitReusesItsOwnIdleSessions), and eviction never ends
// a busy session: one waiting for the user's answer, or one with an open
// event stream.
TEST_F(HttpLoadTest, AFloodOfSessionsEndsNobodyElses) {
  HttpOptions options;
  options.max_sessions = 8;
  options.max_sessions_per_client = 4;
  Start(options, /*may_wait=*/true);
  auto c = NewClient();

  // The victim: one session waiting on the user's confirmation (elicitation),
  // one holding an open event stream.
  const std::string asking = Open(*c, "victim", nullptr, /*elicitation=*/true);
  const std::string streaming = Open(*c, "victim");
  ASSERT_FALSE(asking.empty());
  ASSERT_FALSE(streaming.empty());
  RawClient call(transport_->port());
  const std::string body =
      R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ask","arguments":{"timeout_ms":20000}}})";
  ASSERT_TRUE(
      call.Send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                "load-test-token\r\nContent-Type: application/json\r\n"
                "Accept: application/json, text/event-stream\r\nMcp-Session-Id: " +
                asking + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body));
  ASSERT_TRUE(call.WaitFor("elicitation/create", milliseconds(5000))) << call.received();
  RawClient stream(transport_->port());
  ASSERT_TRUE(stream.Send(StreamRequest(streaming)));
  ASSERT_TRUE(stream.WaitFor("\r\n\r\n", milliseconds(5000)));

  // One client floods: beyond its share of 4 it takes only its own idle
  // sessions.
  int status = 0;
  std::vector<std::string> flood;
  for (int i = 0; i < 20; ++i) flood.push_back(Open(*c, "flooder", &status));
  EXPECT_EQ(status, 200);
  auto alive = [&](const std::string& id) {
    auto r = NewClient()->Post("/mcp", Headers(id), R"({"jsonrpc":"2.0","id":8,"method":"ping"})",
                               "application/json");
    return r && r->status == 200;
  };
  int flood_alive = 0;
  for (const auto& id : flood) flood_alive += alive(id);
  EXPECT_EQ(flood_alive, 4);

  // One that rotates names fills the server: idle sessions go (the
  // flooder's own first), busy ones never; when all are busy, a clear 503.
  for (int i = 0; i < 30; ++i) Open(*c, "rotating-" + std::to_string(i), &status);
  EXPECT_EQ(status, 200);

  // The victim's sessions are alive: the stream is open, the confirmation
  // still waits, and answering it completes the call.
  EXPECT_TRUE(stream.ReadSome()) << "the victim's event stream was closed";
  const auto events = Events(call.received());
  json ask;
  for (const auto& e : events) {
    if (e.is_object() && e.value("method", "") == "elicitation/create") ask = e;
  }
  ASSERT_TRUE(ask.is_object()) << call.received();
  json answer = {{"jsonrpc", "2.0"},
                 {"id", ask["id"]},
                 {"result", {{"action", "accept"}, {"content", {{"approve", true}}}}}};
  auto a = NewClient()->Post("/mcp", Headers(asking), answer.dump(), "application/json");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->status, 202) << a->body;
  ASSERT_TRUE(call.WaitFor("\"id\":5", milliseconds(5000))) << call.received();
  EXPECT_NE(call.received().find("accept"), std::string::npos) << call.received();
  auto ping = NewClient()->Post("/mcp", Headers(streaming),
                                R"({"jsonrpc":"2.0","id":6,"method":"ping"})", "application/json");
  ASSERT_TRUE(ping);
  EXPECT_EQ(ping->status, 200) << "the victim's streaming session was evicted";
}

// A client that never ends its sessions (the TypeScript SDK's close() sends
// no DELETE) and opens one per task was refused for good, 429, once it held
// max_sessions_per_client idle sessions: nothing else ends them. Now its new
// session takes the place of its own least recently used idle one, and it is
// refused only when all of its sessions are busy.
TEST_F(HttpLoadTest, AClientAtItsSessionLimitReusesItsOwnIdleSessions) {
  HttpOptions options;
  options.max_sessions_per_client = 2;
  Start(options);
  auto c = NewClient();
  std::vector<std::string> ids;
  for (int task = 0; task < 5; ++task) {
    int status = 0;
    ids.push_back(Open(*c, "forgetful", &status));
    ASSERT_FALSE(ids.back().empty()) << "task " << task << ": status " << status;
  }
  auto ping = [&](const std::string& id) {
    auto r = c->Post("/mcp", Headers(id), R"({"jsonrpc":"2.0","id":7,"method":"ping"})",
                     "application/json");
    return r ? r->status : -1;
  };
  EXPECT_EQ(ping(ids[0]), 404) << "the oldest idle session should have made room";
  EXPECT_EQ(ping(ids[4]), 200);

  // Busy sessions are never taken: with both held by open event streams, a
  // third is refused, and told so.
  RawClient a(transport_->port());
  RawClient b(transport_->port());
  ASSERT_TRUE(a.Send(StreamRequest(ids[3])));
  ASSERT_TRUE(b.Send(StreamRequest(ids[4])));
  ASSERT_TRUE(a.WaitFor("\r\n\r\n", milliseconds(5000))) << a.received();
  ASSERT_TRUE(b.WaitFor("\r\n\r\n", milliseconds(5000))) << b.received();
  auto refused = c->Post("/mcp", Headers(), Init("forgetful"), "application/json");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 429) << refused->body;
  EXPECT_NE(refused->body.find("too many sessions for this client"), std::string::npos)
      << refused->body;
  EXPECT_FALSE(refused->get_header_value("Retry-After").empty());
  EXPECT_TRUE(a.ReadSome() && b.ReadSome()) << "an event stream was closed";
}

}  // namespace
}  // namespace uiscope::mcp
