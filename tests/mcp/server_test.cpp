// Server semantics that a transcript cannot show: concurrency, cancellation
// and the lifetime of requests on worker threads.
#include "mcp/server.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "test_tools.h"

namespace uiscope::mcp {
namespace {

using std::chrono::milliseconds;

class Inbox final : public Outbound {
 public:
  bool Send(const json& message) override {
    std::lock_guard lock(mutex_);
    messages_.push_back(message);
    cv_.notify_all();
    return true;
  }
  // The first message with this id, waiting up to `timeout`.
  std::optional<json> WaitFor(const json& id, milliseconds timeout = milliseconds(5000)) {
    std::unique_lock lock(mutex_);
    std::optional<json> found;
    cv_.wait_for(lock, timeout, [&] {
      for (const json& m : messages_) {
        if (m.is_object() && m.contains("id") && m["id"] == id) {
          found = m;
          return true;
        }
      }
      return false;
    });
    return found;
  }
  std::vector<json> All() {
    std::lock_guard lock(mutex_);
    return messages_;
  }
  size_t CountId(const json& id) {
    std::lock_guard lock(mutex_);
    size_t n = 0;
    for (const json& m : messages_) n += m.is_object() && m.contains("id") && m["id"] == id;
    return n;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<json> messages_;
};

bool WaitTrue(const std::function<bool()>& predicate) {
  auto until = std::chrono::steady_clock::now() + milliseconds(5000);
  while (std::chrono::steady_clock::now() < until) {
    if (predicate()) return true;
    std::this_thread::sleep_for(milliseconds(1));
  }
  return predicate();
}

json Request(int id, const std::string& method, json params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

class ServerTest : public ::testing::Test {
 protected:
  void Initialize(Session& s, Inbox& inbox) {
    s.Handle(Request(0, "initialize", {{"protocolVersion", "2025-11-25"}}), inbox);
    ASSERT_TRUE(inbox.WaitFor(0));
    s.Handle({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, inbox);
  }
  ToolRegistry tools_ = test::MakeTestTools();
};

// A slow tool call does not hold up pings behind it.
TEST_F(ServerTest, PingsAreAnsweredWhileAToolRuns) {
  Server server(tools_, ServerOptions{});
  auto session = server.NewSession();
  Inbox inbox;
  Initialize(*session, inbox);
  session->Handle(Request(1, "tools/call", {{"name", "wait"}, {"arguments", {{"ms", 60000}}}}),
                  inbox);
  session->Handle(Request(2, "ping"), inbox);
  ASSERT_TRUE(inbox.WaitFor(2, milliseconds(2000))) << "ping waited for the tool";
  EXPECT_FALSE(inbox.WaitFor(1, milliseconds(0)));
  EXPECT_TRUE(session->HasRequestsInFlight());
  // Cancel: the tool stops and no reply is sent for it.
  session->Handle({{"jsonrpc", "2.0"},
                   {"method", "notifications/cancelled"},
                   {"params", {{"requestId", 1}, {"reason", "user"}}}},
                  inbox);
  session->Drain();
  EXPECT_EQ(inbox.CountId(1), 0u) << "a cancelled request must not be answered";
  session->Handle(Request(3, "ping"), inbox);
  EXPECT_TRUE(inbox.WaitFor(3));
}

// Several tool calls run at once on the workers.
TEST_F(ServerTest, ToolCallsRunConcurrently) {
  ServerOptions options;
  options.workers = 4;
  Server server(tools_, options);
  auto session = server.NewSession();
  Inbox inbox;
  Initialize(*session, inbox);
  auto start = std::chrono::steady_clock::now();
  for (int id = 1; id <= 4; ++id) {
    session->Handle(Request(id, "tools/call", {{"name", "wait"}, {"arguments", {{"ms", 300}}}}),
                    inbox);
  }
  session->Drain();
  const auto elapsed = std::chrono::steady_clock::now() - start;
  for (int id = 1; id <= 4; ++id) EXPECT_TRUE(inbox.WaitFor(id, milliseconds(0))) << id;
  // Four 300 ms waits in sequence would take 1.2 s.
  EXPECT_LT(elapsed, milliseconds(1100));
}

// Closing a session cancels what runs and returns promptly.
TEST_F(ServerTest, CloseCancelsRequestsInFlight) {
  Server server(tools_, ServerOptions{});
  auto session = server.NewSession();
  Inbox inbox;
  Initialize(*session, inbox);
  session->Handle(Request(1, "tools/call", {{"name", "wait"}, {"arguments", {{"ms", 60000}}}}),
                  inbox);
  ASSERT_TRUE(WaitTrue([&] { return session->HasRequestsInFlight(); }));
  auto start = std::chrono::steady_clock::now();
  session->Close();
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(2000));
  session->Handle(Request(2, "ping"), inbox);
  auto reply = inbox.WaitFor(2);
  ASSERT_TRUE(reply);
  EXPECT_EQ((*reply)["error"]["code"], kInvalidRequest);
}

// While a request is in flight its id cannot be reused.
TEST_F(ServerTest, InFlightIdIsRefused) {
  Server server(tools_, ServerOptions{});
  auto session = server.NewSession();
  Inbox inbox;
  Initialize(*session, inbox);
  session->Handle(Request(1, "tools/call", {{"name", "wait"}, {"arguments", {{"ms", 60000}}}}),
                  inbox);
  session->Handle(Request(1, "ping"), inbox);
  auto reply = inbox.WaitFor(1);
  ASSERT_TRUE(reply);
  EXPECT_EQ((*reply)["error"]["code"], kInvalidRequest);
  EXPECT_NE((*reply)["error"]["message"].get<std::string>().find("in flight"), std::string::npos);
  session->Close();
}

// Progress notifications carry the token and increase.
TEST_F(ServerTest, ProgressFollowsTheToken) {
  ServerOptions options;
  options.tools_inline = true;
  Server server(tools_, options);
  auto session = server.NewSession();
  Inbox inbox;
  Initialize(*session, inbox);
  json call = Request(1, "tools/call", {{"name", "wait"}, {"arguments", {{"ms", 0}}}});
  call["params"]["_meta"] = {{"progressToken", 77}};
  session->Handle(call, inbox);
  ASSERT_TRUE(inbox.WaitFor(1));
  std::vector<double> progress;
  for (const json& m : inbox.All()) {
    if (m.value("method", "") != "notifications/progress") continue;
    EXPECT_EQ(m["params"]["progressToken"], 77);
    progress.push_back(m["params"]["progress"].get<double>());
  }
  EXPECT_EQ(progress, (std::vector<double>{0.5, 1.0}));
}

}  // namespace
}  // namespace uiscope::mcp
