// IdAnchorStore (engine/id_anchor_store.h) on its own: what a file keeps, and
// files written by earlier versions.
#include "engine/id_anchor_store.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace uiscope {
namespace {

class IdAnchorStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/uiscope-anchor-store-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void Write(const std::string& text) {
    std::ofstream(IdAnchorStore(dir_).PathFor(app_.owner), std::ios::trunc) << text;
  }

  std::string dir_;
  const AnchoredApp app_{":1.7", "mousepad", 4321};
};

TEST_F(IdAnchorStoreTest, KeepsEveryFieldOfEveryAnchorInAPrivateFile) {
  AppAnchors saved;
  saved.clock = 9;
  saved.by_path["/win"] = IdAnchor{"win_07bb", Role::kWindow, 111, 222, 9, "/root", -1, ""};
  saved.by_path["/cell"] =
      IdAnchor{"cel_1a2b", Role::kTableCell, 18446744073709551615ull, 5, 8, "/table", -1, "B2"};
  ASSERT_TRUE(IdAnchorStore(dir_).Save(app_, saved).ok());
  struct stat st {};
  ASSERT_EQ(::stat(IdAnchorStore(dir_).PathFor(app_.owner).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  IdAnchors loaded;
  std::vector<std::string> warnings;
  IdAnchorStore(dir_).Load(app_, loaded, warnings);
  EXPECT_TRUE(warnings.empty());
  const AppAnchors& app = loaded.apps[app_.owner];
  EXPECT_EQ(app.clock, 9u);
  ASSERT_EQ(app.by_path.size(), 2u);
  const IdAnchor& win = app.by_path.at("/win");
  EXPECT_EQ(win.id, "win_07bb");
  EXPECT_EQ(win.role, Role::kWindow);
  EXPECT_EQ(win.hash, 111u);
  EXPECT_EQ(win.origin, 222u);
  EXPECT_EQ(win.seen, 9u);
  EXPECT_EQ(win.parent, "/root");
  EXPECT_EQ(win.shown_index, -1);
  const IdAnchor& cell = app.by_path.at("/cell");
  EXPECT_EQ(cell.hash, 18446744073709551615ull);
  EXPECT_EQ(cell.origin, 5u);
  EXPECT_EQ(cell.seen, 8u);
  EXPECT_EQ(cell.cell, "B2");
}

// What the version before origins wrote: [path, id, role, hash, seen, parent,
// shown index] (+ cell). Its anchors keep their IDs, each origin its hash.
TEST_F(IdAnchorStoreTest, AFileWithoutOriginsLoadsWithOriginsEqualToHashes) {
  Write(R"({"version": 1, "owner": ":1.7", "app": "mousepad", "pid": 4321, "clock": 3,
            "anchors": [["/win", "win_07bb", "window", 111, 3, "/root", -1],
                        ["/c", "cel_1a2b", "table_cell", 7, 2, "/t", -1, "A1"]]})");
  IdAnchors loaded;
  std::vector<std::string> warnings;
  IdAnchorStore(dir_).Load(app_, loaded, warnings);
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  const AppAnchors& app = loaded.apps[app_.owner];
  ASSERT_EQ(app.by_path.size(), 2u);
  EXPECT_EQ(app.by_path.at("/win").origin, 111u);
  EXPECT_EQ(app.by_path.at("/win").seen, 3u);
  EXPECT_EQ(app.by_path.at("/win").parent, "/root");
  EXPECT_EQ(app.by_path.at("/c").origin, 7u);
  EXPECT_EQ(app.by_path.at("/c").cell, "A1");
}

TEST_F(IdAnchorStoreTest, AnAnchorOfTheWrongShapeForItsVersionIsRefusedWithAWarning) {
  // A version-2 file whose anchor lacks the origin, and a version it does
  // not know.
  for (const char* text :
       {R"({"version": 2, "owner": ":1.7", "app": "mousepad", "pid": 4321, "clock": 3,
            "anchors": [["/win", "win_07bb", "window", 111, 3, "/root", -1]]})",
        R"({"version": 3, "owner": ":1.7", "app": "mousepad", "pid": 4321, "clock": 3,
            "anchors": []})"}) {
    Write(text);
    IdAnchors loaded;
    std::vector<std::string> warnings;
    IdAnchorStore(dir_).Load(app_, loaded, warnings);
    EXPECT_FALSE(loaded.apps.contains(app_.owner)) << text;
    ASSERT_EQ(warnings.size(), 1u) << text;
    EXPECT_NE(warnings[0].find("ignored the ID anchors of mousepad"), std::string::npos)
        << warnings[0];
  }
}

}  // namespace
}  // namespace uiscope
