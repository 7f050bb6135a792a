// Notes an action's observation repeats are said once per desktop, then
// counted (engine/said_notes.h).
#include "engine/said_notes.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "support/desktop_fixture.h"

namespace uiscope {
namespace {

using std::chrono::minutes;
using Notes = std::vector<std::string>;

class SaidNotesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = SaidNotesFile(test::TestStateDir() + "/said-" + std::to_string(::getpid()) + "-" +
                              ::testing::UnitTest::GetInstance()->current_test_info()->name(),
                          ":7");
  }
  Notes Say(const Notes& notes, int* left_out, std::chrono::system_clock::time_point now) {
    return SayOnce(file_, notes, left_out, now);
  }
  std::string file_;
  const std::chrono::system_clock::time_point t0_{std::chrono::hours(500000)};
};

TEST_F(SaidNotesTest, ANoteIsSaidOnceThenCountedWhateverItsNumbers) {
  EXPECT_EQ(SaidNotesFile("/s", ":7.0"), "/s/said-notes/_7_0.txt");
  const std::string sheet =
      "soffice (pid 812): table \"Sheet1\" claims 2147483647 children: read only the cells A1:W13";
  int left_out = -1;
  EXPECT_EQ(Say({sheet, "skipped xterm: it is not answering"}, &left_out, t0_),
            (Notes{sheet, "skipped xterm: it is not answering"}));
  EXPECT_EQ(left_out, 0);
  // The same note about other cells, a minute later, in another process's
  // call: left out and counted. A new note is said.
  const std::string scrolled =
      "soffice (pid 812): table \"Sheet1\" claims 2147483647 children: read only the cells A40:W52";
  EXPECT_EQ(Say({scrolled, "a new note"}, &left_out, t0_ + minutes(1)), (Notes{"a new note"}));
  EXPECT_EQ(left_out, 1);
  // Twice in one call: said once, not counted.
  EXPECT_EQ(Say({"twice", "twice"}, &left_out, t0_ + minutes(2)), (Notes{"twice"}));
  EXPECT_EQ(left_out, 0);
  // Once kSaidNotesFor has passed since it was said, it is said again.
  EXPECT_EQ(Say({sheet}, &left_out, t0_ + kSaidNotesFor + minutes(1)), (Notes{sheet}));
  EXPECT_EQ(left_out, 0);
  EXPECT_TRUE(Say({}, &left_out, t0_).empty());
}

TEST_F(SaidNotesTest, AFileThatCannotBeWrittenMakesEveryNoteBeSaid) {
  // Its directory is a plain file: nothing can be kept there.
  const std::string blocked = test::TestStateDir() + "/said-blocked";
  ASSERT_TRUE(std::filesystem::create_directories(blocked) ||
              std::filesystem::is_directory(blocked));
  std::FILE* f = std::fopen((blocked + "/said-notes").c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  const std::string file = SaidNotesFile(blocked, ":7");
  int left_out = -1;
  EXPECT_EQ(SayOnce(file, {"n"}, &left_out, t0_), (Notes{"n"}));
  EXPECT_EQ(SayOnce(file, {"n"}, &left_out, t0_), (Notes{"n"}));
  EXPECT_EQ(left_out, 0);
}

}  // namespace
}  // namespace uiscope
