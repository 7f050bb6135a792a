// bench/mcp: the round-trip time of MCP requests to `uiscope mcp`, over stdio
// and over Streamable HTTP, each against a reference measured in the same run
// so that the protocol overhead is a difference, not a guess:
//   - ping over stdio      vs the same-sized line echoed by `cat` through the
//                             same kind of pipes (the pure IPC round trip);
//   - ping over HTTP       vs a minimal cpp-httplib server in this process
//                             answering every POST with a fixed JSON body (the
//                             pure HTTP round trip, same client, same headers,
//                             TCP_NODELAY and unlimited keep-alive);
//   - tools/call observe   vs the engine's Observer on the same app called in
//     {"app": fixture}        this process, with and without the compact
//                             formatting the tool does (the payload's cost).
// Subjects and references alternate in blocks (pings) or per call (observes),
// so both see the same machine. A round trip runs from the write of the
// request to the arrival of the complete reply; parsing the reply to check it
// happens after the clock stops. The GTK3 fixture runs in a headless desktop
// this bench starts; the server is pointed at it through the session
// environment. Issue target: protocol overhead below 0.2 ms per request over
// stdio.
//
// A ping series whose total passes --budget seconds (default 20) stops early;
// its n column says how many it did.
//
//   build/bin/bench_mcp [--pings N] [--observes N] [--rows N] [--budget S] [--uiscope PATH]
//   [--json]
#include <httplib.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_args.h"
#include "core/format.h"
#include "engine/desktop.h"
#include "engine/observe.h"
#include "session/headless_desktop.h"
#include "session/process.h"

namespace uiscope {
namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::json;
using std::chrono::milliseconds;

constexpr char kFixtureName[] = "uiscope-bench-fixture";
constexpr char kProtocolVersion[] = "2025-06-18";
constexpr double kTargetUs = 200;             // the issue's stdio overhead target
constexpr milliseconds kReplyTimeout{30000};  // per round trip; a hang is an error
constexpr int kMaxProblems = 8;               // kept with request and reply for the notes

volatile std::sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

double Us(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

// `s` on one line (newlines as \n), cut after `n` bytes.
std::string Clip(const std::string& s, size_t n = 300) {
  std::string out;
  for (size_t i = 0; i < s.size() && i < n; ++i)
    out += s[i] == '\n' ? std::string("\\n") : std::string(1, s[i]);
  if (s.size() > n) out += "... (" + std::to_string(s.size()) + " bytes)";
  return out;
}

struct Stats {
  int n = 0;
  double median = 0, p99 = 0, mean = 0, max = 0;
};

// The per-request times of one subject or reference, and its slowest request.
struct Series {
  explicit Series(std::string l) : label(std::move(l)) {}
  std::string label;
  std::vector<double> us;
  double slowest_us = -1;
  int slowest_index = -1;
  std::string slowest_request, slowest_reply;

  void Add(double t, const std::string& request, const std::string& reply) {
    if (t > slowest_us) {
      slowest_us = t;
      slowest_index = static_cast<int>(us.size());
      slowest_request = request;
      slowest_reply = reply;
    }
    us.push_back(t);
  }
  Stats Summary() const {
    Stats s;
    if (us.empty()) return s;
    std::vector<double> v = us;
    std::sort(v.begin(), v.end());
    s.n = static_cast<int>(v.size());
    s.median = v[v.size() / 2];
    s.p99 = v[std::min(v.size() - 1, static_cast<size_t>(std::ceil(0.99 * v.size())) - 1)];
    double sum = 0;
    for (double x : v) sum += x;
    s.mean = sum / v.size();
    s.max = v.back();
    return s;
  }
};

// Something the server did that a correct run would not show.
struct Problems {
  int count = 0;
  std::vector<std::string> notes;
  void Add(const std::string& what, const std::string& request, const std::string& reply) {
    if (++count > kMaxProblems) return;
    notes.push_back(what + "\n      request: " + Clip(request) + "\n      reply:   " + Clip(reply));
  }
};

Error Fail(const std::string& message) { return MakeError(ErrorCode::kInternal, message); }

// ---------------------------------------------------------------- stdio

// One request line out, lines in until the reply: for `uiscope mcp` the line
// that answers `id` (notifications in between are counted), for `cat` the
// echo. `us` is from the write to the arrival of the reply line.
struct LineExchange {
  std::string reply;
  json parsed;  // null for an echo
  double us = 0;
};

class LineClient {
 public:
  LineClient(Process& process, bool echo) : process_(process), echo_(echo) {}

  Result<LineExchange> RoundTrip(const std::string& line, int64_t id) {
    LineExchange x;
    const auto start = Clock::now();
    const auto deadline = start + kReplyTimeout;
    if (auto st = process_.WriteLine(line); !st.ok()) return st.error();
    while (true) {
      auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
      auto got = process_.ReadLine(std::max(left, milliseconds(0)));
      const auto arrived = Clock::now();
      if (!got.ok()) return got.error();
      if (echo_) {
        x.us = Us(arrived - start);
        x.reply = std::move(*got);
        return x;
      }
      json j = json::parse(*got, nullptr, /*allow_exceptions=*/false);
      if (j.is_object() && !j.contains("method") && j.contains("id") && j["id"] == id) {
        x.us = Us(arrived - start);
        x.reply = std::move(*got);
        x.parsed = std::move(j);
        return x;
      }
      ++other_lines;
      if (other_examples.size() < 3) other_examples.push_back(Clip(*got));
    }
  }

  bool echo() const { return echo_; }

  int other_lines = 0;  // lines that were not the awaited reply (notifications)
  std::vector<std::string> other_examples;

 private:
  Process& process_;
  bool echo_;
};

// ---------------------------------------------------------------- HTTP

struct HttpExchange {
  int status = 0;
  std::string body;
  std::string content_type;
  bool closed = false;  // the server sent Connection: close
  double us = 0;
};

class HttpClient {
 public:
  explicit HttpClient(int port) : client_("127.0.0.1", port) {
    client_.set_keep_alive(true);
    // As the clients an MCP server meets do (Node's fetch, Python's httpx).
    client_.set_tcp_nodelay(true);
    client_.set_read_timeout(std::chrono::duration_cast<std::chrono::seconds>(kReplyTimeout));
    headers_ = {{"Accept", "application/json, text/event-stream"}};
  }
  void SetHeader(const std::string& name, const std::string& value) {
    headers_.erase(name);
    headers_.emplace(name, value);
  }

  Result<HttpExchange> Post(const std::string& body) {
    HttpExchange x;
    const auto start = Clock::now();
    auto res = client_.Post("/mcp", headers_, body, "application/json");
    x.us = Us(Clock::now() - start);
    if (!res) return Fail("POST /mcp: " + httplib::to_string(res.error()));
    x.status = res->status;
    x.body = std::move(res->body);
    x.content_type = res->get_header_value("Content-Type");
    x.closed = res->get_header_value("Connection") == "close";
    if (x.closed) ++reconnects;
    last_session_id_ = res->get_header_value("Mcp-Session-Id");
    return x;
  }
  Result<int> Delete() {
    auto res = client_.Delete("/mcp", headers_);
    if (!res) return Fail("DELETE /mcp: " + httplib::to_string(res.error()));
    return res->status;
  }
  const std::string& last_session_id() const { return last_session_id_; }

  int reconnects = 0;  // responses that closed the kept-alive connection

 private:
  httplib::Client client_;
  httplib::Headers headers_;
  std::string last_session_id_;
};

// The JSON-RPC messages of a body: one application/json object, or the
// `data:` lines of a text/event-stream (events split by blank lines).
std::vector<json> Messages(const HttpExchange& x) {
  std::vector<json> out;
  if (x.content_type.rfind("text/event-stream", 0) != 0) {
    json j = json::parse(x.body, nullptr, false);
    if (!j.is_discarded()) out.push_back(std::move(j));
    return out;
  }
  std::istringstream in(x.body);
  std::string line, data;
  auto flush = [&] {
    if (data.empty()) return;
    json j = json::parse(data, nullptr, false);
    if (!j.is_discarded()) out.push_back(std::move(j));
    data.clear();
  };
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      flush();
    } else if (line.rfind("data:", 0) == 0) {
      std::string_view d(line);
      d.remove_prefix(5);
      if (!d.empty() && d.front() == ' ') d.remove_prefix(1);
      if (!data.empty()) data += '\n';
      data += d;
    }
  }
  flush();
  return out;
}

// The reply to `id` among the messages; null when there is none.
json ReplyTo(const std::vector<json>& messages, int64_t id, int* others) {
  json reply;
  for (const json& m : messages) {
    if (m.is_object() && !m.contains("method") && m.contains("id") && m["id"] == id) {
      reply = m;
    } else if (others != nullptr) {
      ++*others;
    }
  }
  return reply;
}

// The reference: a minimal cpp-httplib server in this process answering every
// POST /mcp with a fixed ping reply, with TCP_NODELAY and no limit on
// requests per connection: the plain HTTP round trip at its best. (Before
// uiscope's transport set NODELAY, its replies waited ~43 ms for delayed
// ACKs; this reference is what showed it.)
class ReferenceHttpServer {
 public:
  ReferenceHttpServer() {
    server_.set_keep_alive_timeout(30);
    server_.set_read_timeout(30);
    server_.set_tcp_nodelay(true);
    server_.set_keep_alive_max_count(1000000000);
    server_.Post("/mcp", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"id":0,"jsonrpc":"2.0","result":{}})", "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    if (port_ > 0) thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~ReferenceHttpServer() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  int port() const { return port_; }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = -1;
};

// ---------------------------------------------------------------- the run

// Removes the private session registry when the bench exits (after the
// desktop, which is declared later and so stopped first).
class StateDir {
 public:
  StateDir() {
    std::string path = "/tmp/uiscope-bench-mcp-XXXXXX";
    if (mkdtemp(path.data()) != nullptr) {
      path_ = path;
      setenv("UISCOPE_STATE_DIR", path_.c_str(), 1);
    }
  }
  ~StateDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }

 private:
  std::string path_;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Ends a server gracefully (closed stdin, or SIGTERM) and returns its exit
// code; the Process destructor kills what is left.
std::string EndServer(Process& p, bool close_stdin) {
  if (!p.Running()) return "had already exited";
  const char* how = close_stdin ? "end of input" : "SIGTERM";
  const auto start = Clock::now();
  if (close_stdin) {
    p.CloseStdin();
  } else {
    ::kill(p.pid(), SIGTERM);
  }
  auto rc = p.Wait(milliseconds(5000));
  if (!rc.ok()) {
    (void)p.Terminate();
    return std::string("did not exit within 5 s of ") + how + "; killed";
  }
  char took[64];
  std::snprintf(took, sizeof(took), "%.0f ms", Us(Clock::now() - start) / 1000);
  return "exit code " + std::to_string(*rc) + ", " + took + " after " + how;
}

struct Options {
  int pings = 10000;
  int observes = 100;
  int rows = 5;
  double budget_s = 20;  // per ping series; a series that is slower stops early
  std::string uiscope;
  bool json = false;
  std::string playwright_mcp = UISCOPE_PLAYWRIGHT_MCP;  // its cli.js; "" or absent: not compared
};

// The size of a tools/list result: the whole JSON (compact) and the part a
// model reads, {name, description, inputSchema} of each tool.
struct ToolSurface {
  bool measured = false;
  int tools = 0;
  size_t whole = 0;
  size_t model_visible = 0;
  std::string why_not;  // when not measured
};

ToolSurface MeasureSurface(const json& result) {
  ToolSurface t;
  t.measured = true;
  t.whole = result.dump().size();
  for (const json& tool : result.value("tools", json::array())) {
    ++t.tools;
    t.model_visible += json({{"name", tool.value("name", json())},
                             {"description", tool.value("description", json())},
                             {"inputSchema", tool.value("inputSchema", json())}})
                           .dump()
                           .size();
  }
  return t;
}

json SurfaceJson(const ToolSurface& t) {
  if (!t.measured) return {{"measured", false}, {"why_not", t.why_not}};
  return {{"measured", true},
          {"tools", t.tools},
          {"whole_chars", t.whole},
          {"model_visible_chars", t.model_visible}};
}

class Bench {
 public:
  explicit Bench(Options o) : o_(std::move(o)) {}
  int Run();

 private:
  Status Start();
  Status Initialize();
  Status Warm();
  struct PingSeries {
    Series* series;
    std::function<Status(Series*)> one;  // one round trip, recorded in the series if not null
  };
  std::vector<PingSeries> PingSeriesList();
  Status MeasurePings();
  Status MeasureObserves();
  // tools/list of uiscope (stdio) and of Playwright MCP (@playwright/mcp
  // over stdio, Debian's chromium), in this run.
  Status MeasureToolSurface();
  void Finish();
  void Print();
  json ToJson();

  std::string Request(int64_t id, const std::string& method, const json& params = nullptr) {
    json r = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
    if (!params.is_null()) r["params"] = params;
    return r.dump();
  }
  std::string ObserveRequestLine(int64_t id) {
    return Request(id, "tools/call", {{"name", "observe"}, {"arguments", {{"app", kFixtureName}}}});
  }
  // Checks a ping reply; a JSON-RPC error or a foreign shape is a problem.
  void CheckPing(const json& reply, const std::string& where, const std::string& request,
                 const std::string& raw) {
    if (!reply.is_object() || !reply.contains("result") || !reply["result"].is_object())
      problems_.Add(where + ": the reply is not a ping result", request, raw);
  }
  void CheckObserve(const json& reply, const std::string& where, const std::string& request,
                    const std::string& raw) {
    if (!reply.is_object() || !reply.contains("result")) {
      problems_.Add(where + ": no tools/call result", request, raw);
      return;
    }
    const json& r = reply["result"];
    if (r.value("isError", false)) {
      problems_.Add(where + ": observe returned isError", request, raw);
      return;
    }
    const json page = r.value("structuredContent", json::object()).value("page", json::object());
    mcp_nodes_ = page.value("nodes_emitted", -1);
  }

  Status StdioPing(LineClient& c, Series* s, const std::string& where);
  Status HttpPing(HttpClient& c, Series* s, const std::string& where, bool mcp);
  Status StdioObserve(Series* s);
  Status HttpObserve(Series* s);
  Status DirectObserve(Series* observe_only, Series* with_format);

  Options o_;
  StateDir state_dir_;  // before the desktop: removed after it stops
  std::unique_ptr<HeadlessDesktop> desktop_;
  std::unique_ptr<Process> fixture_;
  std::unique_ptr<Process> cat_;
  std::unique_ptr<Process> stdio_server_;
  std::unique_ptr<Process> http_server_;
  std::unique_ptr<ReferenceHttpServer> tuned_http_;
  std::unique_ptr<LineClient> cat_client_, stdio_client_;
  std::unique_ptr<HttpClient> http_client_, tuned_client_;
  std::optional<DesktopConnection> connection_;
  std::unique_ptr<Observer> observer_;
  std::string stdio_log_, http_log_, http_url_;

  int64_t stdio_id_ = 1, http_id_ = 1;
  std::string server_version_, protocol_version_;
  Series cat_ping_{"echo over stdio (cat, reference)"};
  Series stdio_ping_{"ping over stdio (uiscope mcp)"};
  Series tuned_ping_{"POST to bare httplib, NODELAY (reference)"};
  Series http_ping_{"ping over HTTP (uiscope mcp --http)"};
  Series direct_observe_{"Observer in process (reference)"};
  Series direct_format_{"Observer + compact format in process (ref.)"};
  Series stdio_observe_{"observe over stdio (uiscope mcp)"};
  Series http_observe_{"observe over HTTP (uiscope mcp --http)"};
  int direct_nodes_ = 0, mcp_nodes_ = -1;
  size_t direct_text_bytes_ = 0, mcp_reply_bytes_ = 0, http_body_bytes_ = 0;
  int http_observe_others_ = 0;
  int tuned_reconnects_ = 0, http_ping_reconnects_ = 0,
      http_observe_reconnects_ = 0;
  std::vector<std::string> cut_short_;  // ping series stopped by the time budget
  Problems problems_;
  std::vector<std::string> notes_;
  ToolSurface uiscope_surface_, playwright_surface_;
};

Status Bench::Start() {
  if (access(o_.uiscope.c_str(), X_OK) != 0)
    return Fail("no uiscope binary at " + o_.uiscope + " (pass --uiscope PATH)");

  auto desktop = HeadlessDesktop::Start();
  if (!desktop.ok()) return desktop.error();
  desktop_ = std::move(desktop).value();
  const DesktopInfo& info = desktop_->info();
  if (g_stop) return Fail("interrupted");

  SpawnOptions app;
  app.argv = {UISCOPE_FIXTURE_GTK3, "--rows", std::to_string(o_.rows), "--name", kFixtureName};
  app.capture_stdout = true;
  app.pipe_stdin = true;
  app.log_file = info.runtime_dir + "/fixture.log";
  ApplySessionEnvironment(info, &app);
  auto fixture = Process::Spawn(app);
  if (!fixture.ok()) return fixture.error();
  fixture_ = std::move(fixture).value();
  if (!fixture_->ReadLine(std::chrono::seconds(60)).ok())
    return Fail("the fixture did not start:\n" + FileTail(app.log_file, 10));

  // The engine, in process, on the same desktop.
  auto conn = ConnectDesktop(DesktopTarget{info.display_name, info.dbus_address, info.id});
  if (!conn.ok()) return conn.error();
  connection_ = std::move(conn).value();
  observer_ = std::make_unique<Observer>(*connection_->accessibility, connection_->frame);

  // The pipes reference: cat, spawned the same way as the server.
  SpawnOptions cat;
  cat.argv = {"cat"};
  cat.capture_stdout = true;
  cat.pipe_stdin = true;
  auto cat_process = Process::Spawn(cat);
  if (!cat_process.ok()) return cat_process.error();
  cat_ = std::move(cat_process).value();
  cat_client_ = std::make_unique<LineClient>(*cat_, /*echo=*/true);

  // `uiscope mcp` on stdio, with the session's DISPLAY and bus.
  SpawnOptions stdio;
  stdio.argv = {o_.uiscope, "mcp"};
  stdio.capture_stdout = true;
  stdio.pipe_stdin = true;
  stdio_log_ = info.runtime_dir + "/mcp-stdio.log";
  stdio.log_file = stdio_log_;
  ApplySessionEnvironment(info, &stdio);
  auto stdio_process = Process::Spawn(stdio);
  if (!stdio_process.ok()) return stdio_process.error();
  stdio_server_ = std::move(stdio_process).value();
  stdio_client_ = std::make_unique<LineClient>(*stdio_server_, /*echo=*/false);

  // `uiscope mcp --http 127.0.0.1:0`; the port is in its first stderr line.
  // HTTP always needs a token: this one is given.
  SpawnOptions http;
  http.argv = {o_.uiscope, "mcp", "--http", "127.0.0.1:0", "--token", "bench-mcp-token"};
  http_log_ = info.runtime_dir + "/mcp-http.log";
  http.log_file = http_log_;
  ApplySessionEnvironment(info, &http);
  auto http_process = Process::Spawn(http);
  if (!http_process.ok()) return http_process.error();
  http_server_ = std::move(http_process).value();
  const std::string marker = "listening on ";
  for (auto deadline = Clock::now() + std::chrono::seconds(10); http_url_.empty();) {
    const std::string log = ReadFile(http_log_);
    if (size_t at = log.find(marker);
        at != std::string::npos && log.find('\n', at) != std::string::npos) {
      http_url_ = log.substr(at + marker.size(), log.find('\n', at) - at - marker.size());
      break;
    }
    if (!http_server_->Running() || Clock::now() > deadline || g_stop)
      return Fail("uiscope mcp --http did not report its address:\n" + FileTail(http_log_, 10));
    std::this_thread::sleep_for(milliseconds(10));
  }
  int port = 0;
  if (std::sscanf(http_url_.c_str(), "http://127.0.0.1:%d/mcp", &port) != 1 || port <= 0)
    return Fail("cannot read the port of " + http_url_);
  http_client_ = std::make_unique<HttpClient>(port);
  http_client_->SetHeader("Authorization", "Bearer bench-mcp-token");

  tuned_http_ = std::make_unique<ReferenceHttpServer>();
  if (tuned_http_->port() <= 0) return Fail("the reference HTTP server could not bind");
  tuned_client_ = std::make_unique<HttpClient>(tuned_http_->port());
  return OkStatus();
}

Status Bench::Initialize() {
  const json params = {{"protocolVersion", kProtocolVersion},
                       {"capabilities", json::object()},
                       {"clientInfo", {{"name", "bench_mcp"}, {"version", "1"}}}};
  const std::string initialized = R"({"jsonrpc":"2.0","method":"notifications/initialized"})";

  // stdio
  const std::string init = Request(stdio_id_, "initialize", params);
  auto x = stdio_client_->RoundTrip(init, stdio_id_++);
  if (!x.ok())
    return Fail("stdio initialize: " + x.error().message + "\n" + FileTail(stdio_log_, 10));
  if (!x->parsed.contains("result")) return Fail("stdio initialize failed: " + x->reply);
  server_version_ = x->parsed["result"].value("serverInfo", json::object()).value("version", "");
  protocol_version_ = x->parsed["result"].value("protocolVersion", "");
  if (auto st = stdio_server_->WriteLine(initialized); !st.ok()) return st;

  // HTTP: the session id comes with the initialize reply; every later request
  // carries it and the negotiated version.
  const std::string http_init = Request(http_id_, "initialize", params);
  auto h = http_client_->Post(http_init);
  if (!h.ok()) return h.error();
  json reply = ReplyTo(Messages(*h), http_id_++, nullptr);
  if (h->status != 200 || !reply.contains("result"))
    return Fail("HTTP initialize failed: " + std::to_string(h->status) + " " + h->body);
  if (http_client_->last_session_id().empty())
    return Fail("HTTP initialize: no Mcp-Session-Id header in the reply");
  http_client_->SetHeader("Mcp-Session-Id", http_client_->last_session_id());
  http_client_->SetHeader("MCP-Protocol-Version", reply["result"].value("protocolVersion", ""));
  auto n = http_client_->Post(initialized);
  if (!n.ok()) return n.error();
  if (n->status != 202)
    problems_.Add(
        "HTTP notifications/initialized: status " + std::to_string(n->status) + " (202 expected)",
        initialized, n->body);
  // The reference clients send the same headers.
  for (HttpClient* c : {tuned_client_.get()}) {
    c->SetHeader("Mcp-Session-Id", http_client_->last_session_id());
    c->SetHeader("MCP-Protocol-Version", reply["result"].value("protocolVersion", ""));
    c->SetHeader("Authorization", "Bearer bench-mcp-token");
  }
  return OkStatus();
}

Status Bench::MeasureToolSurface() {
  const int64_t id = stdio_id_++;
  auto x = stdio_client_->RoundTrip(Request(id, "tools/list"), id);
  if (!x.ok()) return Fail("tools/list over stdio: " + x.error().message);
  if (!x->parsed.contains("result")) return Fail("tools/list failed: " + Clip(x->reply));
  uiscope_surface_ = MeasureSurface(x->parsed["result"]);

  if (o_.playwright_mcp.empty() || access(o_.playwright_mcp.c_str(), R_OK) != 0) {
    playwright_surface_.why_not = "no @playwright/mcp at \"" + o_.playwright_mcp +
                                  "\" (tests/mcp/js/install.sh installs it)";
    return OkStatus();
  }
  SpawnOptions pw;
  pw.argv = {"node", o_.playwright_mcp, "--headless", "--browser", "chromium"};
  if (access("/usr/bin/chromium", X_OK) == 0) {
    pw.argv.push_back("--executable-path");
    pw.argv.push_back("/usr/bin/chromium");
  }
  pw.capture_stdout = true;
  pw.pipe_stdin = true;
  auto process = Process::Spawn(pw);
  if (!process.ok()) {
    playwright_surface_.why_not = "node: " + process.error().message;
    return OkStatus();
  }
  LineClient client(**process, /*echo=*/false);
  const json params = {{"protocolVersion", kProtocolVersion},
                       {"capabilities", json::object()},
                       {"clientInfo", {{"name", "bench_mcp"}, {"version", "1"}}}};
  auto init = client.RoundTrip(Request(1, "initialize", params), 1);
  if (init.ok()) {
    (void)(*process)->WriteLine(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  }
  auto list = init.ok() ? client.RoundTrip(Request(2, "tools/list"), 2) : init;
  if (!list.ok() || !list->parsed.contains("result")) {
    playwright_surface_.why_not =
        "Playwright MCP's tools/list: " + (list.ok() ? Clip(list->reply) : list.error().message);
    return OkStatus();
  }
  playwright_surface_ = MeasureSurface(list->parsed["result"]);
  return OkStatus();
}

Status Bench::StdioPing(LineClient& c, Series* s, const std::string& where) {
  const int64_t id = stdio_id_++;
  const std::string request = Request(id, "ping");
  auto x = c.RoundTrip(request, id);
  if (!x.ok()) return Fail(where + ": " + x.error().message);
  if (s != nullptr) s->Add(x->us, request, x->reply);
  if (!c.echo()) {
    CheckPing(x->parsed, where, request, x->reply);
  } else if (x->reply != request) {
    problems_.Add(where + ": cat echoed another line", request, x->reply);
  }
  return OkStatus();
}

Status Bench::HttpPing(HttpClient& c, Series* s, const std::string& where, bool mcp) {
  const int64_t id = http_id_++;
  const std::string request = Request(id, "ping");
  auto x = c.Post(request);
  if (!x.ok()) return Fail(where + ": " + x.error().message);
  if (s != nullptr) s->Add(x->us, request, x->body);
  const std::vector<json> messages = Messages(*x);
  json reply = mcp ? ReplyTo(messages, id, nullptr) : (messages.empty() ? json() : messages[0]);
  if (x->status != 200)
    problems_.Add(where + ": HTTP status " + std::to_string(x->status), request, x->body);
  CheckPing(reply, where, request, x->body);
  return OkStatus();
}

Status Bench::StdioObserve(Series* s) {
  const int64_t id = stdio_id_++;
  const std::string request = ObserveRequestLine(id);
  auto x = stdio_client_->RoundTrip(request, id);
  if (!x.ok()) return Fail("observe over stdio: " + x.error().message);
  if (s != nullptr) s->Add(x->us, request, x->reply);
  mcp_reply_bytes_ = x->reply.size();
  CheckObserve(x->parsed, "observe over stdio", request, x->reply);
  return OkStatus();
}

Status Bench::HttpObserve(Series* s) {
  const int64_t id = http_id_++;
  const std::string request = ObserveRequestLine(id);
  auto x = http_client_->Post(request);
  if (!x.ok()) return Fail("observe over HTTP: " + x.error().message);
  if (s != nullptr) s->Add(x->us, request, x->body);
  if (x->status != 200)
    problems_.Add("observe over HTTP: HTTP status " + std::to_string(x->status), request, x->body);
  int others = 0;
  json reply = ReplyTo(Messages(*x), id, &others);
  http_observe_others_ += others;
  http_body_bytes_ = x->body.size();
  CheckObserve(reply, "observe over HTTP", request, x->body);
  return OkStatus();
}

Status Bench::DirectObserve(Series* observe_only, Series* with_format) {
  ObserveRequest r;
  r.app = kFixtureName;
  r.timeout = milliseconds(2000);  // the observe tool's default timeout_ms
  FormatOptions format;            // the observe tool's defaults
  format.format = Format::kCompact;
  format.max_chars = 20000;
  const auto start = Clock::now();
  auto obs = observer_->Observe(r);
  const auto observed = Clock::now();
  if (!obs.ok()) return Fail("Observer: " + obs.error().message);
  auto out = FormatSnapshot(obs->snapshot, format);
  const auto formatted = Clock::now();
  if (!out.ok()) return Fail("FormatSnapshot: " + out.error().message);
  direct_nodes_ = obs->snapshot.stats.ax_nodes;
  direct_text_bytes_ = out->text.size();
  if (observe_only != nullptr) observe_only->Add(Us(observed - start), "", "");
  if (with_format != nullptr) with_format->Add(Us(formatted - start), "", "");
  return OkStatus();
}

Status Bench::Warm() {
  // Until the fixture's window is on the bus with its content.
  for (auto deadline = Clock::now() + std::chrono::seconds(20);;) {
    if (auto st = DirectObserve(nullptr, nullptr); st.ok() && direct_nodes_ >= 10) break;
    if (Clock::now() > deadline)
      return Fail("the fixture did not show up on the accessibility bus");
    if (g_stop) return Fail("interrupted");
    std::this_thread::sleep_for(milliseconds(50));
  }
  for (auto& p : PingSeriesList()) {
    for (int i = 0; i < 50; ++i) {
      if (auto st = p.one(nullptr); !st.ok()) return st;
    }
  }
  // The server's first observe connects to the desktop.
  for (int i = 0; i < 3; ++i) {
    if (auto st = StdioObserve(nullptr); !st.ok()) return st;
    if (auto st = HttpObserve(nullptr); !st.ok()) return st;
  }
  for (HttpClient* c : {http_client_.get(), tuned_client_.get()})
    c->reconnects = 0;
  return OkStatus();
}

std::vector<Bench::PingSeries> Bench::PingSeriesList() {
  return {
      {&cat_ping_, [this](Series* s) { return StdioPing(*cat_client_, s, "echo over stdio"); }},
      {&stdio_ping_, [this](Series* s) { return StdioPing(*stdio_client_, s, "ping over stdio"); }},
      {&tuned_ping_,
       [this](Series* s) {
         return HttpPing(*tuned_client_, s, "reference POST (NODELAY)", false);
       }},
      {&http_ping_,
       [this](Series* s) { return HttpPing(*http_client_, s, "ping over HTTP", true); }},
  };
}

// Blocks of each series in turn, so that all see the same machine; a series
// whose total time passed the budget sits out the remaining blocks.
Status Bench::MeasurePings() {
  const int block = std::max(1, std::min(500, o_.pings / 20));
  auto series = PingSeriesList();
  std::vector<double> spent(series.size(), 0);
  for (int done = 0; done < o_.pings; done += block) {
    const int n = std::min(block, o_.pings - done);
    for (size_t k = 0; k < series.size(); ++k) {
      for (int i = 0; i < n && spent[k] <= o_.budget_s * 1e6; ++i) {
        if (auto st = series[k].one(series[k].series); !st.ok()) return st;
        spent[k] += series[k].series->us.back();
        if (g_stop) return Fail("interrupted");
      }
    }
  }
  for (size_t k = 0; k < series.size(); ++k) {
    if (static_cast<int>(series[k].series->us.size()) < o_.pings) {
      char line[200];
      std::snprintf(line, sizeof(line),
                    "%s: stopped after %zu pings (%.0f s, over the %.0f s budget)",
                    series[k].series->label.c_str(), series[k].series->us.size(), spent[k] / 1e6,
                    o_.budget_s);
      cut_short_.push_back(line);
    }
  }
  tuned_reconnects_ = tuned_client_->reconnects;
  http_ping_reconnects_ = http_client_->reconnects;
  http_client_->reconnects = 0;
  return OkStatus();
}

Status Bench::MeasureObserves() {
  // One of each per iteration, in rotating order: the app may answer the
  // first or the last of three back-to-back walks faster.
  const std::function<Status()> kinds[] = {
      [this] { return DirectObserve(&direct_observe_, &direct_format_); },
      [this] { return StdioObserve(&stdio_observe_); },
      [this] { return HttpObserve(&http_observe_); },
  };
  for (int i = 0; i < o_.observes; ++i) {
    for (int k = 0; k < 3; ++k) {
      if (auto st = kinds[(i + k) % 3](); !st.ok()) return st;
    }
    if (g_stop) return Fail("interrupted");
  }
  http_observe_reconnects_ = http_client_->reconnects;
  return OkStatus();
}

// Ends the servers the way a client would, and keeps what they logged.
void Bench::Finish() {
  if (http_client_ != nullptr) {
    auto del = http_client_->Delete();
    if (!del.ok() || (*del != 200 && *del != 204))
      notes_.push_back("DELETE /mcp: " +
                       (del.ok() ? "status " + std::to_string(*del) : del.error().message));
  }
  // A polite client closes its connections before the server goes.
  http_client_.reset();
  tuned_client_.reset();
  if (stdio_server_ != nullptr)
    notes_.push_back("uiscope mcp (stdio): " + EndServer(*stdio_server_, true));
  if (http_server_ != nullptr)
    notes_.push_back("uiscope mcp --http: " + EndServer(*http_server_, false));
  for (const auto& [name, log] : {std::pair{"stdio", stdio_log_}, std::pair{"http", http_log_}}) {
    if (log.empty()) continue;
    std::istringstream in(ReadFile(log));
    std::string line;
    while (std::getline(in, line)) {
      // The HTTP server's address and stop lines are expected.
      if (line.find("MCP server listening on") != std::string::npos ||
          line.find("MCP server stopped") != std::string::npos)
        continue;
      notes_.push_back(std::string("server stderr (") + name + "): " + Clip(line));
    }
  }
  if (stdio_client_ != nullptr && stdio_client_->other_lines > 0) {
    std::string s =
        "stdio: " + std::to_string(stdio_client_->other_lines) + " lines besides the replies, e.g.";
    for (const auto& e : stdio_client_->other_examples) s += "\n      " + e;
    notes_.push_back(s);
  }
  if (http_observe_others_ > 0)
    notes_.push_back("HTTP: " + std::to_string(http_observe_others_) +
                     " event-stream messages besides the observe replies");
}

void PrintRow(const Series& s) {
  Stats t = s.Summary();
  std::printf("%-46s %6d %9.1f %9.1f %9.1f %10.1f\n", s.label.c_str(), t.n, t.median, t.p99, t.mean,
              t.max);
}

void PrintOverhead(const char* what, const Series& subject, const Series& reference) {
  Stats a = subject.Summary(), b = reference.Summary();
  std::printf("  -> %s: %+.1f us median (%.2fx the reference), %+.1f us mean, %+.1f us p99\n", what,
              a.median - b.median, a.median / std::max(1e-9, b.median), a.mean - b.mean,
              a.p99 - b.p99);
}

// The median of the per-call differences of two series measured in lockstep
// (observes: one of each per iteration), steadier than a difference of
// medians when the app's answer time wanders.
double PairedMedian(const Series& subject, const Series& reference) {
  std::vector<double> d;
  for (size_t i = 0; i < subject.us.size() && i < reference.us.size(); ++i)
    d.push_back(subject.us[i] - reference.us[i]);
  if (d.empty()) return 0;
  std::sort(d.begin(), d.end());
  return d[d.size() / 2];
}

void PrintSlowest(const Series& s) {
  std::printf("  slowest %s: #%d, %.0f us\n      request: %s\n      reply:   %s\n", s.label.c_str(),
              s.slowest_index, s.slowest_us, Clip(s.slowest_request, 200).c_str(),
              Clip(s.slowest_reply, 200).c_str());
}

void Bench::Print() {
  std::printf(
      "bench_mcp: %s (version %s, protocol %s); %d pings and %d observes per transport;\n"
      "GTK3 fixture with %d rows; subject and reference alternate (pings in blocks)\n\n",
      o_.uiscope.c_str(), server_version_.c_str(), protocol_version_.c_str(), o_.pings, o_.observes,
      o_.rows);
  std::printf("%-46s %6s %9s %9s %9s %10s\n", "round trip per request (us)", "n", "median", "p99",
              "mean", "max");
  PrintRow(stdio_ping_);
  PrintRow(cat_ping_);
  PrintOverhead("protocol overhead over stdio", stdio_ping_, cat_ping_);
  PrintRow(http_ping_);
  PrintRow(tuned_ping_);
  PrintOverhead("protocol overhead over HTTP", http_ping_, tuned_ping_);
  std::printf(
      "  (connection closed by the server: uiscope %d times in %zu pings, bare httplib "
      "NODELAY %d in %zu)\n",
      http_ping_reconnects_, http_ping_.us.size(), tuned_reconnects_, tuned_ping_.us.size());
  for (const auto& c : cut_short_) std::printf("  (%s)\n", c.c_str());

  std::printf(
      "\nobserve {\"app\": \"%s\"}: %d nodes observed, %zu bytes of compact text, "
      "reply line %zu bytes (stdio), body %zu bytes (HTTP)\n",
      kFixtureName, direct_nodes_, direct_text_bytes_, mcp_reply_bytes_, http_body_bytes_);
  PrintRow(stdio_observe_);
  PrintRow(http_observe_);
  PrintRow(direct_observe_);
  PrintRow(direct_format_);
  PrintOverhead("MCP overhead over stdio (vs observe + format)", stdio_observe_, direct_format_);
  std::printf("     paired (median of per-call differences): %+.1f us\n",
              PairedMedian(stdio_observe_, direct_format_));
  PrintOverhead("MCP overhead over HTTP  (vs observe + format)", http_observe_, direct_format_);
  std::printf("     paired (median of per-call differences): %+.1f us\n",
              PairedMedian(http_observe_, direct_format_));
  std::printf("  (keep-alive: the HTTP server closed the connection %d times in %d observes)\n",
              http_observe_reconnects_, o_.observes);

  std::printf("\nslowest round trips:\n");
  for (const Series* s : {&stdio_ping_, &cat_ping_, &http_ping_, &tuned_ping_,
                          &stdio_observe_, &http_observe_})
    PrintSlowest(*s);
  std::printf("\nproblems: %d\n", problems_.count);
  for (const auto& p : problems_.notes) std::printf("  %s\n", p.c_str());
  for (const auto& n : notes_) std::printf("note: %s\n", n.c_str());

  const double overhead = stdio_ping_.Summary().median - cat_ping_.Summary().median;
  std::printf("\ntools/list (characters of compact JSON)        %8s %14s\n", "whole",
              "model-visible");
  auto surface = [](const char* who, const ToolSurface& t) {
    if (!t.measured) {
      std::printf("  %-44s not measured: %s\n", who, t.why_not.c_str());
      return;
    }
    std::printf("  %-44s %8zu %14zu  (%d tools)\n", who, t.whole, t.model_visible, t.tools);
  };
  surface("uiscope mcp", uiscope_surface_);
  surface("Playwright MCP (@playwright/mcp, chromium)", playwright_surface_);
  if (uiscope_surface_.measured && playwright_surface_.measured) {
    std::printf("  ratio uiscope / Playwright MCP               %8.2f %14.2f\n",
                double(uiscope_surface_.whole) / double(std::max<size_t>(1, playwright_surface_.whole)),
                double(uiscope_surface_.model_visible) /
                    double(std::max<size_t>(1, playwright_surface_.model_visible)));
  }

  std::printf("\nprotocol overhead over stdio: %.1f us per ping (target < %.0f us): %s\n", overhead,
              kTargetUs, overhead < kTargetUs ? "met" : "NOT met");
}

json StatsJson(const Series& s) {
  Stats t = s.Summary();
  return {
      {"label", s.label},  {"n", t.n},        {"median_us", t.median},           {"p99_us", t.p99},
      {"mean_us", t.mean}, {"max_us", t.max}, {"slowest_index", s.slowest_index}};
}

json Overhead(const Series& subject, const Series& reference) {
  Stats a = subject.Summary(), b = reference.Summary();
  return {{"median_us", a.median - b.median},
          {"mean_us", a.mean - b.mean},
          {"p99_us", a.p99 - b.p99},
          {"ratio_median", a.median / std::max(1e-9, b.median)}};
}

json PairedOverhead(const Series& subject, const Series& reference) {
  json j = Overhead(subject, reference);
  j["paired_median_us"] = PairedMedian(subject, reference);
  return j;
}

json Bench::ToJson() {
  const double overhead = stdio_ping_.Summary().median - cat_ping_.Summary().median;
  return {
      {"uiscope", o_.uiscope},
      {"server_version", server_version_},
      {"protocol_version", protocol_version_},
      {"pings", o_.pings},
      {"observes", o_.observes},
      {"fixture_rows", o_.rows},
      {"stdio",
       {{"ping", StatsJson(stdio_ping_)},
        {"echo_reference", StatsJson(cat_ping_)},
        {"ping_overhead", Overhead(stdio_ping_, cat_ping_)},
        {"observe", StatsJson(stdio_observe_)},
        {"observe_overhead", PairedOverhead(stdio_observe_, direct_format_)},
        {"observe_reply_bytes", mcp_reply_bytes_}}},
      {"http",
       {{"ping", StatsJson(http_ping_)},
        {"post_reference_nodelay", StatsJson(tuned_ping_)},
        {"ping_overhead", Overhead(http_ping_, tuned_ping_)},
        {"observe", StatsJson(http_observe_)},
        {"observe_overhead", PairedOverhead(http_observe_, direct_format_)},
        {"observe_body_bytes", http_body_bytes_},
        {"connection_closes_pings", http_ping_reconnects_},
        {"connection_closes_observes", http_observe_reconnects_},
        {"reference_nodelay_connection_closes", tuned_reconnects_}}},
      {"observe_direct",
       {{"observer", StatsJson(direct_observe_)},
        {"observer_and_format", StatsJson(direct_format_)},
        {"nodes", direct_nodes_},
        {"compact_text_bytes", direct_text_bytes_}}},
      {"tools_list",
       {{"uiscope", SurfaceJson(uiscope_surface_)},
        {"playwright_mcp", SurfaceJson(playwright_surface_)}}},
      {"problems", problems_.count},
      {"problem_notes", problems_.notes},
      {"notes", notes_},
      {"cut_short", cut_short_},
      {"target",
       {{"stdio_overhead_us", overhead}, {"limit_us", kTargetUs}, {"met", overhead < kTargetUs}}},
  };
}

int Bench::Run() {
  Status st = Start();
  if (st.ok()) st = Initialize();
  if (st.ok()) st = MeasureToolSurface();
  if (st.ok()) st = Warm();
  if (st.ok()) st = MeasurePings();
  if (st.ok()) st = MeasureObserves();
  Finish();
  if (!st.ok()) {
    std::fprintf(stderr, "bench_mcp: %s\n", st.error().message.c_str());
    for (const auto& p : problems_.notes) std::fprintf(stderr, "  %s\n", p.c_str());
    for (const auto& n : notes_) std::fprintf(stderr, "note: %s\n", n.c_str());
    return 1;
  }
  if (o_.json) {
    std::printf("%s\n", ToJson().dump(2).c_str());
  } else {
    Print();
  }
  return 0;
}

std::string DefaultUiscope() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "uiscope";
  return (self.parent_path() / "uiscope").string();
}

}  // namespace
}  // namespace uiscope

int main(int argc, char** argv) {
  static const char kUsage[] =
      "usage: bench_mcp [--pings N] [--observes N] [--rows N] [--budget S] [--uiscope PATH] "
      "[--playwright-mcp CLI_JS] [--json]\n"
      "  `uiscope mcp` over stdio and HTTP: ping and observe latency, tools/list size beside\n"
      "  Playwright MCP's (--playwright-mcp \"\" skips it; state in a private temporary\n"
      "  directory)\n";
  if (uiscope::bench::HelpAsked(argc, argv, kUsage)) return 0;
  uiscope::Options o;
  o.uiscope = uiscope::DefaultUiscope();
  for (int i = 1; i < argc; ++i) {
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_mcp: %s needs a value\n", argv[i]);
        std::exit(2);
      }
      return argv[++i];
    };
    if (std::strcmp(argv[i], "--pings") == 0) {
      o.pings = std::max(1, std::atoi(value()));
    } else if (std::strcmp(argv[i], "--observes") == 0) {
      o.observes = std::max(1, std::atoi(value()));
    } else if (std::strcmp(argv[i], "--rows") == 0) {
      o.rows = std::max(0, std::atoi(value()));
    } else if (std::strcmp(argv[i], "--budget") == 0) {
      o.budget_s = std::max(1.0, std::atof(value()));
    } else if (std::strcmp(argv[i], "--uiscope") == 0) {
      o.uiscope = value();
    } else if (std::strcmp(argv[i], "--playwright-mcp") == 0) {
      o.playwright_mcp = value();
    } else if (std::strcmp(argv[i], "--json") == 0) {
      o.json = true;
    } else {
      return uiscope::bench::BadUsage(argv[i], kUsage);
    }
  }
  uiscope::bench::PrivateStateDir state;  // what the desktops' apps write
  // A signal ends the measurement loop; the destructors then stop the
  // servers, the fixture and the desktop.
  struct sigaction sa {};
  sa.sa_handler = uiscope::OnSignal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  try {
    uiscope::Bench bench(o);
    return bench.Run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_mcp: %s\n", e.what());
    return 1;
  }
}
