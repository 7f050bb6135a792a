// The state database at the edges of its file system: a file truncated to
// nothing, a full disk, a read-only file system, many processes creating it
// at once. Real files; the full and read-only file systems are small tmpfs
// mounts (skipped where the test may not mount).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "memory/audit_log.h"
#include "memory/safety_store.h"
#include "memory/state_db.h"

namespace uiscope::memory {
namespace {

namespace fs = std::filesystem;

class StateDbEdgesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("uiscope-state-edges-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "uiscope.db").string();
  }
  void TearDown() override {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
    fs::remove_all(dir_);
  }

  // A tmpfs of `bytes` on dir_; false (and the test skips) where mounting
  // is not allowed.
  bool MountSmall(size_t bytes) {
    const std::string data = "size=" + std::to_string(bytes) + ",mode=0700";
    if (::mount("tmpfs", dir_.c_str(), "tmpfs", 0, data.c_str()) != 0) return false;
    mounted_ = true;
    return true;
  }

  static safety::AuditEntry Entry(int64_t t) {
    safety::AuditEntry e;
    e.time_ms = t;
    e.pid = 42;
    e.tool = "click";
    e.decision = "done";
    e.reason = std::string(300, 'r');
    return e;
  }

  size_t EntriesIn(const std::string& path) {
    auto db = OpenStateDatabase(path);
    EXPECT_TRUE(db.ok()) << db.error().message;
    if (!db.ok()) return 0;
    auto all = AuditLog(*db).Query({});
    EXPECT_TRUE(all.ok());
    return all.ok() ? all->size() : 0;
  }

  fs::path dir_;
  std::string path_;
  bool mounted_ = false;
};

TEST_F(StateDbEdgesTest, ATruncatedLogIsSaidToBeLostAndKeptAside) {
  safety::PolicyConfig config;
  config.database = path_;
  {
    SafetyStores stores = OpenSafetyStores(config);
    ASSERT_TRUE(stores.db) << stores.error;
    EXPECT_TRUE(stores.lost.empty());
    ASSERT_TRUE(stores.audit->Append(Entry(1000)).ok());
  }
  fs::resize_file(path_, 0);

  // Reading says so and changes nothing.
  auto read = OpenStateDatabase(path_, {.read_only = true});
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message.find("lost"), std::string::npos) << read.error().message;
  EXPECT_EQ(fs::file_size(path_), 0u);

  // Writing moves it aside and says where; the new log is empty and works.
  SafetyStores stores = OpenSafetyStores(config);
  ASSERT_TRUE(stores.db) << stores.error;
  EXPECT_NE(stores.lost.find("lost"), std::string::npos) << stores.lost;
  ASSERT_FALSE(stores.db->lost().empty());
  EXPECT_NE(stores.lost.find(stores.db->lost()), std::string::npos) << stores.lost;
  EXPECT_EQ(stores.db->lost().rfind(path_ + ".lost-", 0), 0u) << stores.db->lost();
  EXPECT_TRUE(fs::exists(stores.db->lost()));
  EXPECT_EQ(EntriesIn(path_), 0u);
  EXPECT_TRUE(stores.audit->Append(Entry(2000)).ok());
  // Said once: the next process finds a database.
  SafetyStores again = OpenSafetyStores(config);
  EXPECT_TRUE(again.lost.empty()) << again.lost;
}

TEST_F(StateDbEdgesTest, ProcessesCreatingItAtOnceNeverSeeAnEmptyFile) {
  // An empty file at the path means a lost log; creating one must never
  // show one to another process starting at the same moment.
  int start[2];
  ASSERT_EQ(::pipe(start), 0);
  std::vector<pid_t> children;
  for (int i = 0; i < 16; ++i) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(start[1]);
      char byte;
      (void)!::read(start[0], &byte, 1);
      auto db = OpenStateDatabase(path_);
      ::_exit(!db.ok() ? 2 : (*db)->lost().empty() ? 0 : 1);
    }
    children.push_back(pid);
  }
  ::close(start[0]);
  ::close(start[1]);
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().string().find(".lost-"), std::string::npos) << entry.path();
    EXPECT_EQ(entry.path().string().find(".new-"), std::string::npos) << entry.path();
  }
}

TEST_F(StateDbEdgesTest, AFullDiskIsCalledFullWithItsPlace) {
  if (!MountSmall(256 * 1024)) GTEST_SKIP() << "cannot mount a tmpfs: " << std::strerror(errno);
  {
    auto db = OpenStateDatabase(path_);
    ASSERT_TRUE(db.ok()) << db.error().message;
    ASSERT_TRUE(AuditLog(*db).Append(Entry(1000)).ok());
  }
  // Fill what is left.
  {
    const int fd = ::open((dir_ / "filler").c_str(), O_WRONLY | O_CREAT, 0600);
    ASSERT_GE(fd, 0);
    const std::string block(512, 'x');
    while (::write(fd, block.data(), block.size()) > 0) {
    }
    EXPECT_EQ(errno, ENOSPC);
    ::close(fd);
  }
  // SQLite cannot make its -shm file here: it says "disk I/O error".
  std::string message;
  auto db = OpenStateDatabase(path_);
  if (!db.ok()) {
    message = db.error().message;
  } else {
    auto appended = AuditLog(*db).Append(Entry(2000));
    ASSERT_FALSE(appended.ok());
    message = appended.error().message;
  }
  EXPECT_NE(message.find("disk full"), std::string::npos) << message;
  EXPECT_NE(message.find(dir_.string()), std::string::npos) << message;
}

TEST_F(StateDbEdgesTest, ALogOnAReadOnlyFileSystemCanBeRead) {
  if (!MountSmall(1024 * 1024)) GTEST_SKIP() << "cannot mount a tmpfs: " << std::strerror(errno);
  {
    auto db = OpenStateDatabase(path_);
    ASSERT_TRUE(db.ok()) << db.error().message;
    AuditLog log(*db);
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(log.Append(Entry(1000 + i)).ok());
  }
  ASSERT_FALSE(fs::exists(path_ + "-wal")) << "the last connection checkpoints and removes it";
  ASSERT_EQ(::mount(nullptr, dir_.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr), 0)
      << std::strerror(errno);
  auto writable = OpenStateDatabase(path_);
  EXPECT_FALSE(writable.ok()) << "writing needs a writable file system";
  auto db = OpenStateDatabase(path_, {.read_only = true});
  ASSERT_TRUE(db.ok()) << db.error().message;
  auto entries = AuditLog(*db).Query({});
  ASSERT_TRUE(entries.ok()) << entries.error().message;
  EXPECT_EQ(entries->size(), 3u);
}

TEST_F(StateDbEdgesTest, ReadingOnlyCreatesNothing) {
  auto missing = OpenStateDatabase(path_, {.read_only = true});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_FALSE(fs::exists(path_));
}

}  // namespace
}  // namespace uiscope::memory
