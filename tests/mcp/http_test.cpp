// The Streamable HTTP transport, driven by a plain HTTP client: sessions,
// headers, security checks and event streams, status code by status code.
#include <gtest/gtest.h>
#include <httplib.h>

#include "mcp/http_transport.h"
#include "test_tools.h"

namespace uiscope::mcp {
namespace {

const char kInit[] =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})";

class HttpTest : public ::testing::Test {
 protected:
  void Start(HttpOptions options = {}) {
    ServerOptions so;
    so.tools_inline = true;
    server_ = std::make_unique<Server>(tools_, so);
    auto t = HttpTransport::Start(*server_, options);
    ASSERT_TRUE(t.ok()) << t.error().message;
    transport_ = std::move(t).value();
    token_ = transport_->token();  // made by the transport when options.token is empty
    client_ = std::make_unique<httplib::Client>("127.0.0.1", transport_->port());
    client_->set_read_timeout(10);
  }

  httplib::Headers Headers(const std::string& session = "") {
    httplib::Headers h = {{"Accept", "application/json, text/event-stream"}};
    if (!session.empty()) {
      h.emplace("Mcp-Session-Id", session);
      h.emplace("MCP-Protocol-Version", "2025-11-25");
    }
    if (!token_.empty()) h.emplace("Authorization", "Bearer " + token_);
    return h;
  }

  httplib::Result Post(const std::string& body, const httplib::Headers& headers) {
    return client_->Post("/mcp", headers, body, "application/json");
  }

  // Initializes a session and returns its id.
  std::string Open() {
    auto res = Post(kInit, Headers());
    EXPECT_TRUE(res);
    if (!res) return "";
    EXPECT_EQ(res->status, 200) << res->body;
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
    std::string id = res->get_header_value("Mcp-Session-Id");
    EXPECT_EQ(id.size(), 32u);
    auto ack = Post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", Headers(id));
    EXPECT_TRUE(ack && ack->status == 202);
    return id;
  }

  ToolRegistry tools_ = test::MakeTestTools();
  std::unique_ptr<Server> server_;
  std::unique_ptr<HttpTransport> transport_;
  std::unique_ptr<httplib::Client> client_;
  std::string token_;
};

TEST_F(HttpTest, SessionLifecycle) {
  Start();
  EXPECT_EQ(transport_->url(), "http://127.0.0.1:" + std::to_string(transport_->port()) + "/mcp");
  const std::string id = Open();
  auto ping = Post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", Headers(id));
  ASSERT_TRUE(ping);
  EXPECT_EQ(ping->status, 200);
  EXPECT_EQ(json::parse(ping->body)["result"], json::object());

  // Two sessions are independent.
  const std::string other = Open();
  EXPECT_NE(other, id);

  // DELETE ends it; then it is gone (404), and the other one still works.
  httplib::Headers h = Headers(id);
  auto del = client_->Delete("/mcp", h);
  ASSERT_TRUE(del);
  EXPECT_EQ(del->status, 200);
  auto after = Post(R"({"jsonrpc":"2.0","id":3,"method":"ping"})", Headers(id));
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 404);
  auto still = Post(R"({"jsonrpc":"2.0","id":3,"method":"ping"})", Headers(other));
  ASSERT_TRUE(still);
  EXPECT_EQ(still->status, 200);
}

TEST_F(HttpTest, RefusesWhatTheSpecRefuses) {
  Start();
  const std::string id = Open();
  auto status = [&](const httplib::Result& r) { return r ? r->status : -1; };
  // No session header on a non-initialize request.
  EXPECT_EQ(status(Post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", Headers())), 400);
  // An unknown session.
  EXPECT_EQ(status(Post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})",
                        Headers("0123456789abcdef0123456789abcdef"))),
            404);
  // An unsupported protocol version header.
  httplib::Headers bad_version = Headers(id);
  bad_version.erase("MCP-Protocol-Version");
  bad_version.emplace("MCP-Protocol-Version", "1999-01-01");
  EXPECT_EQ(status(Post(R"({"jsonrpc":"2.0","id":3,"method":"ping"})", bad_version)), 400);
  // Accept without text/event-stream.
  httplib::Headers json_only = {{"Accept", "application/json"},
                                {"Mcp-Session-Id", id},
                                {"Authorization", "Bearer " + token_}};
  EXPECT_EQ(status(Post(R"({"jsonrpc":"2.0","id":4,"method":"ping"})", json_only)), 406);
  // Not JSON: 400 with a parse error body.
  auto garbage = Post("{nope", Headers(id));
  ASSERT_TRUE(garbage);
  EXPECT_EQ(garbage->status, 400);
  EXPECT_EQ(json::parse(garbage->body)["error"]["code"], kParseError);
  // Wrong content type.
  auto text = client_->Post("/mcp", Headers(id), "{}", "text/plain");
  EXPECT_EQ(status(text), 415);
  // Other paths and methods.
  EXPECT_EQ(status(client_->Get("/other")), 404);
  EXPECT_EQ(status(client_->Put("/mcp", Headers(id), "{}", "application/json")), 405);
  // The session still serves after all that.
  EXPECT_EQ(status(Post(R"({"jsonrpc":"2.0","id":5,"method":"ping"})", Headers(id))), 200);
}

TEST_F(HttpTest, ProtectsAgainstDnsRebinding) {
  Start();
  auto status = [&](httplib::Headers h) {
    auto r = Post(kInit, h);
    return r ? r->status : -1;
  };
  httplib::Headers evil_origin = Headers();
  evil_origin.emplace("Origin", "http://evil.example");
  EXPECT_EQ(status(evil_origin), 403);
  httplib::Headers evil_host = Headers();
  evil_host.emplace("Host", "evil.example:80");
  EXPECT_EQ(status(evil_host), 403);
  httplib::Headers bad_host = Headers();
  bad_host.emplace("Host", "127.0.0.1:" + std::to_string(transport_->port()) + "@evil.example");
  EXPECT_EQ(status(bad_host), 403);
  // The server's own origin is served, with CORS headers.
  const std::string own = "http://127.0.0.1:" + std::to_string(transport_->port());
  httplib::Headers own_origin = Headers();
  own_origin.emplace("Origin", own);
  auto ok = Post(kInit, own_origin);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(ok->get_header_value("Access-Control-Allow-Origin"), own);
  EXPECT_NE(ok->get_header_value("Access-Control-Expose-Headers").find("Mcp-Session-Id"),
            std::string::npos);
}

TEST_F(HttpTest, NoCorsForAPageOfAnotherLocalPort) {
  Start();
  // A page served by another local port (a dev server, a notebook) is
  // another origin: its preflight and its requests are refused, without
  // the headers that would let the browser send them.
  for (const char* origin : {"http://localhost:6274", "http://127.0.0.1:3000"}) {
    httplib::Headers h = {{"Origin", origin},
                          {"Access-Control-Request-Method", "POST"},
                          {"Access-Control-Request-Headers", "authorization, mcp-session-id"}};
    auto preflight = client_->Options("/mcp", h);
    ASSERT_TRUE(preflight);
    EXPECT_EQ(preflight->status, 403) << origin;
    EXPECT_FALSE(preflight->has_header("Access-Control-Allow-Origin")) << origin;
    EXPECT_FALSE(preflight->has_header("Access-Control-Allow-Headers")) << origin;
    httplib::Headers post = Headers();
    post.emplace("Origin", origin);
    auto r = Post(kInit, post);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 403) << origin;
  }
}

TEST_F(HttpTest, WithoutAConfiguredTokenOneIsMadeAndRequired) {
  Start();  // no token given, as `uiscope mcp --http` without --token
  ASSERT_EQ(token_.size(), 32u);
  EXPECT_EQ(token_.find_first_not_of("0123456789abcdef"), std::string::npos) << token_;
  const std::string made = token_;
  token_.clear();
  auto none = Post(kInit, Headers());
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  token_ = made;
  EXPECT_FALSE(Open().empty());
  // Another server makes another token.
  auto other = HttpTransport::Start(*server_, HttpOptions{});
  ASSERT_TRUE(other.ok());
  EXPECT_NE((*other)->token(), made);
}

TEST_F(HttpTest, AllowedOriginIsAccepted) {
  HttpOptions options;
  options.allowed_origins = {"https://agent.example"};
  Start(options);
  httplib::Headers h = Headers();
  h.emplace("Origin", "https://agent.example");
  auto r = Post(kInit, h);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST_F(HttpTest, TokenIsRequiredWhenSet) {
  HttpOptions options;
  options.token = "s3cret";
  Start(options);
  EXPECT_EQ(transport_->token(), "s3cret");
  token_.clear();
  auto none = Post(kInit, Headers());
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  EXPECT_EQ(none->get_header_value("WWW-Authenticate").rfind("Bearer", 0), 0u);
  httplib::Headers wrong = Headers();
  wrong.emplace("Authorization", "Bearer s3cre");
  auto bad = Post(kInit, wrong);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 401);
  token_ = "s3cret";
  EXPECT_FALSE(Open().empty());
}

TEST_F(HttpTest, ToolCallsStreamProgressThenTheResult) {
  Start();
  const std::string id = Open();
  auto res = Post(
      R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait","arguments":{"ms":0},"_meta":{"progressToken":"t"}}})",
      Headers(id));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/event-stream");
  std::vector<json> events;
  size_t at = 0;
  while ((at = res->body.find("data: ", at)) != std::string::npos) {
    size_t end = res->body.find('\n', at);
    events.push_back(json::parse(res->body.substr(at + 6, end - at - 6)));
    at = end;
  }
  ASSERT_GE(events.size(), 3u) << res->body;
  EXPECT_EQ(events.front()["method"], "notifications/message");
  EXPECT_EQ(events[events.size() - 2]["method"], "notifications/progress");
  EXPECT_EQ(events.back()["id"], 7);
  EXPECT_EQ(events.back()["result"]["content"][0]["text"], "waited");
}

TEST_F(HttpTest, TooLargeBodyIs413) {
  HttpOptions options;
  options.max_message_bytes = 4096;
  Start(options);
  const std::string id = Open();
  std::string body = R"({"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":")" +
                     std::string(8192, 'a') + "\"}}";
  auto r = Post(body, Headers(id));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  // The same body sent chunked (no Content-Length) is refused too.
  httplib::Client chunked_client("127.0.0.1", transport_->port());
  auto chunked = chunked_client.Post(
      "/mcp", Headers(id),
      [&body](size_t offset, httplib::DataSink& sink) {
        if (offset < body.size()) {
          sink.write(body.data() + offset, std::min<size_t>(1024, body.size() - offset));
        } else {
          sink.done();
        }
        return true;
      },
      "application/json");
  if (chunked) {
    EXPECT_EQ(chunked->status, 413);
  }  // else the connection was cut mid-body: refused as well
  auto ping = Post(R"({"jsonrpc":"2.0","id":3,"method":"ping"})", Headers(id));
  ASSERT_TRUE(ping);
  EXPECT_EQ(ping->status, 200);
}

TEST_F(HttpTest, EventStreamOpensOncePerSessionAndEndsWithIt) {
  Start();
  const std::string id = Open();
  std::atomic<bool> got_headers{false};
  std::atomic<int> stream_status{0};
  std::thread reader([&] {
    httplib::Client c("127.0.0.1", transport_->port());
    c.set_read_timeout(10);
    httplib::Headers h = {{"Accept", "text/event-stream"},
                          {"Authorization", "Bearer " + token_},
                          {"Mcp-Session-Id", id},
                          {"MCP-Protocol-Version", "2025-11-25"}};
    auto r = c.Get(
        "/mcp", h,
        [&](const httplib::Response& response) {
          stream_status = response.status;
          got_headers = true;
          return true;
        },
        [&](const char*, size_t) { return true; });
  });
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!got_headers && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(got_headers);
  EXPECT_EQ(stream_status, 200);
  // A second stream for the same session is a conflict.
  httplib::Headers h = {{"Accept", "text/event-stream"},
                        {"Authorization", "Bearer " + token_},
                        {"Mcp-Session-Id", id},
                        {"MCP-Protocol-Version", "2025-11-25"}};
  auto second = client_->Get("/mcp", h);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 409);
  // Ending the session ends the stream, so the reader thread returns.
  auto del = client_->Delete("/mcp", Headers(id));
  ASSERT_TRUE(del);
  reader.join();
}

TEST_F(HttpTest, StopEndsOpenStreams) {
  Start();
  const std::string id = Open();
  std::atomic<bool> got_headers{false};
  std::thread reader([&] {
    httplib::Client c("127.0.0.1", transport_->port());
    c.set_read_timeout(30);
    httplib::Headers h = {{"Accept", "text/event-stream"},
                          {"Mcp-Session-Id", id},
                          {"Authorization", "Bearer " + token_}};
    c.Get(
        "/mcp", h,
        [&](const httplib::Response&) {
          got_headers = true;
          return true;
        },
        [&](const char*, size_t) { return true; });
  });
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!got_headers && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  auto start = std::chrono::steady_clock::now();
  transport_->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  reader.join();
}

// Issue 14, defect 1 over HTTP: a number beyond double (1e400) made
// nlohmann throw out_of_range, which reached httplib's exception handler: a
// 500 carrying the exception text. It is a parse error, and the server
// serves on.
TEST_F(HttpTest, HugeNumbersAreParseErrorsNotServerErrors) {
  Start();
  const std::string id = Open();
  for (
      const char* body :
      {"1e400", R"({"jsonrpc":"2.0","id":1e400,"method":"ping"})",
       R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{"ms":1e400}}})",
       R"({"jsonrpc":"2.0","id":3,"method":"ping","params":{"n":-1e999999}})"}) {
    auto r = Post(body, Headers(id));
    ASSERT_TRUE(r) << body;
    EXPECT_EQ(r->status, 400) << body << " -> " << r->body;
    json reply = json::parse(r->body, nullptr, false);
    ASSERT_TRUE(reply.is_object()) << r->body;
    EXPECT_EQ(reply["error"]["code"], kParseError) << r->body;
    // The parser's own words (json_rpc.cpp), not an exception's what().
    EXPECT_EQ(r->body.find("out_of_range"), std::string::npos) << r->body;
    EXPECT_EQ(r->body.find("[json.exception"), std::string::npos) << r->body;
    EXPECT_NE(r->body.find("out of range"), std::string::npos) << r->body;
  }
  // Before any session too.
  auto before = Post("1e400", Headers());
  ASSERT_TRUE(before);
  EXPECT_EQ(before->status, 400);
  // A large but representable number in an integer argument is the tool's
  // invalid params, not a crash.
  auto big = Post(
      R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"wait","arguments":{"ms":1e300}}})",
      Headers(id));
  ASSERT_TRUE(big);
  EXPECT_NE(big->status, 500) << big->body;
  auto ping = Post(R"({"jsonrpc":"2.0","id":5,"method":"ping"})", Headers(id));
  ASSERT_TRUE(ping);
  EXPECT_EQ(ping->status, 200);
}

TEST(LoopbackTest, RecognisesLoopbackNames) {
  for (const char* h : {"localhost", "localhost:80", "127.0.0.1", "127.0.0.1:8765", "[::1]:9",
                        "LOCALHOST", "127.1.2.3"}) {
    EXPECT_TRUE(IsLoopbackHost(h)) << h;
  }
  for (const char* h :
       {"", "evil.example", "127.0.0.1.evil.example", "10.0.0.1", "localhost.evil:80",
        // What follows the host is a port, nothing else.
        "127.0.0.1:8765@evil.example", "localhost:80@evil.example", "127.0.0.1:80:90",
        "127.0.0.1:", "127.0.0.1:99999", "[::1]:9@evil.example", "[::1]evil", "127.0.0.1.5",
        "127.0.0.256", "127..0.1", "localhost:80/x"}) {
    EXPECT_FALSE(IsLoopbackHost(h)) << h;
  }
}

}  // namespace
}  // namespace uiscope::mcp
