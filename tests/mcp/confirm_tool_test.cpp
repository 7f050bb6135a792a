// Held actions through the real server: session_start / session_stop under
// a PolicyGate (real SQLite stores in a temp dir, fake sessions), with and
// without elicitation, decisions from the confirm tool, from "another
// process" (a second database connection, as `uiscope confirm` has) and
// from the user answering elicitation/create.
#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <thread>

#include "mcp/server.h"
#include "mcp/tools/confirm_tools.h"
#include "mcp/tools/tools.h"
#include "memory/safety_store.h"
#include "memory/state_db.h"
#include "support/fake_accessibility.h"
#include "support/fake_sessions.h"

namespace uiscope::mcp {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::seconds;

// Everything the server sends, thread-safe, with waits (tools run on worker
// threads here, as over stdio).
class Inbox final : public Outbound {
 public:
  bool Send(const json& message) override {
    std::lock_guard lock(mutex_);
    messages_.push_back(message);
    arrived_.notify_all();
    return true;
  }
  // The first message matching `pred` (removed), waiting up to `timeout`.
  std::optional<json> Take(const std::function<bool(const json&)>& pred,
                           milliseconds timeout = milliseconds(20000)) {
    std::unique_lock lock(mutex_);
    std::optional<json> found;
    arrived_.wait_for(lock, timeout, [&] {
      for (auto it = messages_.begin(); it != messages_.end(); ++it) {
        if (pred(*it)) {
          found = *it;
          messages_.erase(it);
          return true;
        }
      }
      return false;
    });
    return found;
  }

 private:
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<json> messages_;
};

class ConfirmToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("uiscope-confirm-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    config_.database = (dir_ / "uiscope.db").string();
    config_.confirm_tools = {"session_stop"};
  }
  void TearDown() override {
    if (session_) session_->Close();
    fs::remove_all(dir_);
  }

  // Starts the server under config_; `elicitation`: the client declares it.
  void Start(bool elicitation) {
    stores_ = memory::OpenSafetyStores(config_);
    ASSERT_TRUE(stores_.db) << stores_.error;
    gate_ = memory::MakePolicyGate(config_, stores_);
    auto fake = std::make_unique<test::FakeAccessibility>(std::vector<Node>{});
    workspace_ = std::make_unique<Workspace>(std::move(fake), Frame{1920, 1080, 1.0});
    ASSERT_TRUE(
        RegisterAllTools(registry_, *workspace_, sessions_, std::make_shared<Confirmer>(gate_))
            .ok());
    ServerOptions options;
    options.validate_output = true;  // tools on workers (tools_inline false)
    server_ = std::make_unique<Server>(registry_, options);
    session_ = server_->NewSession();
    json caps = elicitation ? json{{"elicitation", json::object()}} : json::object();
    session_->Handle({{"jsonrpc", "2.0"},
                      {"id", 0},
                      {"method", "initialize"},
                      {"params", {{"protocolVersion", "2025-06-18"}, {"capabilities", caps}}}},
                     inbox_);
    ASSERT_TRUE(inbox_.Take([](const json& m) { return m.value("id", json()) == 0; }));
    session_->Handle({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, inbox_);
  }

  int Send(const std::string& tool, json arguments) {
    const int id = ++id_;
    session_->Handle({{"jsonrpc", "2.0"},
                      {"id", id},
                      {"method", "tools/call"},
                      {"params", {{"name", tool}, {"arguments", std::move(arguments)}}}},
                     inbox_);
    return id;
  }
  json Result(int id) {
    auto m = inbox_.Take([id](const json& m) { return m.value("id", json()) == id; });
    EXPECT_TRUE(m) << "no reply to call " << id;
    return m ? m->value("result", json::object()) : json::object();
  }
  json Call(const std::string& tool, json arguments) {
    return Result(Send(tool, std::move(arguments)));
  }
  static std::string Text(const json& result) {
    std::string text;
    for (const json& c : result["content"]) text += c.value("text", "");
    return text;
  }
  bool Alive(const std::string& id) {
    const auto list = sessions_.List();
    for (const auto& s : *list) {
      if (s.id == id) return true;
    }
    return false;
  }
  std::vector<safety::AuditEntry> Audit() {
    auto entries = memory::AuditLog(stores_.db).Query({});
    return entries.ok() ? std::move(entries).value() : std::vector<safety::AuditEntry>{};
  }
  // A decision taken through another connection to the database, as
  // `uiscope confirm TOKEN --approve` in another process takes it.
  void DecideElsewhere(const std::string& token, bool approve,
                       std::optional<safety::GrantScope> grant = std::nullopt) {
    auto db = memory::OpenStateDatabase(config_.database);
    ASSERT_TRUE(db.ok());
    memory::SqliteConfirmationStore store(*db);
    memory::AuditLog audit(*db);
    auto decided = safety::DecideConfirmation(store, &audit, token, approve, "uiscope confirm",
                                              gate_->NowMs(), grant);
    ASSERT_TRUE(decided.ok()) << decided.error().message;
  }

  fs::path dir_;
  safety::PolicyConfig config_;
  memory::SafetyStores stores_;
  std::shared_ptr<safety::PolicyGate> gate_;
  std::unique_ptr<Workspace> workspace_;
  test::FakeSessions sessions_;
  ToolRegistry registry_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<Session> session_;
  Inbox inbox_;
  int id_ = 0;
};

TEST_F(ConfirmToolTest, WithoutElicitationTheResultCarriesATokenAndNothingHappens) {
  Start(false);
  ASSERT_EQ(Call("session_start", json::object()).value("isError", true), false);
  json held = Call("session_stop", {{"id", "s90"}});
  EXPECT_TRUE(held["isError"].get<bool>());
  const json& s = held["structuredContent"];
  EXPECT_EQ(s["status"], "confirmation_required");
  EXPECT_EQ(s["rule"], "confirm_tools");
  EXPECT_EQ(s["tool"], "session_stop");
  const std::string token = s["token"];
  EXPECT_EQ(token.size(), 10u);
  EXPECT_NE(Text(held).find("uiscope confirm " + token + " --approve"), std::string::npos)
      << Text(held);
  EXPECT_TRUE(Alive("s90"));

  // Not decided yet: confirm reports it pending, and nothing happens.
  json pending = Call("confirm", {{"token", token}});
  EXPECT_EQ(pending["structuredContent"]["status"], "pending");
  EXPECT_TRUE(Alive("s90"));

  // A person approves from another process; confirm performs it, once.
  DecideElsewhere(token, true);
  json done = Call("confirm", {{"token", token}});
  EXPECT_FALSE(done["isError"].get<bool>()) << Text(done);
  EXPECT_EQ(done["structuredContent"]["stopped"], "s90");
  EXPECT_FALSE(Alive("s90"));
  json again = Call("confirm", {{"token", token}});
  EXPECT_TRUE(again["isError"].get<bool>());

  std::vector<std::string> decisions;
  for (const auto& e : Audit()) decisions.push_back(e.tool + ":" + e.decision);
  EXPECT_EQ(decisions,
            (std::vector<std::string>{"session_start:done", "session_stop:awaiting_confirmation",
                                      "session_stop:approved", "session_stop:done"}));
  EXPECT_TRUE(Audit().back().confirmed);
  EXPECT_EQ(Audit().back().token, token);
}

TEST_F(ConfirmToolTest, ConfirmWaitsForADecisionTakenElsewhere) {
  Start(false);
  Call("session_start", json::object());
  const std::string token = Call("session_stop", {{"id", "s90"}})["structuredContent"]["token"];
  const int waiting = Send("confirm", {{"token", token}, {"wait_ms", 20000}});
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_TRUE(Alive("s90"));
  DecideElsewhere(token, true);
  json done = Result(waiting);
  EXPECT_FALSE(done["isError"].get<bool>()) << Text(done);
  EXPECT_FALSE(Alive("s90"));
}

TEST_F(ConfirmToolTest, ADenialIsFinal) {
  config_.agent_may_confirm = true;
  Start(false);
  Call("session_start", json::object());
  const std::string token = Call("session_stop", {{"id", "s90"}})["structuredContent"]["token"];
  json denied = Call("confirm", {{"token", token}, {"decision", "deny"}});
  EXPECT_TRUE(denied["isError"].get<bool>());
  EXPECT_EQ(denied["structuredContent"]["status"], "denied");
  EXPECT_TRUE(Alive("s90"));
  json late = Call("confirm", {{"token", token}, {"decision", "approve"}});
  EXPECT_TRUE(late["isError"].get<bool>());
  EXPECT_TRUE(Alive("s90"));
}

TEST_F(ConfirmToolTest, ByDefaultOnlyAPersonApproves) {
  Start(false);  // agent_may_confirm is left at its default
  Call("session_start", json::object());
  json held = Call("session_stop", {{"id", "s90"}});
  const std::string token = held["structuredContent"]["token"];
  EXPECT_EQ(Text(held).find("\"decision\": \"approve\""), std::string::npos)
      << "the agent must not be told it may approve";
  EXPECT_NE(Text(held).find("A person must decide: ask the user to run `uiscope confirm " + token +
                            " --approve`"),
            std::string::npos)
      << Text(held);
  EXPECT_NE(Text(held).find("--grant 30m"), std::string::npos) << "confirm_tools can be granted";
  EXPECT_EQ(held["structuredContent"]["approve_command"], "uiscope confirm " + token + " --approve");
  EXPECT_EQ(held["structuredContent"]["agent_may_confirm"], false);
  json refused = Call("confirm", {{"token", token}, {"decision", "approve"}});
  EXPECT_TRUE(refused["isError"].get<bool>());
  EXPECT_NE(Text(refused).find("agent_may_confirm is false"), std::string::npos);
  EXPECT_TRUE(Alive("s90"));
}

TEST_F(ConfirmToolTest, AgentRelayedApprovalPerforms) {
  config_.agent_may_confirm = true;
  Start(false);
  Call("session_start", json::object());
  const std::string token = Call("session_stop", {{"id", "s90"}})["structuredContent"]["token"];
  json done = Call("confirm", {{"token", token}, {"decision", "approve"}});
  EXPECT_FALSE(done["isError"].get<bool>()) << Text(done);
  EXPECT_FALSE(Alive("s90"));
}

TEST_F(ConfirmToolTest, ElicitationApprovalPerformsTheAction) {
  Start(true);
  Call("session_start", json::object());
  const int call = Send("session_stop", {{"id", "s90"}});
  auto ask =
      inbox_.Take([](const json& m) { return m.value("method", "") == "elicitation/create"; });
  ASSERT_TRUE(ask);
  const json& params = (*ask)["params"];
  EXPECT_NE(params["message"].get<std::string>().find("stop session s90"), std::string::npos);
  EXPECT_EQ(params["requestedSchema"]["properties"]["approve"]["type"], "boolean");
  EXPECT_TRUE(Alive("s90"));
  session_->Handle({{"jsonrpc", "2.0"},
                    {"id", (*ask)["id"]},
                    {"result", {{"action", "accept"}, {"content", {{"approve", true}}}}}},
                   inbox_);
  json done = Result(call);
  EXPECT_FALSE(done["isError"].get<bool>()) << Text(done);
  EXPECT_FALSE(Alive("s90"));
  const auto audit = Audit();
  ASSERT_GE(audit.size(), 3u);
  EXPECT_EQ(audit[audit.size() - 2].decision, "approved");
  EXPECT_NE(audit[audit.size() - 2].reason.find("elicitation"), std::string::npos);
}

TEST_F(ConfirmToolTest, ElicitationDeclineOrRefusalDenies) {
  Start(true);
  Call("session_start", json::object());
  for (json answer :
       {json{{"action", "decline"}}, json{{"action", "accept"}, {"content", {{"approve", false}}}},
        json{{"action", "cancel"}}}) {
    const int call = Send("session_stop", {{"id", "s90"}});
    auto ask =
        inbox_.Take([](const json& m) { return m.value("method", "") == "elicitation/create"; });
    ASSERT_TRUE(ask);
    session_->Handle({{"jsonrpc", "2.0"}, {"id", (*ask)["id"]}, {"result", answer}}, inbox_);
    json denied = Result(call);
    EXPECT_TRUE(denied["isError"].get<bool>());
    EXPECT_EQ(denied["structuredContent"]["status"], "denied") << answer.dump();
    EXPECT_TRUE(Alive("s90"));
  }
}

TEST_F(ConfirmToolTest, ADecisionElsewhereWithdrawsTheQuestion) {
  Start(true);
  Call("session_start", json::object());
  const int call = Send("session_stop", {{"id", "s90"}});
  auto ask =
      inbox_.Take([](const json& m) { return m.value("method", "") == "elicitation/create"; });
  ASSERT_TRUE(ask);
  auto pending = stores_.confirmations->List(true, 0, gate_->NowMs());
  ASSERT_EQ(pending->size(), 1u);
  DecideElsewhere(pending->front().token, true);
  auto withdrawn =
      inbox_.Take([](const json& m) { return m.value("method", "") == "notifications/cancelled"; });
  ASSERT_TRUE(withdrawn);
  EXPECT_EQ((*withdrawn)["params"]["requestId"], (*ask)["id"]);
  json done = Result(call);
  EXPECT_FALSE(done["isError"].get<bool>()) << Text(done);
  EXPECT_FALSE(Alive("s90"));
}

TEST_F(ConfirmToolTest, UnansweredElicitationFallsBackToAToken) {
  config_.elicitation_timeout = seconds(1);
  Start(true);
  Call("session_start", json::object());
  const int call = Send("session_stop", {{"id", "s90"}});
  ASSERT_TRUE(
      inbox_.Take([](const json& m) { return m.value("method", "") == "elicitation/create"; }));
  json held = Result(call);
  EXPECT_EQ(held["structuredContent"]["status"], "confirmation_required");
  EXPECT_NE(Text(held).find("could not be asked"), std::string::npos) << Text(held);
  EXPECT_TRUE(Alive("s90"));
}

TEST_F(ConfirmToolTest, EleventhUnconfirmedActionIsHeld) {
  config_.confirm_tools.clear();
  config_.rate_limit.max_actions = 3;
  Start(false);
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(Call("session_start", json::object())["isError"].get<bool>()) << i;
  }
  json held = Call("session_start", json::object());
  EXPECT_EQ(held["structuredContent"]["status"], "confirmation_required");
  EXPECT_EQ(held["structuredContent"]["rule"], "rate");
  EXPECT_EQ(sessions_.List()->size(), 3u);
  const std::string token = held["structuredContent"]["token"];
  EXPECT_TRUE(Call("confirm", {{"token", token}, {"decision", "approve"}})["isError"].get<bool>())
      << "the agent cannot approve its own rate-limited action";
  EXPECT_EQ(sessions_.List()->size(), 3u);
  // A person approves it and grants two more actions.
  DecideElsewhere(token, true, *safety::ParseGrantScope("2"));
  json done = Call("confirm", {{"token", token}});
  EXPECT_FALSE(done["isError"].get<bool>()) << Text(done);
  EXPECT_EQ(sessions_.List()->size(), 4u);
  for (int i = 0; i < 2; ++i) {
    json granted = Call("session_start", json::object());
    EXPECT_FALSE(granted["isError"].get<bool>()) << i << ": " << Text(granted);
  }
  EXPECT_EQ(sessions_.List()->size(), 6u);
  EXPECT_EQ(Call("session_start", json::object())["structuredContent"]["rule"], "rate")
      << "the grant is spent";
  EXPECT_TRUE(Audit().back().confirmed == false);
}

TEST_F(ConfirmToolTest, AnElicitationAnswerCanGrantTheApp) {
  config_.confirm_tools = {"session_start"};
  Start(true);
  const int call = Send("session_start", json::object());
  auto ask =
      inbox_.Take([](const json& m) { return m.value("method", "") == "elicitation/create"; });
  ASSERT_TRUE(ask);
  const json& also = (*ask)["params"]["requestedSchema"]["properties"]["also_allow"];
  ASSERT_EQ(also["type"], "string") << (*ask).dump();
  EXPECT_NE(std::find(also["enum"].begin(), also["enum"].end(), "the next 10 actions"),
            also["enum"].end());
  session_->Handle({{"jsonrpc", "2.0"},
                    {"id", (*ask)["id"]},
                    {"result",
                     {{"action", "accept"},
                      {"content", {{"approve", true}, {"also_allow", "the next 10 actions"}}}}}},
                   inbox_);
  json done = Result(call);
  EXPECT_FALSE(done["isError"].get<bool>()) << Text(done);
  // The next ones go ahead without a question.
  json next = Call("session_start", json::object());
  EXPECT_FALSE(next["isError"].get<bool>()) << Text(next);
  EXPECT_FALSE(inbox_.Take(
      [](const json& m) { return m.value("method", "") == "elicitation/create"; },
      milliseconds(200)));
  auto grants = stores_.confirmations->LiveGrants(gate_->NowMs());
  ASSERT_TRUE(grants.ok());
  ASSERT_EQ(grants->size(), 1u);
  EXPECT_EQ((*grants)[0].max_actions, 10);
  EXPECT_EQ((*grants)[0].used, 1);
  EXPECT_EQ((*grants)[0].tool, "session_start");
  bool recorded = false;
  for (const auto& e : Audit()) {
    recorded |= e.decision == "approved" &&
                e.reason.find("granted 10 actions") != std::string::npos;
  }
  EXPECT_TRUE(recorded);
}

TEST_F(ConfirmToolTest, NoDatabaseNoActions) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "file") << "x";
  config_.database = (dir_ / "file" / "uiscope.db").string();
  stores_ = memory::OpenSafetyStores(config_);
  gate_ = memory::MakePolicyGate(config_, stores_);
  auto fake = std::make_unique<test::FakeAccessibility>(std::vector<Node>{});
  workspace_ = std::make_unique<Workspace>(std::move(fake), Frame{1920, 1080, 1.0});
  ASSERT_TRUE(
      RegisterAllTools(registry_, *workspace_, sessions_, std::make_shared<Confirmer>(gate_)).ok());
  server_ = std::make_unique<Server>(registry_, ServerOptions{});
  session_ = server_->NewSession();
  session_->Handle({{"jsonrpc", "2.0"},
                    {"id", 0},
                    {"method", "initialize"},
                    {"params", {{"protocolVersion", "2025-06-18"}}}},
                   inbox_);
  json refused = Call("session_start", json::object());
  EXPECT_TRUE(refused["isError"].get<bool>());
  EXPECT_NE(Text(refused).find("audit log cannot be written"), std::string::npos) << Text(refused);
  EXPECT_TRUE(sessions_.List()->empty());
}

}  // namespace
}  // namespace uiscope::mcp
