// The shortcut registry in the state database (memory/shortcut_store.h):
// replacing one source of an app, listing, and the schema 3 -> 4 upgrade.
#include "memory/shortcut_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "memory/state_db.h"

namespace uiscope::memory {
namespace {

namespace fs = std::filesystem;

class ShortcutStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("uiscope-shortcut-store-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    path_ = (dir_ / "uiscope.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::shared_ptr<Database> Open() {
    auto db = OpenStateDatabase(path_);
    EXPECT_TRUE(db.ok()) << db.error().message;
    return db.ok() ? *db : nullptr;
  }
  fs::path dir_;
  std::string path_;
};

TEST_F(ShortcutStoreTest, ReplacesOneSourceAndKeepsTheOthers) {
  ShortcutStore store(Open());
  ASSERT_TRUE(store.ReplaceSource("gedit", "user", {{"", "F2", "Save", "file", "", ""}}, 1).ok());
  ASSERT_TRUE(store
                  .ReplaceSource("gedit", "menu",
                                 {{"", "Ctrl+S", "Save", "file", "", "File > Save"},
                                  {"", "Ctrl+Z", "Undo", "edit", "", ""}},
                                 2)
                  .ok());
  // Reading the tree again replaces the menu rows only.
  ASSERT_TRUE(
      store.ReplaceSource("GEDIT", "menu", {{"", "Ctrl+Q", "Quit", "file", "", ""}}, 3).ok());
  auto all = store.List("gedit");
  ASSERT_TRUE(all.ok()) << all.error().message;
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0], (Shortcut{"gedit", "F2", "Save", "file", "user", ""}));
  // The app as the last read named it.
  EXPECT_EQ((*all)[1], (Shortcut{"GEDIT", "Ctrl+Q", "Quit", "file", "menu", ""}));
  EXPECT_EQ(store.List("gedit", "edit")->size(), 0u);
  EXPECT_EQ(store.List("", "FILE")->size(), 2u);
  EXPECT_TRUE(store.List("mousepad")->empty());
}

TEST_F(ShortcutStoreTest, PutKeepsOneActionPerChordAndSourceAndRemoveSaysHowMany) {
  ShortcutStore store(Open());
  ASSERT_TRUE(
      store.ReplaceSource("gedit", "menu", {{"", "Ctrl+S", "Save", "file", "", ""}}, 1).ok());
  ASSERT_TRUE(store.Put({"gedit", "Ctrl+Alt+X", "Close All", "file", "user", ""}, 2).ok());
  // The same chord taught again means the new action; another source keeps its own.
  ASSERT_TRUE(store.Put({"GEdit", "Ctrl+Alt+X", "Close Others", "file", "user", ""}, 3).ok());
  ASSERT_TRUE(store.Put({"gedit", "Ctrl+Alt+X", "Save As", "ai-added", "learned", ""}, 4).ok());
  auto all = store.List("gedit");
  ASSERT_TRUE(all.ok()) << all.error().message;
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0], (Shortcut{"GEdit", "Ctrl+Alt+X", "Close Others", "file", "user", ""}));
  EXPECT_EQ((*all)[2], (Shortcut{"gedit", "Ctrl+Alt+X", "Save As", "ai-added", "learned", ""}));
  // Reading the tree again leaves them.
  ASSERT_TRUE(store.ReplaceSource("gedit", "menu", {}, 5).ok());
  EXPECT_EQ(store.List("gedit")->size(), 2u);

  // A wrong action removes nothing; the menu's rows are not a person's to remove.
  EXPECT_EQ(*store.Remove("gedit", {"user", "learned"}, "Ctrl+Alt+X", "Quit"), 0);
  EXPECT_EQ(*store.Remove("gedit", {"user"}, "Ctrl+S", ""), 0);
  EXPECT_EQ(*store.Remove("GEDIT", {"user"}, "Ctrl+Alt+X", "close others"), 1);
  EXPECT_EQ(*store.Remove("gedit", {"user", "learned"}, "Ctrl+Alt+X", ""), 1);
  EXPECT_TRUE(store.List("gedit")->empty());
}

TEST_F(ShortcutStoreTest, AVersion3DatabaseGainsTheTableAndKeepsItsRows) {
  {
    auto db = Open();
    ASSERT_TRUE(db->Exec("INSERT INTO audit (time_ms, pid, tool, target, decision) VALUES "
                         "(1000, 1, 'click', '', 'done')")
                    .ok());
    // Back to what version 3 wrote.
    ASSERT_TRUE(db->Exec("DROP TABLE shortcuts").ok());
    ASSERT_TRUE(db->Exec("PRAGMA user_version = 3").ok());
  }
  auto db = Open();
  ASSERT_NE(db, nullptr);
  ShortcutStore store(db);
  EXPECT_TRUE(store.ReplaceSource("gedit", "menu", {{"", "Ctrl+S", "Save", "", "", ""}}, 1).ok());
  EXPECT_EQ(store.List("gedit")->size(), 1u);
  auto rows = db->Prepare("SELECT COUNT(*) FROM audit");
  ASSERT_TRUE(rows.ok());
  ASSERT_TRUE(*rows->Step());
  EXPECT_EQ(rows->Int(0), 1);
  auto version = db->Prepare("PRAGMA user_version");
  ASSERT_TRUE(*version->Step());
  EXPECT_EQ(version->Int(0), kStateSchemaVersion);
}

}  // namespace
}  // namespace uiscope::memory
