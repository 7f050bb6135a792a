// execute_goal's conversation with the client's model (goal_tool.h) through
// the real server on a fake desktop, the client played by the test: what
// the sampling request holds, R2 (one retry with a stricter prompt, then
// stop with the model's output), [] as "goal reached", a client error.
// Plans that act are run on the GTK3 fixture by tests/mcp/js/goal_test.mjs.
#include "mcp/tools/goal_tool.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <mutex>

#include "mcp/server.h"
#include "mcp/tools/context_provider.h"
#include "mcp/tools/tools.h"
#include "support/fake_accessibility.h"
#include "support/fake_sessions.h"

namespace uiscope::mcp {
namespace {

// Messages from the server, taken by the test thread.
class Queue final : public Outbound {
 public:
  bool Send(const json& message) override {
    std::lock_guard lock(mutex_);
    messages_.push_back(message);
    changed_.notify_all();
    return true;
  }
  std::optional<json> Next() {
    std::unique_lock lock(mutex_);
    if (!changed_.wait_for(lock, std::chrono::seconds(20), [&] { return !messages_.empty(); }))
      return std::nullopt;
    json m = std::move(messages_.front());
    messages_.pop_front();
    return m;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<json> messages_;
};

class GoalToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto fake = std::make_unique<test::FakeAccessibility>(
        test::LoadFixtureTree(std::string(UISCOPE_TREE_FIXTURES) + "/login.json"));
    workspace_ = std::make_unique<Workspace>(std::move(fake), Frame{1920, 1080, 1.0});
    ASSERT_TRUE(RegisterAllTools(registry_, *workspace_, sessions_).ok());
    const ContextSources context{&registry_, workspace_.get(), nullptr, nullptr};
    ASSERT_TRUE(RegisterGoalTool(registry_, MakePromptProvider(context)).ok());
    server_ = std::make_unique<Server>(registry_, ServerOptions{});
    session_ = server_->NewSession();
    session_->Handle({{"jsonrpc", "2.0"},
                      {"id", 0},
                      {"method", "initialize"},
                      {"params",
                       {{"protocolVersion", "2025-06-18"},
                        {"capabilities", {{"sampling", json::object()}}},
                        {"clientInfo", {{"name", "test"}, {"version", "1"}}}}}},
                     out_);
    session_->Handle({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, out_);
    ASSERT_TRUE(out_.Next().has_value());  // the initialize result
  }
  void TearDown() override { session_->Close(); }

  // Calls execute_goal; each sampling/createMessage is answered with the
  // next of `answers` (a string: the model's text; an object: a JSON-RPC
  // error). Returns the tools/call result.
  json Goal(const json& arguments, std::vector<json> answers) {
    session_->Handle({{"jsonrpc", "2.0"},
                      {"id", 7},
                      {"method", "tools/call"},
                      {"params", {{"name", "execute_goal"}, {"arguments", arguments}}}},
                     out_);
    size_t next = 0;
    while (auto m = out_.Next()) {
      if (m->value("method", "") == "sampling/createMessage") {
        requests_.push_back((*m)["params"]);
        json reply = {{"jsonrpc", "2.0"}, {"id", (*m)["id"]}};
        if (next >= answers.size()) {
          reply["error"] = {{"code", -32603}, {"message", "no answer left"}};
        } else if (answers[next].is_object()) {
          reply["error"] = answers[next];
        } else {
          reply["result"] = {{"role", "assistant"},
                             {"content", {{"type", "text"}, {"text", answers[next]}}},
                             {"model", "scripted"}};
        }
        ++next;
        session_->Handle(reply, out_);
      } else if (m->contains("id") && (*m)["id"] == 7) {
        return m->value("result", json::object());
      }
    }
    ADD_FAILURE() << "no reply to execute_goal";
    return json::object();
  }

  static std::string Text(const json& result) {
    std::string text;
    for (const json& c : result.value("content", json::array())) text += c.value("text", "");
    return text;
  }

  std::unique_ptr<Workspace> workspace_;
  test::FakeSessions sessions_;
  ToolRegistry registry_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<Session> session_;
  Queue out_;
  std::vector<json> requests_;
};

TEST_F(GoalToolTest, AnEmptyPlanMeansTheGoalIsReached) {
  const json r = Goal({{"goal", "log in"}}, {"[]"});
  EXPECT_FALSE(r.value("isError", true)) << r.dump();
  EXPECT_EQ(r["structuredContent"]["status"], "done");
  ASSERT_EQ(requests_.size(), 1u);
  // Text only, with the seed's instruction, the screen's tree and the goal.
  const std::string request = requests_[0].dump();
  EXPECT_EQ(request.find("\"image\""), std::string::npos);
  EXPECT_NE(request.find("Vision Assistant"), std::string::npos);
  EXPECT_NE(request.find("Login"), std::string::npos);
  EXPECT_NE(request.find("log in"), std::string::npos);
  EXPECT_EQ(requests_[0].value("includeContext", ""), "none");
}

TEST_F(GoalToolTest, AnInvalidPlanIsAskedForOnceMoreWithAStricterPrompt) {
  const json r = Goal({{"goal", "log in"}}, {"I would click Login.", "```json\n[]\n```"});
  EXPECT_FALSE(r.value("isError", true)) << r.dump();
  EXPECT_EQ(r["structuredContent"]["status"], "done");
  EXPECT_TRUE(r["structuredContent"]["rounds"][0].value("retried", false));
  ASSERT_EQ(requests_.size(), 2u);
  const json& messages = requests_[1]["messages"];
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[1]["role"], "assistant");
  EXPECT_EQ(messages[1]["content"]["text"], "I would click Login.");
  EXPECT_NE(messages[2]["content"]["text"].get<std::string>().find("not a valid plan"),
            std::string::npos);
}

TEST_F(GoalToolTest, InvalidTwiceStopsWithTheModelsOutput) {
  const json r = Goal({{"goal", "log in"}},
                      {"not json at all", R"([{"type": "click", "args": {"bounds": 3}}])"});
  EXPECT_TRUE(r.value("isError", false));
  EXPECT_EQ(r["structuredContent"]["status"], "invalid_plan");
  const std::string text = Text(r);
  EXPECT_NE(text.find("invalid twice"), std::string::npos) << text;
  EXPECT_NE(text.find("not json at all"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("bounds": 3)"), std::string::npos) << text;
  EXPECT_EQ(requests_.size(), 2u);  // R2: one retry, no third request
}

TEST_F(GoalToolTest, AClientErrorEndsTheCall) {
  const json r = Goal({{"goal", "log in"}}, {json{{"code", -1}, {"message", "user rejected"}}});
  EXPECT_TRUE(r.value("isError", false));
  EXPECT_NE(Text(r).find("user rejected"), std::string::npos) << r.dump();
}

}  // namespace
}  // namespace uiscope::mcp
