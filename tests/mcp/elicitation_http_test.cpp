// Server-to-client requests over Streamable HTTP: the elicitation/create of
// a tool call travels on that call's event stream, the client's answer
// comes back as its own POST (202), and the result follows on the stream.
#include <gtest/gtest.h>
#include <httplib.h>

#include <condition_variable>
#include <thread>

#include "mcp/http_transport.h"
#include "test_tools.h"

namespace uiscope::mcp {
namespace {

// Reads an event stream as it arrives and hands out its messages.
class EventReader {
 public:
  // Appends the bytes of the stream; true to go on reading.
  bool Feed(const char* data, size_t n) {
    std::lock_guard lock(mutex_);
    buffer_.append(data, n);
    for (size_t end; (end = buffer_.find("\n\n")) != std::string::npos;) {
      const std::string event = buffer_.substr(0, end);
      buffer_.erase(0, end + 2);
      const size_t data_at = event.find("data: ");
      if (data_at != std::string::npos) messages_.push_back(json::parse(event.substr(data_at + 6)));
    }
    arrived_.notify_all();
    return !stop_;
  }
  std::optional<json> Next(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    arrived_.wait_for(lock, timeout, [&] { return !messages_.empty(); });
    if (messages_.empty()) return std::nullopt;
    json j = messages_.front();
    messages_.erase(messages_.begin());
    return j;
  }
  void Stop() {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }

 private:
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::string buffer_;
  std::vector<json> messages_;
  bool stop_ = false;
};

class ElicitationHttpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tools_ = test::MakeTestTools();
    // A tool that keeps what Elicit returned, for the disconnect case where
    // no result can reach the client.
    ASSERT_TRUE(
        tools_
            .Add(Tool{"ask_and_note",
                      "Ask and note",
                      "",
                      {{"type", "object"}, {"properties", json::object()}},
                      nullptr,
                      ToolAnnotations{},
                      [this](const json&, ToolContext& ctx) {
                        ElicitRequest r;
                        r.message = "still there?";
                        r.requested_schema = {{"type", "object"}, {"properties", json::object()}};
                        r.timeout = std::chrono::seconds(30);
                        auto a = ctx.Elicit(r);
                        std::lock_guard lock(note_mutex_);
                        note_ = a.ok() ? a->action : a.error().message;
                        return ToolResult{{Content::Text(note_)}, nullptr, false};
                      }})
            .ok());
    ServerOptions so;
    so.tools_inline = true;
    so.inline_calls_may_wait = true;
    server_ = std::make_unique<Server>(tools_, so);
    auto t = HttpTransport::Start(*server_, HttpOptions{});
    ASSERT_TRUE(t.ok()) << t.error().message;
    transport_ = std::move(t).value();
  }

  httplib::Headers Headers(const std::string& session = "") {
    httplib::Headers h = {{"Accept", "application/json, text/event-stream"},
                          {"Authorization", "Bearer " + transport_->token()}};
    if (!session.empty()) h.emplace("Mcp-Session-Id", session);
    return h;
  }

  std::unique_ptr<httplib::Client> NewClient() {
    auto c = std::make_unique<httplib::Client>("127.0.0.1", transport_->port());
    c->set_read_timeout(30);
    return c;
  }

  std::string Open(const json& capabilities) {
    auto c = NewClient();
    json init = {{"jsonrpc", "2.0"},
                 {"id", 1},
                 {"method", "initialize"},
                 {"params",
                  {{"protocolVersion", "2025-11-25"},
                   {"capabilities", capabilities},
                   {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}};
    auto res = c->Post("/mcp", Headers(), init.dump(), "application/json");
    EXPECT_TRUE(res && res->status == 200);
    if (!res) return "";
    std::string id = res->get_header_value("Mcp-Session-Id");
    auto ack =
        c->Post("/mcp", Headers(id), R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
                "application/json");
    EXPECT_TRUE(ack && ack->status == 202);
    return id;
  }

  // POSTs a tools/call on a thread of its own; its stream feeds `reader`.
  // `client` (optional) receives the client, to hang up with stop().
  std::thread Call(const std::string& session, const json& request, EventReader& reader,
                   int* status, std::shared_ptr<httplib::Client>* client = nullptr) {
    std::shared_ptr<httplib::Client> c = NewClient();
    if (client != nullptr) *client = c;
    return std::thread([this, session, request, &reader, status, c] {
      httplib::Request req;
      req.method = "POST";
      req.path = "/mcp";
      req.headers = Headers(session);
      req.body = request.dump();
      req.set_header("Content-Type", "application/json");
      req.content_receiver = [&reader](const char* data, size_t n, uint64_t, uint64_t) {
        return reader.Feed(data, n);
      };
      auto res = c->send(req);
      *status = res ? res->status : -1;
    });
  }

  ToolRegistry tools_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<HttpTransport> transport_;
  std::mutex note_mutex_;
  std::string note_;
};

TEST_F(ElicitationHttpTest, RoundTripOnTheToolCallsStream) {
  const std::string session = Open({{"elicitation", json::object()}});
  EventReader reader;
  int status = 0;
  std::thread call =
      Call(session,
           {{"jsonrpc", "2.0"},
            {"id", 2},
            {"method", "tools/call"},
            {"params", {{"name", "ask"}, {"arguments", {{"question", "Stop s3?"}}}}}},
           reader, &status);
  auto question = reader.Next(std::chrono::seconds(20));
  ASSERT_TRUE(question) << "no elicitation/create on the call's stream";
  EXPECT_EQ((*question)["method"], "elicitation/create");
  EXPECT_EQ((*question)["params"]["message"], "Stop s3?");
  const json id = (*question)["id"];

  // The answer is a POST of its own, accepted with 202.
  auto c = NewClient();
  json answer = {{"jsonrpc", "2.0"},
                 {"id", id},
                 {"result", {{"action", "accept"}, {"content", {{"approve", true}}}}}};
  auto posted = c->Post("/mcp", Headers(session), answer.dump(), "application/json");
  ASSERT_TRUE(posted);
  EXPECT_EQ(posted->status, 202);

  auto result = reader.Next(std::chrono::seconds(20));
  ASSERT_TRUE(result);
  EXPECT_EQ((*result)["id"], 2);
  EXPECT_EQ((*result)["result"]["content"][0]["text"], "accept {\"approve\":true}");
  call.join();
  EXPECT_EQ(status, 200);
}

TEST_F(ElicitationHttpTest, WithoutTheCapabilityNothingIsAsked) {
  const std::string session = Open(json::object());
  EventReader reader;
  int status = 0;
  std::thread call = Call(session,
                          {{"jsonrpc", "2.0"},
                           {"id", 2},
                           {"method", "tools/call"},
                           {"params", {{"name", "ask"}, {"arguments", json::object()}}}},
                          reader, &status);
  auto result = reader.Next(std::chrono::seconds(20));
  ASSERT_TRUE(result);
  EXPECT_EQ((*result)["result"]["content"][0]["text"], "cannot ask: no elicitation");
  call.join();
}

TEST_F(ElicitationHttpTest, AClientThatHangsUpEndsTheWait) {
  const std::string session = Open({{"elicitation", json::object()}});
  EventReader reader;
  int status = 0;
  const auto start = std::chrono::steady_clock::now();
  std::shared_ptr<httplib::Client> client;
  std::thread call = Call(session,
                          {{"jsonrpc", "2.0"},
                           {"id", 2},
                           {"method", "tools/call"},
                           {"params", {{"name", "ask_and_note"}, {"arguments", json::object()}}}},
                          reader, &status, &client);
  ASSERT_TRUE(reader.Next(std::chrono::seconds(20)));
  reader.Stop();
  client->stop();  // hangs up
  call.join();
  // The tool notices well before its 30 s timeout: it polls the stream.
  bool noted = false;
  for (int i = 0; i < 400 && !noted; ++i) {
    {
      std::lock_guard lock(note_mutex_);
      noted = !note_.empty();
    }
    if (!noted) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(noted) << "the tool was still waiting 20 s after the client left";
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(25));
  std::lock_guard lock(note_mutex_);
  EXPECT_NE(note_.find("disconnected"), std::string::npos) << note_;
}

}  // namespace
}  // namespace uiscope::mcp
