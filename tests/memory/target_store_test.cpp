// The learned memory's store (memory/target_store.h): targets round-trip,
// saves are incremental, signatures are bounded, 10 apps x 1,000 targets
// stay under 10 MB, and `forget` leaves no byte of a forgotten label in the
// files.
#include "memory/target_store.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

namespace uiscope::memory {
namespace {

namespace fs = std::filesystem;

class TargetStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("uiscope-target-store-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    path_ = (dir_ / "memory.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::shared_ptr<TargetStore> Open() {
    auto store = OpenTargetStore(path_, false);
    EXPECT_TRUE(store.ok()) << store.error().message;
    return store.ok() ? *store : nullptr;
  }
  // Every byte of the store's files (database, WAL, shared memory).
  std::string AllBytes() const {
    std::string all;
    for (const char* suffix : {"", "-wal", "-journal"}) {
      std::ifstream in(path_ + suffix, std::ios::binary);
      all.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    return all;
  }

  fs::path dir_;
  std::string path_;
};

LearnedTarget Target(const std::string& id, const std::string& label) {
  LearnedTarget t;
  t.id = id;
  t.role = Role::kButton;
  t.label = label;
  t.bounds = Rect{10, 20, 80, 30};
  t.click = Point{50, 35};
  t.source = LearnedSource::kAx;
  t.confidence = 0.731;
  t.first_seen_ms = 1000;
  t.last_seen_ms = 2000;
  t.hits = 4;
  t.misses = 1;
  t.visual_hash = 0xfedcba9876543210ull;
  t.parent = "pnl_1";
  t.stale = true;
  return t;
}

// Two `uiscope mcp` started at once on a new state directory: before, the
// one whose snapshot the other's schema commit made stale was told
// "database is locked" at once and ran without learned memory.
TEST_F(TargetStoreTest, ProcessesOpeningANewStoreAtOnceAllGetIt) {
  constexpr int kProcesses = 6;
  for (int round = 0; round < 4; ++round) {
    const std::string path = (dir_ / ("race-" + std::to_string(round) + ".db")).string();
    fs::create_directories(dir_);
    int go[2];
    ASSERT_EQ(::pipe(go), 0);
    std::vector<pid_t> children;
    for (int i = 0; i < kProcesses; ++i) {
      const pid_t pid = ::fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        ::close(go[1]);
        char byte;
        (void)!::read(go[0], &byte, 1);  // all start together when the pipe closes
        auto store = OpenTargetStore(path, false);
        if (!store.ok()) std::cerr << store.error().message << "\n";
        ::_exit(store.ok() ? 0 : 1);
      }
      children.push_back(pid);
    }
    ::close(go[0]);
    ::close(go[1]);
    int failed = 0;
    for (pid_t pid : children) {
      int status = 0;
      ::waitpid(pid, &status, 0);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
    }
    EXPECT_EQ(failed, 0) << "round " << round << ": " << failed << " of " << kProcesses
                         << " processes could not open the new store";
  }
}

TEST_F(TargetStoreTest, TargetsRoundTripPerSignature) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  const AppSignature a{"gedit", "gedit", "atspi"};
  const AppSignature b{"gedit", "Preferences", "atspi"};
  ASSERT_TRUE(store->Save(a, {Target("btn_1", "Save"), Target("btn_2", "Open")}, {}, 5000).ok());
  ASSERT_TRUE(store->Save(b, {Target("btn_3", "Close")}, {}, 6000).ok());
  auto loaded = store->Load(a);
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->size(), 2u);
  const LearnedTarget& t = loaded->front().id == "btn_1" ? loaded->front() : loaded->back();
  EXPECT_EQ(t, Target("btn_1", "Save"));
  // Another process sees them.
  auto other = Open();
  EXPECT_EQ(other->Load(b)->size(), 1u);
  // Upserts change one row; removals delete.
  LearnedTarget changed = Target("btn_1", "Save as");
  changed.hits = 9;
  ASSERT_TRUE(store->Save(a, {changed}, {"btn_2"}, 7000).ok());
  loaded = other->Load(a);
  ASSERT_EQ(loaded->size(), 1u);
  EXPECT_EQ(loaded->front().label, "Save as");
  EXPECT_EQ(loaded->front().hits, 9);
  auto apps = store->ListApps();
  ASSERT_TRUE(apps.ok());
  ASSERT_EQ(apps->size(), 2u);
  EXPECT_EQ(apps->front().signature, a);  // most recently seen first
  EXPECT_EQ(apps->front().targets, 1);
  auto exported = store->Export("GEDIT");
  ASSERT_TRUE(exported.ok());
  EXPECT_EQ((*exported)["signatures"].size(), 2u);
  EXPECT_EQ(store->Export("nothing").error().code, ErrorCode::kNotFound);
}

TEST_F(TargetStoreTest, ForgetLeavesNoByteOfTheLabel) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  const std::string secret = "Zanzibar-quokka-7731";
  const AppSignature sig{"notes", "Notes", "atspi"};
  const AppSignature keep{"calc", "Calculator", "atspi"};
  std::vector<LearnedTarget> many;
  for (int i = 0; i < 200; ++i) many.push_back(Target("btn_" + std::to_string(i), secret));
  ASSERT_TRUE(store->Save(sig, many, {}, 1000).ok());
  ASSERT_TRUE(store->Save(keep, {Target("btn_eq", "Equals")}, {}, 1000).ok());
  // Rewritten a few times, so older page versions sit in the WAL.
  for (int round = 0; round < 3; ++round) {
    for (auto& t : many) ++t.hits;
    ASSERT_TRUE(store->Save(sig, many, {}, 2000 + round).ok());
  }
  ASSERT_NE(AllBytes().find(secret), std::string::npos);
  ASSERT_NE(AllBytes().find("Calculator"), std::string::npos);
  auto forgotten = store->Forget("Notes");
  ASSERT_TRUE(forgotten.ok()) << forgotten.error().message;
  EXPECT_EQ(*forgotten, 200);
  EXPECT_EQ(AllBytes().find(secret), std::string::npos);
  EXPECT_EQ(AllBytes().find("Notes"), std::string::npos);
  EXPECT_EQ(store->Load(sig)->size(), 0u);
  EXPECT_EQ(store->Load(keep)->size(), 1u);
  EXPECT_EQ(store->Forget("Notes").error().code, ErrorCode::kNotFound);
  auto all = store->ForgetAll();
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, 1);
  EXPECT_EQ(AllBytes().find("Calculator"), std::string::npos);
  EXPECT_EQ(AllBytes().find("Equals"), std::string::npos);
}

TEST_F(TargetStoreTest, TenAppsOfAThousandTargetsStayUnderTenMegabytes) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  for (int app = 0; app < 10; ++app) {
    std::vector<LearnedTarget> targets;
    for (int i = 0; i < kMaxTargetsPerApp; ++i) {
      targets.push_back(Target("btn_" + std::to_string(app) + "_" + std::to_string(i),
                               "A fairly long label of a button number " + std::to_string(i)));
    }
    ASSERT_TRUE(store
                    ->Save(AppSignature{"app" + std::to_string(app), "Main window", "atspi"},
                           targets, {}, 1000 + app)
                    .ok());
  }
  // The database and its write-ahead log together.
  std::error_code ec;
  const auto bytes = fs::file_size(path_) + fs::file_size(path_ + "-wal", ec);
  std::cout << "[ measured ] 10 apps x " << kMaxTargetsPerApp << " targets: " << bytes / 1024
            << " KiB\n";
  EXPECT_LT(bytes, 10u * 1024 * 1024);
}

TEST_F(TargetStoreTest, SignaturesAreBounded) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  for (int app = 0; app < kMaxApps + 5; ++app) {
    ASSERT_TRUE(store
                    ->Save(AppSignature{"app" + std::to_string(app), "w", "atspi"},
                           {Target("btn_1", "x")}, {}, 1000 + app)
                    .ok());
  }
  auto apps = store->ListApps();
  ASSERT_TRUE(apps.ok());
  EXPECT_EQ(apps->size(), static_cast<size_t>(kMaxApps));
  EXPECT_EQ(store->Load(AppSignature{"app0", "w", "atspi"})->size(), 0u);  // oldest went
  EXPECT_EQ(store->Load(AppSignature{"app204", "w", "atspi"})->size(), 1u);
}

TEST_F(TargetStoreTest, LearningFollowsTheConfiguration) {
  safety::PolicyConfig config;
  config.database = (dir_ / "uiscope.db").string();
  config.deny_apps = {"*secret*"};
  Learning on = OpenLearning(config);
  ASSERT_NE(on.store, nullptr) << on.error;
  EXPECT_EQ(on.store->path(), (dir_ / "memory.db").string());
  EXPECT_TRUE(on.learns("gedit"));
  EXPECT_FALSE(on.learns("my-secret-vault"));
  config.memory.apps = std::vector<std::string>{"gedit"};
  Learning only = OpenLearning(config);
  EXPECT_TRUE(only.learns("GEdit"));
  EXPECT_FALSE(only.learns("xterm"));
  config.memory.learning = false;
  Learning off = OpenLearning(config);
  EXPECT_EQ(off.store, nullptr);
  EXPECT_TRUE(off.error.empty());
}

}  // namespace
}  // namespace uiscope::memory
