// The rate limit shared through the state database: every process on one
// state directory spends the same budget, whatever the concurrency. Real
// processes (fork) and real connections; no display.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <vector>

#include "memory/audit_log.h"
#include "memory/safety_store.h"
#include "memory/state_db.h"

namespace uiscope::memory {
namespace {

namespace fs = std::filesystem;

class SharedRateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("uiscope-rate-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    config_.database = (dir_ / "state" / "uiscope.db").string();
    config_.rate_limit.max_actions = 10;
    config_.rate_limit.window = std::chrono::seconds(60);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static PlannedAction Click() {
    Node ok;
    ok.role = Role::kButton;
    ok.name = "OK";
    ok.id = "btn_ok";
    ok.bounds = Rect{100, 100, 80, 30};
    ok.app = "fixture";
    PlannedAction a;
    a.tool = "click";
    a.display = ":7";
    a.target_id = ok.id;
    a.target = ok;
    a.target_window = Rect{50, 50, 500, 400};
    a.points = {{140, 115}};
    a.frame = Frame{1024, 768, 1};
    a.arguments = {{"id", ok.id}};
    return a;
  }

  // Check + Record, as the executor does.
  static GateVerdict Act(safety::PolicyGate& gate) {
    const PlannedAction a = Click();
    GateDecision d = gate.Check(a);
    ActionOutcome outcome;
    outcome.performed = d.verdict == GateVerdict::kAllow;
    gate.Record(a, d, outcome);
    return d.verdict;
  }

  int DoneInLog() {
    auto db = OpenStateDatabase(config_.database);
    EXPECT_TRUE(db.ok());
    AuditQuery q;
    q.decision = "done";
    auto done = AuditLog(*db).Query(q);
    EXPECT_TRUE(done.ok());
    return done.ok() ? static_cast<int>(done->size()) : -1;
  }

  fs::path dir_;
  safety::PolicyConfig config_;
};

TEST_F(SharedRateTest, FiftyProcessesClickingAtOnceGetExactlyTheLimit) {
  // Each child opens the database and builds its gate (as a CLI verb does at
  // start), says so, then all of them act at the same moment: when the start
  // pipe closes.
  int ready[2], start[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(start), 0);
  std::vector<pid_t> children;
  for (int i = 0; i < 50; ++i) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(start[1]);
      ::close(ready[0]);
      SafetyStores stores = OpenSafetyStores(config_);
      auto gate = MakePolicyGate(config_, stores);
      char byte = 'r';
      (void)!::write(ready[1], &byte, 1);
      (void)!::read(start[0], &byte, 1);
      const GateVerdict v = Act(*gate);
      ::_exit(v == GateVerdict::kAllow ? 0 : v == GateVerdict::kNeedsConfirmation ? 1 : 2);
    }
    children.push_back(pid);
  }
  ::close(start[0]);
  ::close(ready[1]);
  for (int n = 0; n < 50; ++n) {
    char byte;
    ASSERT_EQ(::read(ready[0], &byte, 1), 1) << "child " << n << " did not get ready";
  }
  ::close(ready[0]);
  ::close(start[1]);
  int allowed = 0, held = 0, other = 0;
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    const int code = WEXITSTATUS(status);
    (code == 0 ? allowed : code == 1 ? held : other)++;
  }
  EXPECT_EQ(allowed, 10);
  EXPECT_EQ(held, 40);
  EXPECT_EQ(other, 0);
  EXPECT_EQ(DoneInLog(), 10);
}

TEST_F(SharedRateTest, AServerAlreadyRunningCountsTheOthersActions) {
  // The MCP server's gate is built first; CLI verbs then spend the budget.
  SafetyStores server_stores = OpenSafetyStores(config_);
  auto server = MakePolicyGate(config_, server_stores);
  SafetyStores cli_stores = OpenSafetyStores(config_);  // another connection
  for (int i = 0; i < 10; ++i) {
    auto cli = MakePolicyGate(config_, cli_stores);
    ASSERT_EQ(Act(*cli), GateVerdict::kAllow) << i;
  }
  EXPECT_EQ(Act(*server), GateVerdict::kNeedsConfirmation);
  EXPECT_EQ(DoneInLog(), 10);
}

}  // namespace
}  // namespace uiscope::memory
