// The DevTools protocol client without a browser: WebSocket frames (valid,
// fragmented, large, malformed, random), the handshake and CdpConnection
// against a loopback server in the test, discovery parsing, and the page
// tree built from a recorded page (tests/fixtures/cdp/page_state.json:
// tests/fixtures/web/page_state.html in Chromium 156, 885x557 viewport;
// the "sources" of each name were dropped to keep it small).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "platform/cdp/cdp_connection.h"
#include "platform/cdp/cdp_page_tree.h"
#include "platform/cdp/websocket.h"
#include "support/tree_queries.h"

#ifndef UISCOPE_CDP_FIXTURES
#error "UISCOPE_CDP_FIXTURES must name tests/fixtures/cdp"
#endif

namespace uiscope {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

// A server frame (unmasked), with the given first byte and payload.
std::string ServerFrame(uint8_t first, std::string_view payload) {
  std::string out(1, static_cast<char>(first));
  const uint64_t n = payload.size();
  if (n < 126) {
    out.push_back(static_cast<char>(n));
  } else if (n <= 0xFFFF) {
    out.push_back(static_cast<char>(126));
    out.push_back(static_cast<char>(n >> 8));
    out.push_back(static_cast<char>(n & 0xFF));
  } else {
    out.push_back(static_cast<char>(127));
    for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>((n >> (i * 8)) & 0xFF));
  }
  out += payload;
  return out;
}

// Unmasks a client frame: opcode and payload, or nullopt when malformed.
std::optional<std::pair<int, std::string>> DecodeClientFrame(std::string_view f, size_t* used) {
  if (f.size() < 2 || (static_cast<uint8_t>(f[1]) & 0x80) == 0) return std::nullopt;
  uint64_t len = static_cast<uint8_t>(f[1]) & 0x7F;
  size_t at = 2;
  if (len == 126) {
    if (f.size() < 4) return std::nullopt;
    len = (uint64_t{static_cast<uint8_t>(f[2])} << 8) | static_cast<uint8_t>(f[3]);
    at = 4;
  } else if (len == 127) {
    if (f.size() < 10) return std::nullopt;
    len = 0;
    for (int i = 0; i < 8; ++i) len = (len << 8) | static_cast<uint8_t>(f[2 + i]);
    at = 10;
  }
  if (f.size() < at + 4 + len) return std::nullopt;
  std::string payload(f.substr(at + 4, len));
  for (size_t i = 0; i < payload.size(); ++i) payload[i] ^= f[at + (i % 4)];
  if (used) *used = at + 4 + len;
  return std::make_pair(static_cast<uint8_t>(f[0]) & 0x0F, payload);
}

std::vector<WsMessage> ParseAll(WebSocketFrameParser& parser, std::string* error = nullptr) {
  std::vector<WsMessage> out;
  while (true) {
    auto step = parser.Next();
    if (!step.ok()) {
      if (error) *error = step.error().message;
      return out;
    }
    if (!step->has) return out;
    out.push_back(step->message);
  }
}

TEST(WebSocketTest, AcceptKeyIsTheRfcExample) {
  // RFC 6455 §1.3.
  EXPECT_EQ(WebSocketAcceptKey("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST(WebSocketTest, ClientFramesAreMaskedInEveryLengthForm) {
  for (size_t n : {size_t{0}, size_t{5}, size_t{125}, size_t{126}, size_t{65535}, size_t{70000}}) {
    std::string payload(n, 'x');
    for (size_t i = 0; i < n; ++i) payload[i] = static_cast<char>('a' + i % 26);
    const std::string frame = EncodeClientFrame(WsOpcode::kText, payload, 0xA1B2C3D4);
    EXPECT_EQ(static_cast<uint8_t>(frame[0]), 0x81);
    ASSERT_TRUE(static_cast<uint8_t>(frame[1]) & 0x80) << "client frames must be masked";
    size_t used = 0;
    auto decoded = DecodeClientFrame(frame, &used);
    ASSERT_TRUE(decoded.has_value()) << n;
    EXPECT_EQ(used, frame.size());
    EXPECT_EQ(decoded->second, payload) << n;
    if (n > 4) {
      EXPECT_EQ(frame.find(payload.substr(0, 4)), std::string::npos) << "not masked";
    }
  }
}

TEST(WebSocketTest, ParserReassemblesFragmentsAroundControlFrames) {
  WebSocketFrameParser parser;
  std::string bytes = ServerFrame(0x01, "{\"id\":") +              // text, not final
                      ServerFrame(0x89, "ping!") +                 // ping in between
                      ServerFrame(0x00, "1,") +                    // continuation
                      ServerFrame(0x80, "\"r\":{}}") +             // final continuation
                      ServerFrame(0x81, std::string(70000, 'z'));  // 64-bit length
  // Byte by byte: a frame may arrive in any number of pieces.
  std::vector<WsMessage> got;
  for (char c : bytes) {
    parser.Feed(std::string_view(&c, 1));
    for (WsMessage& m : ParseAll(parser)) got.push_back(std::move(m));
  }
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].opcode, WsOpcode::kPing);
  EXPECT_EQ(got[0].payload, "ping!");
  EXPECT_EQ(got[1].opcode, WsOpcode::kText);
  EXPECT_EQ(got[1].payload, "{\"id\":1,\"r\":{}}");
  EXPECT_EQ(got[2].payload.size(), 70000u);
}

TEST(WebSocketTest, MalformedFramesAreErrorsThatStay) {
  struct Case {
    std::string bytes;
    std::string says;
  };
  std::string masked = ServerFrame(0x81, "hi");
  masked[1] = static_cast<char>(masked[1] | 0x80);
  const Case cases[] = {
      {masked, "masked"},
      {ServerFrame(0xC1, "x"), "reserved"},
      {ServerFrame(0x83, "x"), "opcode"},
      {ServerFrame(0x89, std::string(126, 'p')), "control"},
      {ServerFrame(0x09, "p"), "control"},
      {ServerFrame(0x80, "x"), "continuation"},
      {ServerFrame(0x01, "a") + ServerFrame(0x81, "b"), "before the last"},
      {ServerFrame(0x81, std::string(2000, 'x')), "larger than"},
      {std::string("\x81\x7F\x80\x00\x00\x00\x00\x00\x00\x01", 10), "top bit"},
  };
  for (const Case& c : cases) {
    WebSocketFrameParser parser(/*max_message=*/1024);
    parser.Feed(c.bytes);
    std::string error;
    auto got = ParseAll(parser, &error);
    EXPECT_TRUE(got.empty()) << c.says;
    EXPECT_NE(error.find(c.says), std::string::npos) << error;
    // Failed for good: valid bytes after it do not revive it.
    parser.Feed(ServerFrame(0x81, "ok"));
    EXPECT_FALSE(parser.Next().ok()) << c.says;
  }
}

TEST(WebSocketTest, RandomBytesNeverCrashTheParser) {
  std::mt19937 rng(19);
  for (int round = 0; round < 3000; ++round) {
    WebSocketFrameParser parser(/*max_message=*/4096);
    std::string bytes(rng() % 300, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    // Some rounds start with a valid header so the fuzz gets past byte 0.
    if (round % 2 == 0 && bytes.size() > 2) bytes[0] = static_cast<char>(0x81);
    size_t at = 0;
    while (at < bytes.size()) {
      const size_t n = std::min<size_t>(1 + rng() % 17, bytes.size() - at);
      parser.Feed(std::string_view(bytes).substr(at, n));
      at += n;
      for (int i = 0; i < 50; ++i) {
        auto step = parser.Next();
        if (!step.ok() || !step->has) break;
        EXPECT_LE(step->message.payload.size(), 4096u);
      }
    }
  }
}

TEST(WebSocketTest, UrlsAreLoopbackWsOnly) {
  auto ok = ParseWebSocketUrl("ws://127.0.0.1:9222/devtools/page/AB12");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->host, "127.0.0.1");
  EXPECT_EQ(ok->port, 9222);
  EXPECT_EQ(ok->path, "/devtools/page/AB12");
  auto v6 = ParseWebSocketUrl("ws://[::1]:9222");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->path, "/");
  for (const char* bad : {"ws://example.com:9222/x", "ws://10.0.0.2:9222/x", "wss://127.0.0.1:1/x",
                          "http://127.0.0.1:9222/", "ws://127.0.0.1/x", "ws://127.0.0.1:0/x",
                          "ws://127.0.0.1:99999/x", "ws://u:p@127.0.0.1:9/x", "ws://[::1/x", ""}) {
    auto r = ParseWebSocketUrl(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument) << bad;
    }
  }
  auto far = ParseWebSocketUrl("ws://192.168.1.5:9222/devtools/page/1");
  ASSERT_FALSE(far.ok());
  EXPECT_NE(far.error().message.find("not a loopback"), std::string::npos);
  auto get = HttpGetLoopback("192.168.1.5", 9222, "/json/list", milliseconds(200));
  ASSERT_FALSE(get.ok());
  EXPECT_NE(get.error().message.find("not a loopback"), std::string::npos);
}

// ---- A WebSocket server in the test, on 127.0.0.1 ---------------------------

class LoopbackServer {
 public:
  // `serve` runs on the server thread with the accepted socket, after the
  // handshake when `upgrade`.
  LoopbackServer(bool upgrade, std::function<void(int fd)> serve) {
    listen_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(listen_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    listen(listen_, 1);
    socklen_t len = sizeof(addr);
    getsockname(listen_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this, upgrade, serve = std::move(serve)] {
      int fd = accept(listen_, nullptr, nullptr);
      if (fd < 0) return;
      std::string head;
      char c;
      while (head.find("\r\n\r\n") == std::string::npos && read(fd, &c, 1) == 1) head += c;
      request_ = head;
      if (upgrade) {
        const size_t k = head.find("Sec-WebSocket-Key: ");
        std::string key = head.substr(k + 19, head.find("\r\n", k) - k - 19);
        std::string answer =
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Accept: " +
            WebSocketAcceptKey(key) + "\r\n\r\n";
        (void)!write(fd, answer.data(), answer.size());
      }
      serve(fd);
      close(fd);
    });
  }
  ~LoopbackServer() {
    shutdown(listen_, SHUT_RDWR);
    close(listen_);
    thread_.join();
  }
  int port() const { return port_; }
  std::string url() const { return "ws://127.0.0.1:" + std::to_string(port_) + "/devtools/page/T"; }
  const std::string& request() const { return request_; }

 private:
  int listen_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::string request_;
};

// Reads one client frame from `fd` (test side: blocking); `buf` keeps the
// bytes read past it (two frames may come in one read).
std::optional<std::pair<int, std::string>> ReadClientFrame(int fd, std::string& buf) {
  char chunk[4096];
  while (true) {
    size_t used = 0;
    if (auto f = DecodeClientFrame(buf, &used)) {
      buf.erase(0, used);
      return f;
    }
    ssize_t n = read(fd, chunk, sizeof(chunk));
    if (n <= 0) return std::nullopt;
    buf.append(chunk, static_cast<size_t>(n));
  }
}

void Write(int fd, const std::string& bytes) { (void)!write(fd, bytes.data(), bytes.size()); }

TEST(CdpConnectionTest, MatchesAnswersToCallsAcrossEventsPingsAndFragments) {
  std::string pong;
  LoopbackServer server(true, [&](int fd) {
    // Two commands arrive; they are answered in reverse order, with an
    // event, a ping and a fragmented answer in between.
    std::string buf;
    auto first = ReadClientFrame(fd, buf);
    auto second = ReadClientFrame(fd, buf);
    if (!first || !second) return;
    const json a = json::parse(first->second), b = json::parse(second->second);
    Write(fd, ServerFrame(0x81, R"({"method":"Page.loadEventFired","params":{}})"));
    Write(fd, ServerFrame(0x89, "are you there"));
    const std::string answer_b =
        json{{"id", b["id"]}, {"error", {{"code", -32601}, {"message", "'Nope.x' wasn't found"}}}}
            .dump();
    Write(fd, ServerFrame(0x81, answer_b));
    const std::string answer_a =
        json{{"id", a["id"]}, {"result", {{"big", std::string(100000, 'q')}}}}.dump();
    Write(fd, ServerFrame(0x01, answer_a.substr(0, 10)) +
                  ServerFrame(0x00, answer_a.substr(10, 50000)) +
                  ServerFrame(0x80, answer_a.substr(50010)));
    auto got = ReadClientFrame(fd, buf);  // the pong
    if (got && got->first == 0xA) pong = got->second;
    // Then silence until the client closes: the third call must time out.
    while (ReadClientFrame(fd, buf)) {
    }
  });
  auto conn = CdpConnection::Open(server.url(), milliseconds(2000));
  ASSERT_TRUE(conn.ok()) << conn.error().message;
  EXPECT_NE(server.request().find("Sec-WebSocket-Version: 13"), std::string::npos);
  EXPECT_EQ(server.request().find("Origin:"), std::string::npos);
  auto a = (*conn)->Send("Accessibility.getFullAXTree");
  auto b = (*conn)->Send("Nope.x");
  ASSERT_TRUE(a.ok() && b.ok());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  auto answer_a = (*conn)->Await(*a, deadline);
  ASSERT_TRUE(answer_a.ok()) << answer_a.error().message;
  EXPECT_EQ((*answer_a)["big"].get<std::string>().size(), 100000u);
  auto answer_b = (*conn)->Await(*b, deadline);
  ASSERT_FALSE(answer_b.ok());
  EXPECT_NE(answer_b.error().message.find("Nope.x"), std::string::npos);
  EXPECT_NE(answer_b.error().message.find("wasn't found"), std::string::npos);
  EXPECT_NE(answer_b.error().message.find(server.url()), std::string::npos) << "names the endpoint";
  auto events = (*conn)->TakeEvents();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["method"], "Page.loadEventFired");
  auto late = (*conn)->Call("Runtime.evaluate", json::object(), milliseconds(300));
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.error().code, ErrorCode::kTimeout);
  EXPECT_NE(late.error().message.find("Runtime.evaluate"), std::string::npos);
  conn->reset();  // closes: the server's last read returns
  EXPECT_EQ(pong, "are you there");
}

TEST(CdpConnectionTest, RefusesAPeerThatDoesNotSpeakWebSocket) {
  {
    LoopbackServer server(
        false, [](int fd) { Write(fd, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"); });
    auto conn = CdpConnection::Open(server.url(), milliseconds(2000));
    ASSERT_FALSE(conn.ok());
    EXPECT_NE(conn.error().message.find("404"), std::string::npos) << conn.error().message;
  }
  {
    LoopbackServer server(false, [](int fd) {
      Write(fd,
            "HTTP/1.1 101 Switching Protocols\r\nSec-WebSocket-Accept: wrongwrongwrong=\r\n\r\n");
    });
    auto conn = CdpConnection::Open(server.url(), milliseconds(2000));
    ASSERT_FALSE(conn.ok());
    EXPECT_NE(conn.error().message.find("Sec-WebSocket-Accept"), std::string::npos);
  }
  {
    // Garbage after a good handshake: an error, and the socket closed.
    LoopbackServer server(true, [](int fd) {
      std::string buf;
      ReadClientFrame(fd, buf);
      Write(fd, std::string("\x8F\x05hello", 7));
    });
    auto conn = CdpConnection::Open(server.url(), milliseconds(2000));
    ASSERT_TRUE(conn.ok());
    auto r = (*conn)->Call("X.y", json::object(), milliseconds(2000));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("malformed"), std::string::npos) << r.error().message;
  }
  // Nothing listening: Unavailable, naming the endpoint.
  int port = 0;
  {
    LoopbackServer server(false, [](int) {});
    port = server.port();
    auto unblock = CdpConnection::Open(server.url(), milliseconds(500));  // lets it finish
  }
  auto none =
      CdpConnection::Open("ws://127.0.0.1:" + std::to_string(port) + "/x", milliseconds(500));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(none.error().message.find(std::to_string(port)), std::string::npos);
}

TEST(CdpDiscoveryTest, ListsTargetsOverHttp) {
  const std::string body = R"([{"id":"P1","type":"page","title":"Shop","url":"https://shop.test/",)"
                           R"("webSocketDebuggerUrl":"ws://127.0.0.1:9/devtools/page/P1"},)"
                           R"({"id":"W","type":"service_worker","url":"x"},{"type":"page"},7,"s"])";
  LoopbackServer server(false, [&](int fd) {
    Write(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                  std::to_string(body.size()) + "\r\n\r\n" + body);
  });
  auto targets = ListCdpTargets(server.port(), milliseconds(2000));
  ASSERT_TRUE(targets.ok()) << targets.error().message;
  ASSERT_EQ(targets->size(), 2u);
  EXPECT_EQ((*targets)[0].title, "Shop");
  EXPECT_EQ((*targets)[0].websocket_url, "ws://127.0.0.1:9/devtools/page/P1");
  EXPECT_EQ((*targets)[1].type, "service_worker");
  EXPECT_NE(server.request().find("GET /json/list HTTP/1.1"), std::string::npos);
  EXPECT_FALSE(ParseCdpTargets("{\"not\":\"a list\"}").ok());
  EXPECT_FALSE(ParseCdpTargets("garbage").ok());
}

TEST(CdpDiscoveryTest, PortComesFromTheCommandLine) {
  auto no_file = [](const std::string&) { return std::optional<std::string>(); };
  auto port =
      DevToolsPortFromCommandLine({"chromium", "--remote-debugging-port=9333", "--app=x"}, no_file);
  ASSERT_TRUE(port.ok());
  EXPECT_EQ(*port, 9333);
  std::string asked;
  auto chosen = DevToolsPortFromCommandLine(
      {"chromium", "--user-data-dir=/tmp/p", "--remote-debugging-port=0"},
      [&](const std::string& path) {
        asked = path;
        return std::optional<std::string>("41234\n/devtools/browser/abc\n");
      });
  ASSERT_TRUE(chosen.ok()) << chosen.error().message;
  EXPECT_EQ(*chosen, 41234);
  EXPECT_EQ(asked, "/tmp/p/DevToolsActivePort");
  auto none = DevToolsPortFromCommandLine({"chromium", "--app=x"}, no_file);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, ErrorCode::kNotFound);
  EXPECT_FALSE(DevToolsPortFromCommandLine({"c", "--remote-debugging-port=0"}, no_file).ok());
  EXPECT_FALSE(DevToolsPortFromCommandLine({"c", "--remote-debugging-port=abc"}, no_file).ok());
  EXPECT_FALSE(DevToolsPortFromCommandLine(
                   {"c", "--user-data-dir=/p", "--remote-debugging-port=0"},
                   [](const std::string&) { return std::optional<std::string>("x"); })
                   .ok());
  // This test process has no such switch.
  EXPECT_EQ(DevToolsPortOfProcess(getpid()).error().code, ErrorCode::kNotFound);
}

TEST(CdpDiscoveryTest, LaunchAddsAPortToChromiumAndElectronOnly) {
  EXPECT_TRUE(WantsDevToolsPort({"/usr/bin/chromium", "--app=x"}));
  EXPECT_TRUE(WantsDevToolsPort({"google-chrome"}));
  EXPECT_TRUE(WantsDevToolsPort({"/opt/x/electron", "app"}));
  EXPECT_TRUE(WantsDevToolsPort({"/opt/app/app", "/opt/app/resources/app.asar"}));
  EXPECT_FALSE(WantsDevToolsPort({"gedit"}));
  EXPECT_FALSE(WantsDevToolsPort({"chromium", "--remote-debugging-port=9222"}));
  EXPECT_FALSE(WantsDevToolsPort({"chromium", "--remote-debugging-pipe"}));
  EXPECT_FALSE(WantsDevToolsPort({}));
  EXPECT_EQ(WithDevToolsPort({"chromium", "--app=x"}, 4242),
            (std::vector<std::string>{"chromium", "--remote-debugging-port=4242", "--app=x"}));
  auto port = PickFreeLoopbackPort();
  ASSERT_TRUE(port.ok());
  EXPECT_GT(*port, 0);
}

// ---- The page tree from a recorded page --------------------------------------

CdpPageData LoadRecordedPage() {
  std::ifstream in(UISCOPE_CDP_FIXTURES "/page_state.json");
  std::stringstream text;
  text << in.rdbuf();
  json recorded = json::parse(text.str());
  CdpPageData data;
  data.ax = recorded["ax"];
  data.snapshot = recorded["snapshot"];
  data.metrics = recorded["metrics"];
  for (const json& f : recorded["frames"]) data.frames.emplace_back(f[0], f[1]);
  return data;
}

const Node* FindNode(const std::vector<Node>& nodes, Role role, std::string_view name) {
  const Node* found = nullptr;
  ForEachNode(nodes, [&](const Node& n, int) {
    if (!found && n.role == role && n.name == name) found = &n;
  });
  return found;
}

int CountRole(const std::vector<Node>& nodes, Role role) {
  int count = 0;
  ForEachNode(nodes, [&](const Node& n, int) { count += n.role == role; });
  return count;
}

TEST(CdpPageTreeTest, RecordedPageGivesExactValuesLinksFramesAndTable) {
  PageTreeOptions options;
  options.origin = Point{100, 200};
  options.include_hidden = true;
  auto tree = BuildPageTree(LoadRecordedPage(), options);
  ASSERT_TRUE(tree.ok()) << tree.error().message;
  EXPECT_EQ(tree->title, "uiscope page state");
  EXPECT_TRUE(tree->url.ends_with("/page_state.html")) << tree->url;
  EXPECT_EQ(tree->off_screen, 0);
  const Node* country = FindNode(tree->nodes, Role::kComboBox, "Country");
  ASSERT_NE(country, nullptr);
  EXPECT_EQ(country->value, "France");  // AT-SPI says "￼"
  ASSERT_EQ(country->children.size(), 3u);
  EXPECT_TRUE(country->children[1].Has(State::kSelected));
  EXPECT_EQ(country->children[1].name, "France");
  const Node* name = FindNode(tree->nodes, Role::kTextField, "Name");
  ASSERT_NE(name, nullptr);
  EXPECT_EQ(name->value, "Ada Lovelace");
  EXPECT_TRUE(name->children.empty()) << "the field's text runs repeat its value";
  EXPECT_TRUE(name->Has(State::kEditable));
  // Bounds: the pixels enclosing the recorded box (46.3, 86.8, 185, 21),
  // moved to the viewport's origin.
  ASSERT_TRUE(name->bounds.has_value());
  EXPECT_EQ(*name->bounds, (Rect{146, 286, 186, 22}));
  EXPECT_EQ(FindNode(tree->nodes, Role::kTextField, "City")->value, "Paris");
  const Node* notes = FindNode(tree->nodes, Role::kTextArea, "Notes");
  ASSERT_NE(notes, nullptr);
  EXPECT_EQ(notes->value, "Leave at the door");
  const Node* gift = FindNode(tree->nodes, Role::kCheckBox, "Gift wrap");
  ASSERT_NE(gift, nullptr);
  EXPECT_TRUE(gift->Has(State::kChecked));
  const Node* link = FindNode(tree->nodes, Role::kLink, "terms of sale");
  ASSERT_NE(link, nullptr);
  EXPECT_EQ(link->value, "https://example.com/terms");
  EXPECT_NE(FindNode(tree->nodes, Role::kButton, "Send order"), nullptr);
  EXPECT_EQ(FindNode(tree->nodes, Role::kText, "Send order"), nullptr) << "repeats its button";
  EXPECT_EQ(FindNode(tree->nodes, Role::kLabel, "Name"), nullptr) << "repeats its field";
  EXPECT_NE(FindNode(tree->nodes, Role::kText, "Read the"), nullptr);
  // The iframe's document, inside the iframe's box.
  const Node* frame = FindNode(tree->nodes, Role::kDocument, "Help frame");
  ASSERT_NE(frame, nullptr);
  const Node* inner = FindNode(frame->children, Role::kButton, "Frame button");
  ASSERT_NE(inner, nullptr);
  const Node* note = FindNode(frame->children, Role::kTextField, "Frame note");
  ASSERT_NE(note, nullptr);
  EXPECT_EQ(note->value, "inside");
  ASSERT_TRUE(frame->bounds && inner->bounds);
  EXPECT_EQ(inner->bounds->x, frame->bounds->x + 1 + 8);  // border 1, body margin 8
  EXPECT_EQ(inner->bounds->y, frame->bounds->y + 1 + 8);
  // The table: a header row and 30 rows of 3 cells, each named by its text.
  const Node* table = FindNode(tree->nodes, Role::kTable, "");
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(CountRole(table->children, Role::kTableRow), 31);
  EXPECT_EQ(CountRole(table->children, Role::kTableCell), 90);
  EXPECT_EQ(CountRole(table->children, Role::kColumnHeader), 3);
  EXPECT_NE(FindNode(table->children, Role::kTableCell, "Item 30"), nullptr);
  EXPECT_NE(FindNode(table->children, Role::kTableCell, "45.00 EUR"), nullptr);
  EXPECT_EQ(CountRole(tree->nodes, Role::kUnknown), 0);
}

TEST(CdpPageTreeTest, ContentOutsideTheViewportIsCutAndCounted) {
  PageTreeOptions options;  // include_hidden false: the viewport is 885x557
  auto tree = BuildPageTree(LoadRecordedPage(), options);
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(tree->viewport, (Rect{0, 0, 885, 557}));
  EXPECT_GT(tree->off_screen, 20);
  EXPECT_NE(FindNode(tree->nodes, Role::kTableCell, "Item 1"), nullptr);
  EXPECT_EQ(FindNode(tree->nodes, Role::kTableCell, "Item 30"), nullptr);
  ForEachNode(tree->nodes, [&](const Node& n, int) {
    if (n.bounds && n.bounds->w > 0 && n.bounds->h > 0) {
      EXPECT_FALSE(Intersect(*n.bounds, tree->viewport).Empty()) << n.name;
    }
  });
}

TEST(CdpPageTreeTest, PasswordValuesAreNeverRead) {
  CdpPageData data = LoadRecordedPage();
  // Mark the "Name" input (backend node 7) as type=password in the snapshot.
  json& strings = data.snapshot["strings"];
  strings.push_back("type");
  strings.push_back("password");
  const int type = static_cast<int>(strings.size()) - 2;
  json& doc = data.snapshot["documents"][0]["nodes"];
  for (size_t i = 0; i < doc["backendNodeId"].size(); ++i) {
    if (doc["backendNodeId"][i] == 7) doc["attributes"][i] = json::array({type, type + 1});
  }
  PageTreeOptions options;
  auto tree = BuildPageTree(data, options);
  ASSERT_TRUE(tree.ok());
  const Node* name = FindNode(tree->nodes, Role::kTextField, "Name");
  ASSERT_NE(name, nullptr);
  EXPECT_TRUE(name->Has(State::kPassword));
  EXPECT_TRUE(name->value.empty()) << name->value;
}

TEST(CdpPageTreeTest, HostileTreesAreSkippedNotTrusted) {
  PageTreeOptions options;
  // No root.
  EXPECT_FALSE(BuildPageTree(CdpPageData{}, options).ok());
  CdpPageData cyclic;
  cyclic.ax = json::parse(R"({"nodes":[
    {"nodeId":"1","role":{"value":"RootWebArea"},"childIds":["2","404",7,null]},
    {"nodeId":"2","parentId":"1","role":{"value":"button"},"name":{"value":"A"},"childIds":["3"]},
    {"nodeId":"3","parentId":"2","role":{"value":"group"},"name":{"value":"G"},"childIds":["2","3","1"]},
    {"nodeId":"4","parentId":"1","role":{"value":7},"name":"x","properties":"no"},
    "garbage", 12]})");
  cyclic.snapshot = json::parse(R"({"documents":[{"nodes":{"backendNodeId":"x"},
    "layout":{"nodeIndex":[0,99,-1],"bounds":[[1,2],"x",[1,2,3,4]]}}],"strings":5})");
  cyclic.metrics = json::parse(R"({"cssLayoutViewport":{"clientWidth":0}})");
  auto tree = BuildPageTree(cyclic, options);
  ASSERT_TRUE(tree.ok()) << tree.error().message;
  EXPECT_EQ(CountNodes(tree->nodes), 2u);  // the button and its group, once
  // A cap on the node count.
  options.max_nodes = 50;
  options.include_hidden = true;
  auto capped = BuildPageTree(LoadRecordedPage(), options);
  ASSERT_TRUE(capped.ok());
  EXPECT_TRUE(capped->capped);
  EXPECT_LE(CountNodes(capped->nodes), 50u);
}

// The answers Chromium gives a plan's requests, taken from the recorded
// whole tree: getPartialAXTree (fetchRelatives false) answers the node
// alone, queryAXTree the node and every node under it.
json PartialAnswer(const json& ax, int64_t backend) {
  for (const json& n : ax["nodes"]) {
    if (n.value("backendDOMNodeId", int64_t{-1}) == backend) return json{{"nodes", {n}}};
  }
  return json{{"nodes", {{{"nodeId", "0"}, {"ignored", true}, {"backendDOMNodeId", backend}}}}};
}
json QueryAnswer(const json& ax, int64_t backend) {
  std::map<std::string, const json*> by_id;
  const json* top = nullptr;
  for (const json& n : ax["nodes"]) {
    by_id[n["nodeId"].get<std::string>()] = &n;
    if (n.value("backendDOMNodeId", int64_t{-1}) == backend) top = &n;
  }
  json out = {{"nodes", json::array()}};
  std::vector<const json*> stack;
  if (top != nullptr) stack.push_back(top);
  while (!stack.empty()) {
    const json* n = stack.back();
    stack.pop_back();
    out["nodes"].push_back(*n);
    for (const json& c : n->value("childIds", json::array())) {
      auto it = by_id.find(c.get<std::string>());
      if (it != by_id.end()) stack.push_back(it->second);
    }
  }
  return out;
}

// The recorded page read as ReadPageData reads it in view (with its
// rounds for nodes the DOM snapshot does not show).
CdpPageData ReadRecordedInView(const CdpPageData& whole, const InViewPlan& plan,
                               int* rounds = nullptr) {
  std::vector<json> ancestors, subtrees, relatives;
  for (int64_t b : plan.ancestors) ancestors.push_back(PartialAnswer(whole.ax, b));
  for (int64_t b : plan.subtrees) subtrees.push_back(QueryAnswer(whole.ax, b));
  auto joined = JoinInViewTree(plan, ancestors, subtrees);
  for (int round = 0; joined.ok() && !joined->wanting.empty() && round < 3; ++round) {
    for (int64_t b : joined->wanting) relatives.push_back(PartialAnswer(whole.ax, b));
    joined = JoinInViewTree(plan, ancestors, subtrees, relatives);
    if (rounds != nullptr) ++*rounds;
  }
  EXPECT_TRUE(joined.ok()) << joined.error().message;
  CdpPageData in_view = whole;
  if (joined.ok()) {
    EXPECT_TRUE(joined->wanting.empty());
    in_view.ax = joined->tree;
  }
  in_view.extent = PageExtent::kInView;
  in_view.left_out = plan.left_out;
  in_view.left_out_boxed = plan.left_out_boxed;
  return in_view;
}

// The recorded page in an 885x400 viewport: the form and the first rows
// in view, most of the table below it.
CdpPageData LoadRecordedPageInALowWindow() {
  CdpPageData data = LoadRecordedPage();
  data.metrics["cssLayoutViewport"]["clientHeight"] = 400;
  return data;
}

TEST(CdpPageTreeTest, AReadOfWhatIsInViewBuildsTheSameTreeAsTheWholePage) {
  const CdpPageData whole = LoadRecordedPageInALowWindow();
  auto plan = PlanInViewRead(whole.snapshot, whole.metrics, /*request_cost=*/4);
  ASSERT_TRUE(plan.has_value());
  ASSERT_FALSE(plan->ancestors.empty());
  EXPECT_FALSE(plan->left_out.empty());
  EXPECT_GT(plan->left_out_boxed, 20);
  EXPECT_FALSE(plan->subtrees.empty());
  const int64_t document = whole.snapshot["documents"][0]["nodes"]["backendNodeId"][0];
  EXPECT_EQ(plan->ancestors[0], document);
  CdpPageData in_view = ReadRecordedInView(whole, *plan);
  EXPECT_LT(in_view.ax["nodes"].size(), whole.ax["nodes"].size() * 3 / 4);

  PageTreeOptions options;
  options.origin = Point{100, 200};
  auto from_whole = BuildPageTree(whole, options);
  auto from_view = BuildPageTree(in_view, options);
  ASSERT_TRUE(from_whole.ok() && from_view.ok());
  EXPECT_EQ(test::TreeLines(from_view->nodes), test::TreeLines(from_whole->nodes));
  // Counted from the DOM's boxes, not the nodes a whole read drops: within
  // a few of each other.
  EXPECT_NEAR(from_view->off_screen, from_whole->off_screen, from_whole->off_screen / 20 + 1);
  EXPECT_NE(FindNode(from_view->nodes, Role::kTableCell, "Item 1"), nullptr);
  EXPECT_EQ(FindNode(from_view->nodes, Role::kTableCell, "Item 30"), nullptr);
  EXPECT_EQ(FindNode(from_view->nodes, Role::kComboBox, "Country")->value, "France");

  // include_hidden asks for what was not read.
  options.include_hidden = true;
  auto hidden = BuildPageTree(in_view, options);
  ASSERT_FALSE(hidden.ok());
  EXPECT_EQ(hidden.error().code, ErrorCode::kInvalidArgument);
}

TEST(CdpPageTreeTest, AnInViewTreeThatDoesNotHoldTogetherIsStale) {
  const CdpPageData whole = LoadRecordedPageInALowWindow();
  auto plan = PlanInViewRead(whole.snapshot, whole.metrics, 4);
  ASSERT_TRUE(plan.has_value());
  std::vector<json> ancestors, subtrees;
  for (int64_t b : plan->ancestors) ancestors.push_back(PartialAnswer(whole.ax, b));
  for (int64_t b : plan->subtrees) subtrees.push_back(QueryAnswer(whole.ax, b));
  auto complete = JoinInViewTree(*plan, ancestors, subtrees);
  ASSERT_TRUE(complete.ok());
  EXPECT_TRUE(complete->wanting.empty());
  // A subtree not answered: its node is wanted by ID.
  std::vector<json> holed = subtrees;
  holed.back() = json{{"nodes", json::array()}};
  auto with_hole = JoinInViewTree(*plan, ancestors, holed);
  ASSERT_TRUE(with_hole.ok());
  ASSERT_EQ(with_hole->wanting.size(), 1u);
  EXPECT_TRUE(with_hole->tree.is_null());
  // A missing node with no DOM node ID to ask by: stale.
  std::vector<json> orphaned = ancestors;
  for (json& n : orphaned.back()["nodes"]) n["childIds"].push_back("-17");
  auto no_dom = JoinInViewTree(*plan, orphaned, subtrees);
  ASSERT_FALSE(no_dom.ok());
  EXPECT_EQ(no_dom.error().code, ErrorCode::kStale);
  // The document without an accessibility node.
  std::vector<json> rootless = ancestors;
  rootless[0] = json{{"nodes", {{{"nodeId", "0"}}}}};
  EXPECT_EQ(JoinInViewTree(*plan, rootless, subtrees).error().code, ErrorCode::kStale);
  // Answers that are not the plan's.
  EXPECT_EQ(JoinInViewTree(*plan, {}, subtrees).error().code, ErrorCode::kInvalidArgument);
  // Garbage answers are no tree, never a crash.
  std::vector<json> garbage(subtrees.size(), json("x"));
  auto from_garbage = JoinInViewTree(*plan, ancestors, garbage, {json(7), json::array()});
  EXPECT_TRUE(!from_garbage.ok() || !from_garbage->wanting.empty());
}

// Chromium's tree has nodes the DOM snapshot does not show: a <details>
// element's children are the slots of its shadow root, whose children are
// the DOM's. Such a node between a read ancestor and its DOM children is
// asked for by ID, and the tree is the whole read's.
TEST(CdpPageTreeTest, NodesTheDomDoesNotShowAreAskedForWithTheirParents) {
  CdpPageData whole = LoadRecordedPageInALowWindow();
  // A slot (no DOM node in the snapshot) between the table and its rows'
  // row group.
  json& nodes = whole.ax["nodes"];
  json* table = nullptr;
  for (json& n : nodes) {
    if (n["role"]["value"] == "table") table = &n;
  }
  ASSERT_NE(table, nullptr);
  const std::string table_id = (*table)["nodeId"];
  json slot = {{"nodeId", "990001"},
               {"backendDOMNodeId", 990001},
               {"parentId", table_id},
               {"ignored", true},
               {"role", {{"type", "role"}, {"value", "none"}}},
               {"childIds", (*table)["childIds"]}};
  for (json& n : nodes) {
    for (const json& c : (*table)["childIds"]) {
      if (n["nodeId"] == c) n["parentId"] = "990001";
    }
  }
  (*table)["childIds"] = json::array({"990001"});
  nodes.push_back(slot);
  auto plan = PlanInViewRead(whole.snapshot, whole.metrics, 4);
  ASSERT_TRUE(plan.has_value());
  int rounds = 0;
  CdpPageData in_view = ReadRecordedInView(whole, *plan, &rounds);
  EXPECT_EQ(rounds, 1);
  PageTreeOptions options;
  auto from_whole = BuildPageTree(whole, options);
  auto from_view = BuildPageTree(in_view, options);
  ASSERT_TRUE(from_whole.ok() && from_view.ok());
  EXPECT_EQ(test::TreeLines(from_view->nodes), test::TreeLines(from_whole->nodes));
  EXPECT_NE(FindNode(from_view->nodes, Role::kTableCell, "Item 1"), nullptr);
}

// A random page: a DOM of 60-400 nodes laid out top to bottom in document
// order (a few placed anywhere, a few 0x0 at 0,0, scripts and some others
// without a box),
// scrolled somewhere, and an accessibility tree over it as Chromium builds
// one: some DOM nodes without a node of their own (their children hang on
// the nearest ancestor that has one), text runs with inline text boxes
// that have no DOM node, and now and then a slot the snapshot does not
// show between a node and its children.
CdpPageData RandomPage(std::mt19937& rng) {
  const int n = 60 + static_cast<int>(rng() % 341);
  json strings = json::array({"#document", "DIV", "SPAN", "#text", "SCRIPT", "BUTTON"});
  json parents = json::array(), types = json::array(), names = json::array(),
       backends = json::array(), node_index = json::array(), bounds = json::array();
  std::vector<int> parent(n, -1), type(n, 1), name(n, 1);
  std::vector<char> has_box(n, 0);
  for (int i = 0; i < n; ++i) {
    if (i > 0) {
      // Text and scripts are leaves.
      parent[i] = std::max(0, i - 1 - static_cast<int>(rng() % std::min(i, 6)));
      while (parent[i] > 0 && (type[parent[i]] == 3 || name[parent[i]] == 4)) --parent[i];
    }
    const unsigned kind = rng() % 10;
    if (i == 0) {
      type[i] = 9, name[i] = 0;
    } else if (kind < 3) {
      type[i] = 3, name[i] = 3;
    } else if (kind == 3) {
      name[i] = 4;  // a script
    } else {
      name[i] = 1 + static_cast<int>(rng() % 2) + (kind == 9 ? 3 : 0);
      if (name[i] > 5) name[i] = 5;
    }
    parents.push_back(parent[i]);
    types.push_back(type[i]);
    names.push_back(name[i]);
    backends.push_back(i + 1);
    if (name[i] == 4 || rng() % 8 == 0) continue;  // no box
    has_box[i] = 1;
    double x = rng() % 600, y = i * 17.0 + rng() % 9, w = 1 + rng() % 300, h = 1 + rng() % 40;
    if (rng() % 40 == 0) y = static_cast<double>(rng() % (n * 17 + 1));  // placed anywhere
    if (rng() % 20 == 0) x = y = w = h = 0;                              // 0x0 at 0,0
    node_index.push_back(i);
    bounds.push_back(json::array({x, y, w, h}));
  }
  // The text runs' parents hold them: a text node is a leaf.
  CdpPageData page;
  const double view_h = 100 + rng() % 400;
  page.snapshot = {
      {"strings", strings},
      {"documents", json::array({{{"nodes",
                                   {{"parentIndex", parents},
                                    {"nodeType", types},
                                    {"nodeName", names},
                                    {"backendNodeId", backends}}},
                                  {"layout", {{"nodeIndex", node_index}, {"bounds", bounds}}},
                                  {"scrollOffsetX", 0},
                                  {"scrollOffsetY", static_cast<double>(rng() % (n * 17))}}})}};
  page.metrics = {{"cssLayoutViewport", {{"clientWidth", 800}, {"clientHeight", view_h}}},
                  {"layoutViewport", {{"clientWidth", 800}, {"clientHeight", view_h}}}};
  // The accessibility tree.
  static const char* const kRoles[] = {"generic", "button",   "link", "heading", "paragraph",
                                       "list",    "listitem", "none", "group",   "textbox"};
  std::vector<char> included(n, 0);
  // Not a script, nor text without a box (white space, or hidden).
  for (int i = 0; i < n; ++i) {
    included[i] = i == 0 || (name[i] != 4 && (type[i] != 3 || has_box[i]) && rng() % 10 < 8);
  }
  auto ax_parent = [&](int i) {
    int p = parent[i];
    while (p >= 0 && !included[p]) p = parent[p];
    return p;
  };
  std::vector<std::vector<std::string>> children(n);
  std::vector<json> nodes(n);
  std::vector<json> extra;
  for (int i = 1; i < n; ++i) {
    if (included[i] && ax_parent(i) >= 0) children[ax_parent(i)].push_back(std::to_string(i + 1));
  }
  int next_box = 0;
  for (int i = 0; i < n; ++i) {
    if (!included[i]) continue;
    json node = {{"nodeId", std::to_string(i + 1)}, {"backendDOMNodeId", i + 1}};
    std::string role = i == 0         ? "RootWebArea"
                       : type[i] == 3 ? "StaticText"
                                      : kRoles[rng() % std::size(kRoles)];
    node["role"] = {{"type", "role"}, {"value", role}};
    node["name"] = {{"type", "computedString"}, {"value", "w" + std::to_string(rng() % 50)}};
    node["ignored"] = i > 0 && rng() % 10 == 0;
    if (i > 0) node["parentId"] = std::to_string(ax_parent(i) + 1);
    json kids = json::array();
    for (const std::string& c : children[i]) kids.push_back(c);
    if (role == "StaticText") {
      const std::string box = "-" + std::to_string(++next_box);
      kids.push_back(box);
      extra.push_back({{"nodeId", box},
                       {"parentId", std::to_string(i + 1)},
                       {"role", {{"type", "role"}, {"value", "InlineTextBox"}}}});
    } else if (i > 0 && !children[i].empty() && rng() % 20 == 0) {
      const std::string slot = std::to_string(100000 + i);
      extra.push_back({{"nodeId", slot},
                       {"backendDOMNodeId", 100000 + i},
                       {"parentId", std::to_string(i + 1)},
                       {"ignored", true},
                       {"role", {{"type", "role"}, {"value", "none"}}},
                       {"childIds", kids}});
      kids = json::array({slot});
    }
    node["childIds"] = kids;
    nodes[i] = node;
  }
  page.ax = {{"nodes", json::array()}};
  for (int i = 0; i < n; ++i) {
    if (included[i]) page.ax["nodes"].push_back(nodes[i]);
  }
  for (json& e : extra) page.ax["nodes"].push_back(e);
  // A slot's children name it as their parent.
  for (json& node : page.ax["nodes"]) {
    for (const json& e : extra) {
      if (!e.contains("backendDOMNodeId")) continue;
      for (const json& c : e["childIds"]) {
        if (node["nodeId"] == c) node["parentId"] = e["nodeId"];
      }
    }
  }
  return page;
}

// On random pages, a read in view that holds together builds the tree a
// whole read builds, node for node; none crashes or hangs.
TEST(CdpPageTreeTest, OnRandomPagesAReadInViewBuildsTheWholeReadsTree) {
  std::mt19937 rng(1919);
  int compared = 0, planned = 0;
  for (int round = 0; round < 250; ++round) {
    const CdpPageData whole = RandomPage(rng);
    auto plan = PlanInViewRead(whole.snapshot, whole.metrics, 1 + static_cast<int>(rng() % 8));
    if (!plan) continue;
    ++planned;
    std::vector<json> ancestors, subtrees, relatives;
    for (int64_t b : plan->ancestors) ancestors.push_back(PartialAnswer(whole.ax, b));
    for (int64_t b : plan->subtrees) subtrees.push_back(QueryAnswer(whole.ax, b));
    auto joined = JoinInViewTree(*plan, ancestors, subtrees);
    for (int r = 0; joined.ok() && !joined->wanting.empty() && r < 3; ++r) {
      for (int64_t b : joined->wanting) relatives.push_back(PartialAnswer(whole.ax, b));
      joined = JoinInViewTree(*plan, ancestors, subtrees, relatives);
    }
    if (!joined.ok() || !joined->wanting.empty()) continue;
    CdpPageData in_view = whole;
    in_view.ax = joined->tree;
    in_view.extent = PageExtent::kInView;
    in_view.left_out = plan->left_out;
    in_view.left_out_boxed = plan->left_out_boxed;
    PageTreeOptions options;
    auto from_whole = BuildPageTree(whole, options);
    auto from_view = BuildPageTree(in_view, options);
    ASSERT_TRUE(from_whole.ok() && from_view.ok());
    ++compared;
    EXPECT_EQ(test::TreeLines(from_view->nodes), test::TreeLines(from_whole->nodes))
        << "round " << round;
  }
  // Not vacuous: many pages are planned, and most plans hold together.
  EXPECT_GT(planned, 50);
  EXPECT_GT(compared, planned / 2);
  std::printf("random pages: %d planned, %d read in view and compared\n", planned, compared);
}

TEST(CdpPageTreeTest, APageMostlyInViewIsReadWhole) {
  const CdpPageData whole = LoadRecordedPageInALowWindow();
  json tall = whole.metrics;
  tall["cssLayoutViewport"]["clientHeight"] = 5000;
  EXPECT_FALSE(PlanInViewRead(whole.snapshot, tall).has_value());
  // Requests too dear to split the page at all.
  EXPECT_FALSE(PlanInViewRead(whole.snapshot, whole.metrics, 100000).has_value());
  // Too many requests.
  EXPECT_FALSE(PlanInViewRead(whole.snapshot, whole.metrics, 4, 2).has_value());
  // No viewport, no snapshot, hostile snapshots: no plan, no crash.
  EXPECT_FALSE(PlanInViewRead(whole.snapshot, json::object()).has_value());
  EXPECT_FALSE(PlanInViewRead(json::object(), whole.metrics).has_value());
  for (const char* hostile : {
           R"({"documents":[{"nodes":{"backendNodeId":[1,2,3],"parentIndex":[-1,2,1]},
              "layout":{"nodeIndex":[0,1,2],"bounds":[[0,0,10,10],[0,9000,1,1],[0,0,"x",1]]}}]})",
           R"({"documents":[{"nodes":{"backendNodeId":[1,2],"parentIndex":[5,0],"nodeType":"x"},
              "layout":{"nodeIndex":[1,1,99,-3],"bounds":[[0,1e308,1e308,1e308],null,[1],[]]}}]})",
           R"({"documents":"no"})"}) {
    auto plan = PlanInViewRead(json::parse(hostile), whole.metrics, 1);
    if (plan) EXPECT_FALSE(plan->ancestors.empty());
  }
}

TEST(CdpPageTreeTest, RolesMapToUiscopeRoles) {
  EXPECT_EQ(RoleFromCdp("textbox", false), Role::kTextField);
  EXPECT_EQ(RoleFromCdp("textbox", true), Role::kTextArea);
  EXPECT_EQ(RoleFromCdp("combobox", false), Role::kComboBox);
  EXPECT_EQ(RoleFromCdp("StaticText", false), Role::kText);
  EXPECT_EQ(RoleFromCdp("columnheader", false), Role::kColumnHeader);
  EXPECT_EQ(RoleFromCdp("Iframe", false), Role::kDocument);
  EXPECT_EQ(RoleFromCdp("made-up", false), Role::kUnknown);
}

}  // namespace
}  // namespace uiscope
