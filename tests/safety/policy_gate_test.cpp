// PolicyGate on plain data: rule order, confirmations and their tokens, the
// rate limiter, redaction of the audit trail. A recording audit sink and a
// clock the test moves.
#include "safety/policy_gate.h"

#include <gtest/gtest.h>

#include <thread>

#include "safety/rate_limiter.h"
#include "safety/redact.h"

namespace uiscope::safety {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using TimePoint = std::chrono::system_clock::time_point;

// Tests only: keeps every entry; can be told to fail.
class RecordingAudit final : public AuditSink {
 public:
  Result<int64_t> Append(const AuditEntry& e) override {
    std::lock_guard lock(mutex);
    if (!fail_with.empty()) return MakeError(ErrorCode::kUnavailable, fail_with);
    entries.push_back(e);
    entries.back().id = static_cast<int64_t>(entries.size());
    return entries.back().id;
  }
  Status Complete(int64_t id, const AuditEntry& outcome) override {
    std::lock_guard lock(mutex);
    if (!fail_with.empty()) return MakeError(ErrorCode::kUnavailable, fail_with);
    if (id < 1 || id > static_cast<int64_t>(entries.size()) ||
        entries[id - 1].decision != "in_flight") {
      return MakeError(ErrorCode::kNotFound, "not in flight");
    }
    AuditEntry& e = entries[id - 1];
    e.decision = outcome.decision;
    e.via = outcome.via;
    e.verification = outcome.verification;
    e.error = outcome.error;
    e.screen_after = outcome.screen_after;
    e.finished_ms = outcome.finished_ms;
    e.reason = outcome.reason;
    return OkStatus();
  }
  Result<std::vector<int64_t>> UnconfirmedActionTimes(int64_t since_ms) override {
    std::vector<int64_t> out;
    for (const AuditEntry& e : entries) {
      if (e.time_ms >= since_ms && (e.decision == "done" || e.decision == "in_flight") &&
          !e.confirmed) {
        out.push_back(e.time_ms);
      }
    }
    return out;
  }
  std::mutex mutex;
  std::vector<AuditEntry> entries;
  std::string fail_with;
};

class GateTest : public ::testing::Test {
 protected:
  void SetUp() override { MakeGate(PolicyConfig{}); }

  void MakeGate(PolicyConfig config) {
    config_ = config;
    gate_ = std::make_unique<PolicyGate>(config, audit_, store_, "", [this] { return now_; });
  }

  static Node Button(std::string name, std::string id, Rect bounds) {
    Node n;
    n.role = Role::kButton;
    n.name = std::move(name);
    n.id = std::move(id);
    n.bounds = bounds;
    n.app = "fixture";
    return n;
  }

  PlannedAction Click(std::string id = "btn_ok") {
    PlannedAction a;
    a.tool = "click";
    a.display = ":7";
    a.target_id = id;
    a.target = Button("OK", id, {100, 100, 80, 30});
    a.target_window = Rect{50, 50, 500, 400};
    a.points = {{140, 115}};
    a.frame = Frame{1024, 768, 1};
    a.arguments = {{"id", id}};
    return a;
  }

  // Check + Record, as the executor does; "performs" allowed actions.
  GateDecision Act(const PlannedAction& a) {
    GateDecision d = gate_->Check(a);
    ActionOutcome outcome;
    outcome.performed = d.verdict == GateVerdict::kAllow;
    if (outcome.performed) outcome.via = "test";
    gate_->Record(a, d, outcome);
    return d;
  }

  TimePoint now_ = TimePoint(seconds(1'700'000'000));
  PolicyConfig config_;
  std::shared_ptr<RecordingAudit> audit_ = std::make_shared<RecordingAudit>();
  std::shared_ptr<MemoryConfirmationStore> store_ = std::make_shared<MemoryConfirmationStore>();
  std::unique_ptr<PolicyGate> gate_;
};

TEST_F(GateTest, PlainActionIsAllowedAndAudited) {
  GateDecision d = Act(Click());
  EXPECT_EQ(d.verdict, GateVerdict::kAllow);
  ASSERT_EQ(audit_->entries.size(), 1u);
  const AuditEntry& e = audit_->entries[0];
  EXPECT_EQ(e.tool, "click");
  EXPECT_EQ(e.decision, "done");
  EXPECT_EQ(e.target, "btn_ok");
  EXPECT_EQ(e.target_desc, "button \"OK\" btn_ok");
  EXPECT_EQ(e.app, "fixture");
  EXPECT_EQ(e.display, ":7");
  EXPECT_EQ(e.via, "test");
  EXPECT_FALSE(e.confirmed);
  EXPECT_EQ(e.time_ms, 1'700'000'000'000);
}

TEST_F(GateTest, DecisionsAreAuditedWithTheirNames) {
  PlannedAction off = Click();
  off.points = {{5000, 5}};
  EXPECT_EQ(Act(off).verdict, GateVerdict::kDrop);
  PlannedAction stale = Click("btn_gone");
  stale.target.reset();
  EXPECT_EQ(Act(stale).verdict, GateVerdict::kDeny);
  PlannedAction failed = Click();
  GateDecision d = gate_->Check(failed);
  ActionOutcome outcome;
  outcome.error = "the app did not answer";
  gate_->Record(failed, d, outcome);
  ASSERT_EQ(audit_->entries.size(), 3u);
  EXPECT_EQ(audit_->entries[0].decision, "dropped");
  EXPECT_EQ(audit_->entries[0].rule, "R5");
  EXPECT_EQ(audit_->entries[1].decision, "denied");
  EXPECT_EQ(audit_->entries[1].rule, "R6");
  EXPECT_EQ(audit_->entries[2].decision, "failed");
  EXPECT_EQ(audit_->entries[2].error, "the app did not answer");
}

TEST_F(GateTest, HardRulesComeBeforeConfirmations) {
  // An ambiguous target that is also off screen is dropped, not held.
  PlannedAction a = Click();
  a.candidates = 2;
  a.candidate_nodes = {*a.target, Button("OK", "btn_ok2", {1, 1, 5, 5})};
  a.points = {{-3, 4}};
  EXPECT_EQ(gate_->Check(a).verdict, GateVerdict::kDrop);
  PolicyConfig deny;
  deny.deny_apps = {"fixture"};
  MakeGate(deny);
  a.points = {{140, 115}};
  EXPECT_EQ(gate_->Check(a).rule, "deny_list");
}

TEST_F(GateTest, AmbiguousTargetIsHeldUntilApproved) {
  PlannedAction a = Click();
  a.candidates = 2;
  a.candidate_nodes = {*a.target, Button("OK", "btn_ok2", {300, 300, 80, 30})};
  GateDecision held = Act(a);
  ASSERT_EQ(held.verdict, GateVerdict::kNeedsConfirmation);
  EXPECT_EQ(held.rule, "R4");
  ASSERT_EQ(held.token.size(), 10u);
  EXPECT_EQ(audit_->entries.back().decision, "awaiting_confirmation");
  EXPECT_EQ(audit_->entries.back().token, held.token);

  auto stored = store_->Get(held.token, gate_->NowMs());
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->status, ConfirmationStatus::kPending);
  EXPECT_EQ(stored->rule, "R4");
  ASSERT_EQ(stored->candidates.size(), 2u);
  EXPECT_EQ(stored->candidates[1]["id"], "btn_ok2");
  EXPECT_EQ(stored->target, "button \"OK\" btn_ok");

  // Retrying before a decision gets the same token, still held.
  GateDecision again = gate_->Check(a);
  EXPECT_EQ(again.verdict, GateVerdict::kNeedsConfirmation);
  EXPECT_EQ(again.token, held.token);
  PlannedAction with_token = a;
  with_token.confirmation_token = held.token;
  EXPECT_EQ(gate_->Check(with_token).verdict, GateVerdict::kNeedsConfirmation);

  // Approved: performed once, marked confirmed.
  ASSERT_TRUE(gate_->Decide(held.token, true, "test").ok());
  EXPECT_EQ(audit_->entries.back().decision, "approved");
  GateDecision go = Act(with_token);
  EXPECT_EQ(go.verdict, GateVerdict::kAllow);
  EXPECT_TRUE(audit_->entries.back().confirmed);
  EXPECT_EQ(audit_->entries.back().decision, "done");
  // Once only.
  GateDecision twice = gate_->Check(with_token);
  EXPECT_EQ(twice.verdict, GateVerdict::kDeny);
}

TEST_F(GateTest, DeniedConfirmationRefusesTheAction) {
  PolicyConfig c;
  c.confirm_tools = {"click"};
  MakeGate(c);
  PlannedAction a = Click();
  GateDecision held = gate_->Check(a);
  ASSERT_EQ(held.verdict, GateVerdict::kNeedsConfirmation);
  EXPECT_EQ(held.rule, "confirm_tools");
  ASSERT_TRUE(gate_->Decide(held.token, false, "the user").ok());
  EXPECT_EQ(audit_->entries.back().decision, "rejected");
  a.confirmation_token = held.token;
  GateDecision d = gate_->Check(a);
  EXPECT_EQ(d.verdict, GateVerdict::kDeny);
  EXPECT_NE(d.reason.find("a person denied this action"), std::string::npos) << d.reason;
  // A second decision loses.
  auto late = gate_->Decide(held.token, true, "someone else");
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.error().code, ErrorCode::kStale);
}

TEST_F(GateTest, AnApprovalCoversOnlyItsOwnAction) {
  PolicyConfig c;
  c.confirm_tools = {"type_text"};
  MakeGate(c);
  PlannedAction a;
  a.tool = "type_text";
  a.text = "hello";
  a.arguments = {{"text", "hello"}};
  GateDecision held = gate_->Check(a);
  ASSERT_TRUE(gate_->Decide(held.token, true, "test").ok());
  PlannedAction other = a;
  other.text = "rm -rf ~\n";
  other.arguments = {{"text", "rm -rf ~\n"}};
  other.confirmation_token = held.token;
  GateDecision d = gate_->Check(other);
  EXPECT_EQ(d.verdict, GateVerdict::kDeny);
  EXPECT_NE(d.reason.find("issued for a different action"), std::string::npos) << d.reason;
  PlannedAction forged = a;
  forged.confirmation_token = "abcdefghij";
  EXPECT_EQ(gate_->Check(forged).verdict, GateVerdict::kDeny);
}

TEST_F(GateTest, ExpiredConfirmationIsReplacedByANewOne) {
  PolicyConfig c;
  c.confirm_tools = {"click"};
  c.confirmation_expiry = seconds(30);
  MakeGate(c);
  PlannedAction a = Click();
  GateDecision held = gate_->Check(a);
  now_ += seconds(31);
  auto late = gate_->Decide(held.token, true, "test");
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.error().message.find("expired"), std::string::npos);
  a.confirmation_token = held.token;
  GateDecision again = gate_->Check(a);
  EXPECT_EQ(again.verdict, GateVerdict::kNeedsConfirmation);
  EXPECT_NE(again.token, held.token);
}

TEST_F(GateTest, EleventhUnconfirmedActionInAMinuteIsHeld) {
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(Act(Click()).verdict, GateVerdict::kAllow) << i;
    now_ += milliseconds(100);
  }
  GateDecision eleventh = Act(Click());
  ASSERT_EQ(eleventh.verdict, GateVerdict::kNeedsConfirmation);
  EXPECT_EQ(eleventh.rule, "rate");
  EXPECT_NE(eleventh.reason.find("10 actions were performed without confirmation"),
            std::string::npos)
      << eleventh.reason;
  EXPECT_NE(eleventh.reason.find("or wait 60 s"), std::string::npos) << eleventh.reason;
  // Approved, it is performed and does not count.
  ASSERT_TRUE(gate_->Decide(eleventh.token, true, "test").ok());
  PlannedAction confirmed = Click();
  confirmed.confirmation_token = eleventh.token;
  EXPECT_EQ(Act(confirmed).verdict, GateVerdict::kAllow);
  EXPECT_EQ(gate_->Check(Click()).verdict, GateVerdict::kNeedsConfirmation);
  // A minute after the first, one slot is free again.
  now_ = TimePoint(seconds(1'700'000'060)) + milliseconds(1);
  EXPECT_EQ(Act(Click()).verdict, GateVerdict::kAllow);
  EXPECT_EQ(gate_->Check(Click()).verdict, GateVerdict::kNeedsConfirmation);
}

TEST_F(GateTest, AGrantLetsTheAppGoAheadForItsNumberOfActions) {
  for (int i = 0; i < 10; ++i) Act(Click());
  GateDecision held = Act(Click());
  ASSERT_EQ(held.rule, "rate");
  ASSERT_TRUE(gate_->Decide(held.token, true, "a person", *ParseGrantScope("3")).ok());
  EXPECT_EQ(audit_->entries.back().decision, "approved");
  EXPECT_NE(audit_->entries.back().reason.find("granted 3 actions for fixture on :7 (rule rate)"),
            std::string::npos)
      << audit_->entries.back().reason;
  PlannedAction approved = Click();
  approved.confirmation_token = held.token;
  EXPECT_EQ(Act(approved).verdict, GateVerdict::kAllow);
  for (int i = 0; i < 3; ++i) {
    GateDecision d = Act(Click());
    ASSERT_EQ(d.verdict, GateVerdict::kAllow) << i;
    EXPECT_TRUE(audit_->entries.back().confirmed);
    EXPECT_NE(audit_->entries.back().reason.find("under the grant a person gave"),
              std::string::npos);
  }
  EXPECT_EQ(Act(Click()).rule, "rate") << "the grant is spent";

  // Another app, or another desktop, is not covered.
  ASSERT_EQ(store_->LiveGrants(gate_->NowMs())->size(), 0u);
  GateDecision again = Act(Click());
  ASSERT_TRUE(gate_->Decide(again.token, true, "a person", *ParseGrantScope("30m")).ok());
  PlannedAction other = Click();
  other.target->app = "other-app";
  EXPECT_EQ(Act(other).verdict, GateVerdict::kNeedsConfirmation);
  PlannedAction elsewhere = Click();
  elsewhere.display = ":8";
  EXPECT_EQ(Act(elsewhere).verdict, GateVerdict::kNeedsConfirmation);
  EXPECT_EQ(Act(Click()).verdict, GateVerdict::kAllow);
}

TEST_F(GateTest, AGrantEndsWithItsTimeAndCoversOnlyItsTool) {
  PolicyConfig c;
  c.confirm_tools = {"click", "type_text"};
  MakeGate(c);
  GateDecision held = Act(Click());
  ASSERT_EQ(held.rule, "confirm_tools");
  ASSERT_TRUE(gate_->Decide(held.token, true, "a person", *ParseGrantScope("5m")).ok());
  EXPECT_EQ(Act(Click()).verdict, GateVerdict::kAllow);
  PlannedAction type = Click();
  type.tool = "type_text";
  type.text = "hello";
  EXPECT_EQ(Act(type).verdict, GateVerdict::kNeedsConfirmation) << "granted for click only";
  now_ += seconds(299);
  EXPECT_EQ(Act(Click()).verdict, GateVerdict::kAllow);
  now_ += seconds(2);
  EXPECT_EQ(Act(Click()).verdict, GateVerdict::kNeedsConfirmation);
}

TEST_F(GateTest, AnAmbiguousTargetCannotBeGrantedAway) {
  PlannedAction a = Click();
  a.candidates = 2;
  a.candidate_nodes = {*a.target, Button("OK", "btn_ok2", {300, 300, 80, 30})};
  GateDecision held = Act(a);
  ASSERT_EQ(held.rule, "R4");
  auto refused = gate_->Decide(held.token, true, "a person", *ParseGrantScope("30m"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(refused.error().message.find("Approve it without --grant"), std::string::npos);
  EXPECT_EQ(store_->Get(held.token, gate_->NowMs())->status, ConfirmationStatus::kPending)
      << "nothing was decided";
}

TEST(GrantScopeTest, ParsesDurationsCountsAndBoth) {
  EXPECT_EQ(ParseGrantScope("30m")->duration, seconds(1800));
  EXPECT_EQ(ParseGrantScope("2h")->duration, seconds(7200));
  EXPECT_EQ(ParseGrantScope("90s")->duration, seconds(90));
  EXPECT_EQ(ParseGrantScope("20")->actions, 20);
  EXPECT_EQ(ParseGrantScope("20x")->actions, 20);
  auto both = ParseGrantScope("30m,20");
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(both->duration, seconds(1800));
  EXPECT_EQ(both->actions, 20);
  EXPECT_EQ(DescribeGrantScope(*both), "20 actions or 30 min, whichever ends first");
  for (const char* bad : {"", "0", "-5", "30y", "25h", "1001", "m", "30m,", "30m,1h", "5,6",
                          "99999999999999999999"}) {
    auto r = ParseGrantScope(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("30m,20"), std::string::npos) << r.error().message;
  }
}

TEST_F(GateTest, RefusedActionsDoNotCountAgainstTheRate) {
  PolicyConfig c;
  c.rate_limit.max_actions = 2;
  MakeGate(c);
  PlannedAction off = Click();
  off.points = {{-1, -1}};
  for (int i = 0; i < 5; ++i) Act(off);
  EXPECT_EQ(Act(Click()).verdict, GateVerdict::kAllow);
  EXPECT_EQ(Act(Click()).verdict, GateVerdict::kAllow);
  EXPECT_EQ(Act(Click()).verdict, GateVerdict::kNeedsConfirmation);
}

TEST_F(GateTest, ANewProcessInheritsTheWindowFromTheAuditLog) {
  PolicyConfig c;
  c.rate_limit.max_actions = 3;
  MakeGate(c);
  for (int i = 0; i < 3; ++i) Act(Click());
  MakeGate(c);  // a new gate on the same log
  EXPECT_EQ(gate_->Check(Click()).verdict, GateVerdict::kNeedsConfirmation);
  now_ += seconds(61);
  MakeGate(c);
  EXPECT_EQ(gate_->Check(Click()).verdict, GateVerdict::kAllow);
}

TEST_F(GateTest, RateLimitZeroIsOff) {
  PolicyConfig c;
  c.rate_limit.max_actions = 0;
  MakeGate(c);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(Act(Click()).verdict, GateVerdict::kAllow);
}

TEST_F(GateTest, SecretsNeverReachTheAuditOrTheStore) {
  PolicyConfig c;
  c.confirm_tools = {"type_text"};
  MakeGate(c);
  Node pw;
  pw.role = Role::kTextField;
  pw.id = "txt_pw";
  pw.name = "Password";
  pw.states.Set(State::kPassword);
  PlannedAction a;
  a.tool = "type_text";
  a.target_id = "txt_pw";
  a.target = pw;
  a.text = "s3cr3t-Pa55";
  a.arguments = {{"id", "txt_pw"}, {"text", "s3cr3t-Pa55"}, {"note", "typing s3cr3t-Pa55 now"}};
  GateDecision held = Act(a);
  ASSERT_EQ(held.verdict, GateVerdict::kNeedsConfirmation);
  ASSERT_TRUE(gate_->Decide(held.token, true, "test").ok());
  a.confirmation_token = held.token;
  GateDecision d = gate_->Check(a);
  ASSERT_EQ(d.verdict, GateVerdict::kAllow);
  ActionOutcome outcome;
  outcome.performed = true;
  outcome.error = "echoed s3cr3t-Pa55";
  outcome.verification = {{"changed", "value s3cr3t-Pa55"}};
  gate_->Record(a, d, outcome);

  for (const AuditEntry& e : audit_->entries) {
    const std::string all = AuditEntryToJson(e).dump();
    EXPECT_EQ(all.find("s3cr3t"), std::string::npos) << all;
  }
  EXPECT_EQ(audit_->entries.back().arguments["text"], std::string(kMask));
  auto list = store_->List(false, 0, gate_->NowMs());
  ASSERT_TRUE(list.ok());
  for (const Confirmation& conf : *list) {
    EXPECT_EQ(ConfirmationToJson(conf).dump().find("s3cr3t"), std::string::npos);
  }
}

TEST_F(GateTest, TextIntoOrdinaryFieldsIsKept) {
  PlannedAction a;
  a.tool = "type_text";
  a.text = "hello";
  a.arguments = {{"text", "hello"}};
  Act(a);
  EXPECT_EQ(audit_->entries.back().arguments["text"], "hello");
}

TEST_F(GateTest, NoAuditLogMeansNoActions) {
  gate_ = std::make_unique<PolicyGate>(PolicyConfig{}, nullptr, store_,
                                       "/ro/uiscope.db: read-only file system");
  GateDecision d = gate_->Check(Click());
  EXPECT_EQ(d.verdict, GateVerdict::kDeny);
  EXPECT_EQ(d.rule, "audit");
  EXPECT_NE(d.reason.find("read-only file system"), std::string::npos) << d.reason;
}

TEST_F(GateTest, AFailedAppendStopsActionsUntilTheLogWorksAgain) {
  EXPECT_EQ(Act(Click()).verdict, GateVerdict::kAllow);
  audit_->fail_with = "disk full";
  // The entry is written ahead: an action that cannot be recorded is not
  // performed at all.
  GateDecision d = Act(Click());
  EXPECT_EQ(d.verdict, GateVerdict::kDeny);
  EXPECT_EQ(d.rule, "audit");
  EXPECT_NE(d.reason.find("disk full"), std::string::npos);
  EXPECT_EQ(Act(Click()).verdict, GateVerdict::kDeny);
  audit_->fail_with.clear();
  Act(Click());  // the refusal is recorded: the log works again
  EXPECT_EQ(Act(Click()).verdict, GateVerdict::kAllow);
}

TEST_F(GateTest, AnAllowedActionIsAuditedBeforeItIsPerformed) {
  const PlannedAction a = Click();
  GateDecision d = gate_->Check(a);
  ASSERT_EQ(d.verdict, GateVerdict::kAllow);
  // Nothing has been sent yet, and the entry is already there.
  ASSERT_EQ(audit_->entries.size(), 1u);
  EXPECT_EQ(audit_->entries[0].decision, "in_flight");
  EXPECT_EQ(audit_->entries[0].finished_ms, 0);
  EXPECT_EQ(audit_->entries[0].target, "btn_ok");
  EXPECT_EQ(d.audit_id, audit_->entries[0].id);
  now_ += milliseconds(40);
  ActionOutcome outcome;
  outcome.performed = true;
  outcome.via = "xtest";
  outcome.screen_hash_after = "abcd";
  gate_->Record(a, d, outcome);
  ASSERT_EQ(audit_->entries.size(), 1u) << "the same entry is completed";
  EXPECT_EQ(audit_->entries[0].decision, "done");
  EXPECT_EQ(audit_->entries[0].via, "xtest");
  EXPECT_EQ(audit_->entries[0].screen_after, "abcd");
  EXPECT_EQ(audit_->entries[0].finished_ms, 1'700'000'000'040);

  // Refused and held actions send nothing: written whole, once.
  PlannedAction off = Click();
  off.points = {{5000, 5}};
  GateDecision dropped = gate_->Check(off);
  EXPECT_EQ(dropped.audit_id, 0);
  EXPECT_EQ(audit_->entries.size(), 1u);
  gate_->Record(off, dropped, ActionOutcome{});
  ASSERT_EQ(audit_->entries.size(), 2u);
  EXPECT_EQ(audit_->entries[1].decision, "dropped");
}

TEST_F(GateTest, ActionsCutOffMidwayStayInFlightAndCountAgainstTheRate) {
  // Ten actions whose process died between Check and Record.
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(gate_->Check(Click()).verdict, GateVerdict::kAllow);
    now_ += seconds(1);
  }
  for (const AuditEntry& e : audit_->entries) EXPECT_EQ(e.decision, "in_flight");
  // A new process reads them from the log: the 11th is held.
  MakeGate(PolicyConfig{});
  EXPECT_EQ(gate_->Check(Click()).verdict, GateVerdict::kNeedsConfirmation);
}

TEST_F(GateTest, WaitForDecisionSeesADecisionFromElsewhere) {
  PolicyConfig c;
  c.confirm_tools = {"click"};
  gate_ = std::make_unique<PolicyGate>(c, audit_, store_);  // real clock
  GateDecision held = gate_->Check(Click());
  std::thread decider([&] {
    std::this_thread::sleep_for(milliseconds(50));
    (void)store_->Decide(held.token, true, "another process", gate_->NowMs());
  });
  auto c1 = gate_->WaitForDecision(held.token, seconds(10));
  decider.join();
  ASSERT_TRUE(c1.ok());
  EXPECT_EQ(c1->status, ConfirmationStatus::kApproved);
  EXPECT_EQ(c1->decided_by, "another process");
  // Timeout and cancellation return the pending confirmation.
  GateDecision other = gate_->Check(Click("btn_x"));
  auto c2 = gate_->WaitForDecision(other.token, milliseconds(30));
  ASSERT_TRUE(c2.ok());
  EXPECT_EQ(c2->status, ConfirmationStatus::kPending);
  auto c3 = gate_->WaitForDecision(other.token, seconds(30), [] { return true; });
  EXPECT_EQ(c3->status, ConfirmationStatus::kPending);
}

TEST_F(GateTest, DeniedAppsAreRecognised) {
  PolicyConfig c;
  c.deny_apps = {"KeePass*"};
  MakeGate(c);
  EXPECT_TRUE(gate_->IsDeniedApp("keepassxc"));
  EXPECT_FALSE(gate_->IsDeniedApp("gedit"));
}

TEST_F(GateTest, ConcurrentChecksKeepTheLimit) {
  std::atomic<int> allowed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) {
        if (gate_->Check(Click()).verdict == GateVerdict::kAllow) ++allowed;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(allowed.load(), 10);
}

// --- RateLimiter alone ------------------------------------------------------------

TEST(RateLimiter, SlidingWindow) {
  RateLimiter r(3, seconds(10));
  const TimePoint t0(seconds(1000));
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(r.Allows(t0 + seconds(i)));
    r.Add(t0 + seconds(i));
  }
  EXPECT_FALSE(r.Allows(t0 + seconds(3)));
  EXPECT_EQ(r.NextAllowed(t0 + seconds(3)), t0 + seconds(10));
  EXPECT_FALSE(r.Allows(t0 + seconds(10) - milliseconds(1)));
  EXPECT_TRUE(r.Allows(t0 + seconds(10)));  // the first left the window
  EXPECT_EQ(r.Count(t0 + seconds(10)), 2);
  EXPECT_EQ(r.Count(t0 + seconds(100)), 0);
}

TEST(RateLimiter, OutOfOrderSeeds) {
  RateLimiter r(2, seconds(10));
  const TimePoint t0(seconds(1000));
  r.Add(t0 + seconds(5));
  r.Add(t0);
  EXPECT_FALSE(r.Allows(t0 + seconds(6)));
  EXPECT_TRUE(r.Allows(t0 + seconds(10)));
}

}  // namespace
}  // namespace uiscope::safety
