// The state database: the audit log and the shared confirmation store on
// SQLite, across connections and processes, and through kill -9.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "memory/audit_log.h"
#include "memory/confirmation_store.h"
#include "memory/safety_store.h"
#include "memory/state_db.h"
#include "session/process.h"

namespace uiscope::memory {
namespace {

namespace fs = std::filesystem;
using safety::AuditEntry;
using safety::Confirmation;
using safety::ConfirmationStatus;
using std::chrono::milliseconds;

class MemoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("uiscope-memory-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    path_ = (dir_ / "state" / "uiscope.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::shared_ptr<Database> Open() {
    auto db = OpenStateDatabase(path_);
    EXPECT_TRUE(db.ok()) << db.error().message;
    return db.ok() ? *db : nullptr;
  }

  static AuditEntry Entry(std::string tool, int64_t t, std::string decision = "done") {
    AuditEntry e;
    e.time_ms = t;
    e.pid = 42;
    e.tool = std::move(tool);
    e.decision = std::move(decision);
    e.session = "s1";
    e.display = ":3";
    e.target = "btn_1";
    e.target_desc = "button \"OK\" btn_1";
    e.app = "fixture";
    e.arguments = {{"id", "btn_1"}};
    e.verification = {{"changed", 2}};
    e.screen_before = "aaaa";
    e.screen_after = "bbbb";
    return e;
  }

  fs::path dir_;
  std::string path_;
};

TEST_F(MemoryTest, DatabaseIsPrivateAndInWalMode) {
  auto db = Open();
  ASSERT_TRUE(db);
  struct stat st {};
  ASSERT_EQ(stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(stat((dir_ / "state").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  std::lock_guard lock(db->mutex());
  auto mode = db->Prepare("PRAGMA journal_mode");
  ASSERT_TRUE(mode.ok());
  ASSERT_TRUE(*mode->Step());
  EXPECT_EQ(mode->Text(0), "wal");
  auto sync = db->Prepare("PRAGMA synchronous");
  ASSERT_TRUE(*sync->Step());
  EXPECT_EQ(sync->Int(0), 2);  // FULL
}

TEST_F(MemoryTest, AppendAndQueryRoundTrip) {
  AuditLog log(Open());
  AuditEntry e = Entry("click", 1000);
  e.confirmed = true;
  e.token = "abc";
  e.rule = "R4";
  e.reason = "two match";
  e.via = "accessibility";
  e.error = "";
  auto id = log.Append(e);
  ASSERT_TRUE(id.ok()) << id.error().message;
  auto all = log.Query({});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 1u);
  const AuditEntry& r = (*all)[0];
  EXPECT_EQ(r.id, *id);
  EXPECT_EQ(r.time_ms, 1000);
  EXPECT_EQ(r.tool, "click");
  EXPECT_EQ(r.session, "s1");
  EXPECT_EQ(r.display, ":3");
  EXPECT_EQ(r.target_desc, "button \"OK\" btn_1");
  EXPECT_EQ(r.arguments, e.arguments);
  EXPECT_EQ(r.verification, e.verification);
  EXPECT_TRUE(r.confirmed);
  EXPECT_EQ(r.token, "abc");
  EXPECT_EQ(r.screen_before, "aaaa");
  EXPECT_EQ(r.screen_after, "bbbb");
}

TEST_F(MemoryTest, AnInFlightEntryIsCompletedOnce) {
  AuditLog log(Open());
  AuditEntry intent = Entry("click", 1000, "in_flight");
  intent.screen_after.clear();
  auto id = log.Append(intent);
  ASSERT_TRUE(id.ok()) << id.error().message;
  auto before = log.Query({});
  ASSERT_EQ(before->size(), 1u);
  EXPECT_EQ((*before)[0].decision, "in_flight");
  EXPECT_EQ((*before)[0].finished_ms, 0);
  EXPECT_EQ(*log.UnconfirmedActionTimes(0), (std::vector<int64_t>{1000}))
      << "an action in flight counts against the rate limit";

  AuditEntry outcome = Entry("click", 1000, "done");
  outcome.finished_ms = 1040;
  outcome.via = "xtest";
  ASSERT_TRUE(log.Complete(*id, outcome).ok());
  auto after = log.Query({});
  ASSERT_EQ(after->size(), 1u);
  EXPECT_EQ((*after)[0].decision, "done");
  EXPECT_EQ((*after)[0].via, "xtest");
  EXPECT_EQ((*after)[0].finished_ms, 1040);
  EXPECT_EQ((*after)[0].screen_after, "bbbb");

  // Completed entries, and entries written whole, are never rewritten.
  outcome.decision = "failed";
  EXPECT_EQ(log.Complete(*id, outcome).error().code, ErrorCode::kNotFound);
  auto whole = log.Append(Entry("click", 2000));
  EXPECT_EQ(log.Complete(*whole, outcome).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(log.Query({})->back().finished_ms, 2000);
}

TEST_F(MemoryTest, AVersion2DatabaseIsUpgradedInPlace) {
  {
    auto db = Open();
    AuditLog log(db);
    ASSERT_TRUE(log.Append(Entry("click", 1000)).ok());
    // Back to what version 2 wrote: no finished_ms, no grants.
    ASSERT_TRUE(db->Exec("ALTER TABLE audit DROP COLUMN finished_ms").ok());
    ASSERT_TRUE(db->Exec("DROP TABLE grants").ok());
    ASSERT_TRUE(db->Exec("PRAGMA user_version = 2").ok());
  }
  AuditLog log(Open());
  auto entries = log.Query({});
  ASSERT_TRUE(entries.ok()) << entries.error().message;
  ASSERT_EQ(entries->size(), 1u);
  EXPECT_EQ((*entries)[0].finished_ms, 1000) << "old entries were complete";
}

TEST_F(MemoryTest, GrantsAreSharedAndSpentAtomically) {
  SqliteConfirmationStore one(Open());
  SqliteConfirmationStore two(Open());  // another process's connection
  safety::Grant g;
  g.token = "tok";
  g.created_ms = 1000;
  g.expires_ms = 61'000;
  g.max_actions = 3;
  g.app = "gedit";
  g.display = ":5";
  g.rule = "rate";
  g.decided_by = "a person";
  ASSERT_TRUE(one.AddGrant(g).ok());
  safety::GrantQuery q{"gedit", ":5", "", "rate", "click"};
  safety::GrantQuery other_app{"xterm", ":5", "", "rate", "click"};
  EXPECT_FALSE(two.UseGrant(other_app, 2000)->has_value());
  auto first = two.UseGrant(q, 2000);
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_TRUE(first->has_value());
  EXPECT_EQ((*first)->used, 1);
  EXPECT_EQ((*first)->decided_by, "a person");
  EXPECT_TRUE(one.UseGrant(q, 2000)->has_value());
  EXPECT_TRUE(two.UseGrant(q, 2000)->has_value());
  EXPECT_FALSE(one.UseGrant(q, 2000)->has_value()) << "three actions, no more";
  EXPECT_TRUE(one.LiveGrants(2000)->empty());

  g.max_actions = 0;  // time only
  ASSERT_TRUE(one.AddGrant(g).ok());
  EXPECT_TRUE(two.UseGrant(q, 60'999)->has_value());
  EXPECT_FALSE(two.UseGrant(q, 61'000)->has_value()) << "expired";
  ASSERT_TRUE(one.AddGrant(g).ok());
  EXPECT_EQ(two.LiveGrants(3000)->size(), 2u) << "the time-only one and this one";
  EXPECT_EQ(*two.RevokeGrants(3000), 2);
  EXPECT_FALSE(one.UseGrant(q, 3001)->has_value()) << "revoked";
}

TEST_F(MemoryTest, QueryFiltersAndLimits) {
  AuditLog log(Open());
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(
        log.Append(Entry(i % 2 ? "click" : "type_text", 1000 + i, i == 9 ? "denied" : "done"))
            .ok());
  }
  AuditQuery q;
  q.since_ms = 1005;
  EXPECT_EQ(log.Query(q)->size(), 5u);
  q = {};
  q.tool = "click";
  EXPECT_EQ(log.Query(q)->size(), 5u);
  q = {};
  q.decision = "denied";
  EXPECT_EQ(log.Query(q)->size(), 1u);
  q = {};
  q.limit = 3;
  auto last = log.Query(q);
  ASSERT_EQ(last->size(), 3u);
  EXPECT_EQ((*last)[0].time_ms, 1007);  // the most recent three, oldest first
  EXPECT_EQ((*last)[2].time_ms, 1009);
  q = {};
  q.after_id = (*last)[1].id;
  EXPECT_EQ(log.Query(q)->size(), 1u);
  auto times = log.UnconfirmedActionTimes(1004);
  ASSERT_TRUE(times.ok());
  EXPECT_EQ(*times, (std::vector<int64_t>{1004, 1005, 1006, 1007, 1008}));
  auto pruned = log.Prune(1003);
  ASSERT_TRUE(pruned.ok());
  EXPECT_EQ(*pruned, 3);
  EXPECT_EQ(log.Query({})->size(), 7u);
}

TEST_F(MemoryTest, NewerSchemaIsRefused) {
  {
    auto db = Open();
    ASSERT_TRUE(db->Exec("PRAGMA user_version = 99").ok());
  }
  auto again = OpenStateDatabase(path_);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().message.find("newer uiscope"), std::string::npos);
}

TEST_F(MemoryTest, NotADatabaseIsAClearError) {
  fs::create_directories(dir_ / "state");
  std::ofstream(path_) << std::string(4096, 'z');
  auto db = OpenStateDatabase(path_);
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.error().message.find(path_), std::string::npos) << db.error().message;
}

TEST_F(MemoryTest, UnwritableLocationMakesTheGateRefuseActions) {
  // A regular file where a directory should be: fails for root too.
  fs::create_directories(dir_);
  std::ofstream(dir_ / "file") << "x";
  safety::PolicyConfig config;
  config.database = (dir_ / "file" / "sub" / "uiscope.db").string();
  SafetyStores stores = OpenSafetyStores(config);
  EXPECT_FALSE(stores.db);
  EXPECT_NE(stores.error.find("cannot create directory"), std::string::npos) << stores.error;
  auto gate = MakePolicyGate(config, stores);
  PlannedAction a;
  a.tool = "press_keys";
  GateDecision d = gate->Check(a);
  EXPECT_EQ(d.verdict, GateVerdict::kDeny);
  EXPECT_EQ(d.rule, "audit");
  EXPECT_NE(d.reason.find(config.database), std::string::npos) << d.reason;
}

TEST_F(MemoryTest, RetentionPrunesOldEntriesOnOpen) {
  {
    AuditLog log(Open());
    ASSERT_TRUE(log.Append(Entry("click", 1000)).ok());  // 1970: very old
    const int64_t now = std::chrono::duration_cast<milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    ASSERT_TRUE(log.Append(Entry("click", now)).ok());
  }
  safety::PolicyConfig config;
  config.database = path_;
  config.audit_retention_days = 1;
  SafetyStores stores = OpenSafetyStores(config);
  ASSERT_TRUE(stores.db) << stores.error;
  EXPECT_EQ(stores.audit->Query({})->size(), 1u);
}

// --- confirmations ------------------------------------------------------------------

Confirmation Pending(std::string token, int64_t now, int64_t ttl = 1000) {
  Confirmation c;
  c.token = std::move(token);
  c.created_ms = now;
  c.expires_ms = now + ttl;
  c.tool = "click";
  c.target = "button \"OK\" btn_1";
  c.rule = "R4";
  c.reason = "2 elements match";
  c.candidates = {{{"id", "btn_1"}}, {{"id", "btn_2"}}};
  c.arguments = {{"name", "OK"}};
  c.holder_pid = 7;
  return c;
}

TEST_F(MemoryTest, ConfirmationLifecycle) {
  SqliteConfirmationStore store(Open());
  ASSERT_TRUE(store.Create(Pending("tok1", 100)).ok());
  auto dup = store.Create(Pending("tok1", 100));
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().code, ErrorCode::kInvalidArgument);
  auto c = store.Get("tok1", 150);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->status, ConfirmationStatus::kPending);
  EXPECT_EQ(c->candidates.size(), 2u);
  EXPECT_EQ(c->holder_pid, 7);
  // Not approved yet: cannot be consumed.
  EXPECT_FALSE(store.Consume("tok1", 160).ok());
  auto approved = store.Decide("tok1", true, "uiscope confirm", 200);
  ASSERT_TRUE(approved.ok());
  EXPECT_EQ(approved->status, ConfirmationStatus::kApproved);
  EXPECT_EQ(approved->decided_by, "uiscope confirm");
  EXPECT_EQ(approved->decided_ms, 200);
  auto again = store.Decide("tok1", false, "someone", 210);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, ErrorCode::kStale);
  EXPECT_NE(again.error().message.find("already approved (by uiscope confirm)"), std::string::npos);
  ASSERT_TRUE(store.Consume("tok1", 220).ok());
  auto used = store.Consume("tok1", 230);
  ASSERT_FALSE(used.ok());
  EXPECT_NE(used.error().message.find("already performed"), std::string::npos);
  auto missing = store.Get("nope", 0);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
}

TEST_F(MemoryTest, ConfirmationsExpire) {
  SqliteConfirmationStore store(Open());
  ASSERT_TRUE(store.Create(Pending("old", 100, 50)).ok());
  EXPECT_EQ(store.Get("old", 150)->status, ConfirmationStatus::kPending);
  EXPECT_EQ(store.Get("old", 151)->status, ConfirmationStatus::kExpired);
  auto late = store.Decide("old", true, "x", 151);
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.error().message.find("expired"), std::string::npos);
  // An approval not used in time expires too.
  ASSERT_TRUE(store.Create(Pending("slow", 100, 50)).ok());
  ASSERT_TRUE(store.Decide("slow", true, "x", 120).ok());
  EXPECT_FALSE(store.Consume("slow", 200).ok());
  auto pending = store.List(true, 0, 120);
  ASSERT_TRUE(pending.ok());
  EXPECT_EQ(pending->size(), 1u);  // "old" (slow is approved)
  EXPECT_EQ(store.List(true, 0, 500)->size(), 0u);
  EXPECT_EQ(store.List(false, 0, 500)->size(), 2u);
}

TEST_F(MemoryTest, ADecisionInOneConnectionReachesAnother) {
  // Two connections to one file, as two processes have.
  SqliteConfirmationStore server(Open());
  SqliteConfirmationStore cli(Open());
  ASSERT_TRUE(server.Create(Pending("tok", 100, 100000)).ok());
  ASSERT_TRUE(cli.Decide("tok", true, "cli", 200).ok());
  EXPECT_EQ(server.Get("tok", 300)->status, ConfirmationStatus::kApproved);
}

TEST_F(MemoryTest, RacingDecidersOnlyOneWins) {
  SqliteConfirmationStore setup(Open());
  constexpr int kTokens = 30;
  std::vector<std::string> tokens;
  for (int i = 0; i < kTokens; ++i) tokens.push_back("tok" + std::to_string(100 + i));
  for (const std::string& token : tokens) {
    ASSERT_TRUE(setup.Create(Pending(token, 0, 1'000'000)).ok());
  }
  std::atomic<int> wins{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      SqliteConfirmationStore mine(Open());  // a connection of its own
      for (const std::string& token : tokens) {
        if (mine.Decide(token, t % 2 == 0, "thread", 10).ok()) ++wins;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wins.load(), kTokens);
}

// --- kill -9 ------------------------------------------------------------------------

// What a writer printed: entries it saw committed, by id.
std::map<int64_t, std::string> ReadCommitted(Process& writer, size_t at_least) {
  std::map<int64_t, std::string> committed;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (committed.size() < at_least && std::chrono::steady_clock::now() < deadline) {
    auto line = writer.ReadLine(milliseconds(20000));
    if (!line.ok()) break;
    if (*line == "ready") continue;
    const size_t space = line->find(' ');
    committed[std::stoll(line->substr(0, space))] = line->substr(space + 1);
  }
  return committed;
}

TEST_F(MemoryTest, KillNineLosesNoCommittedEntry) {
  std::mt19937 rng(12345);
  ASSERT_TRUE(Open());  // create the database before the writers race for it
  std::map<int64_t, std::string> all_committed;
  for (int round = 0; round < 4; ++round) {
    // Two writers at once, killed at a different point each round.
    std::vector<std::unique_ptr<Process>> writers;
    for (int w = 0; w < 2; ++w) {
      SpawnOptions options;
      options.argv = {UISCOPE_AUDIT_WRITER, path_,
                      "r" + std::to_string(round) + "w" + std::to_string(w)};
      options.capture_stdout = true;
      options.log_file =
          (dir_ / ("writer-" + std::to_string(round) + "-" + std::to_string(w) + ".log")).string();
      auto p = Process::Spawn(options);
      ASSERT_TRUE(p.ok()) << p.error().message;
      writers.push_back(std::move(p).value());
    }
    const size_t wanted = 20 + rng() % 200;
    for (auto& writer : writers) {
      auto committed = ReadCommitted(*writer, wanted);
      ASSERT_GE(committed.size(), wanted)
          << "the writer stopped early:\n"
          << FileTail((dir_ / ("writer-" + std::to_string(round) + "-" +
                               std::to_string(&writer - &writers[0]) + ".log"))
                          .string(),
                      20);
      ::kill(writer->pid(), SIGKILL);
      // Whatever it printed after the first `wanted` lines was committed too.
      for (;;) {
        auto line = writer->ReadLine(milliseconds(2000));
        if (!line.ok()) break;
        const size_t space = line->find(' ');
        committed[std::stoll(line->substr(0, space))] = line->substr(space + 1);
      }
      auto exit = writer->Wait(milliseconds(5000));
      ASSERT_TRUE(exit.ok());
      EXPECT_EQ(*exit, 128 + SIGKILL);
      all_committed.insert(committed.begin(), committed.end());
    }
  }
  // A fresh connection (the WAL is recovered) finds every committed entry.
  auto db = Open();
  ASSERT_TRUE(db);
  {
    std::lock_guard lock(db->mutex());
    auto check = db->Prepare("PRAGMA integrity_check");
    ASSERT_TRUE(check.ok());
    ASSERT_TRUE(*check->Step());
    EXPECT_EQ(check->Text(0), "ok");
  }
  AuditLog log(db);
  auto entries = log.Query({});
  ASSERT_TRUE(entries.ok());
  std::map<int64_t, std::string> stored;
  for (const AuditEntry& e : *entries) {
    stored[e.id] =
        e.arguments.value("marker", "") + " " + std::to_string(e.arguments.value("i", -1));
  }
  for (const auto& [id, what] : all_committed) {
    auto it = stored.find(id);
    ASSERT_NE(it, stored.end()) << "committed entry " << id << " (" << what << ") was lost";
    EXPECT_EQ(it->second, what) << "entry " << id;
  }
  // The log is writable again after the crash.
  EXPECT_TRUE(log.Append(Entry("click", 1)).ok());
}

// How much an append costs (the price of synchronous=FULL): printed, and
// bounded grossly so a pathological regression shows.
TEST_F(MemoryTest, AppendCost) {
  for (bool full : {true, false}) {
    DatabaseOptions options;
    options.synchronous_full = full;
    auto db = OpenStateDatabase(path_ + (full ? "" : ".normal"), options);
    ASSERT_TRUE(db.ok());
    AuditLog log(*db);
    constexpr int kEntries = 200;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kEntries; ++i) ASSERT_TRUE(log.Append(Entry("click", i)).ok());
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count() /
        kEntries;
    std::printf("audit append, synchronous=%s: %.3f ms per entry\n", full ? "FULL" : "NORMAL", ms);
    EXPECT_LT(ms, 500.0);
  }
}

}  // namespace
}  // namespace uiscope::memory
