// Launch marks (session/launch_marks.h): a process uiscope started, and
// anything that descends from it, is found whichever mark it shed; nothing
// else is.
#include "session/launch_marks.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>

#include "session/process.h"
#include "support/desktop_fixture.h"

namespace uiscope {
namespace {

using std::chrono::milliseconds;
using test::WaitUntil;

class LaunchMarksTest : public ::testing::Test {
 protected:
  void SetUp() override { test::TestStateDir(); }  // records of this test process only
};

TEST_F(LaunchMarksTest, ThisTestIsNotFromAnythingUiscopeStarted) {
  EXPECT_FALSE(FindLaunchOrigin(static_cast<int>(getpid())).has_value());
}

TEST_F(LaunchMarksTest, ARecordedProcessAndItsChildrenAreFound) {
  SpawnOptions spawn;
  spawn.argv = {"sh", "-c", "env -i /bin/sleep 30 & wait"};
  auto shell = Process::Spawn(spawn);
  ASSERT_TRUE(shell.ok());
  int child = 0;
  ASSERT_TRUE(WaitUntil([&] {
    for (const ProcessEntry& p : ListProcesses()) {
      if (p.parent == (*shell)->pid() && p.live() && PidProgramName(p.pid) == "sleep") child = p.pid;
    }
    return child != 0;
  }));
  EXPECT_FALSE(FindLaunchOrigin(child).has_value()) << "nothing was recorded yet";
  ASSERT_TRUE(RecordLaunched((*shell)->pid()).ok());
  auto origin = FindLaunchOrigin(child);
  ASSERT_TRUE(origin.has_value());
  // The child is in the process session the recorded shell leads.
  EXPECT_NE(origin->Describe().find(std::to_string((*shell)->pid())), std::string::npos)
      << origin->Describe();
  EXPECT_NE(origin->how.find("app_launch"), std::string::npos) << origin->how;
  auto shell_origin = FindLaunchOrigin((*shell)->pid());
  ASSERT_TRUE(shell_origin.has_value());
  EXPECT_EQ(shell_origin->how, "app_launch started it");
}

// A child that clears its environment and outlives its parent (reparented
// to init) keeps the process session of the process uiscope launched.
TEST_F(LaunchMarksTest, AnOrphanWithAClearedEnvironmentIsStillFound) {
  SpawnOptions spawn;
  spawn.argv = {"sh", "-c", "env -i /bin/sleep 31 & exit 0"};
  auto shell = Process::Spawn(spawn);
  ASSERT_TRUE(shell.ok());
  const int leader = (*shell)->pid();
  ASSERT_TRUE(RecordLaunched(leader).ok());  // a zombie by now, perhaps: recorded all the same
  int orphan = 0;
  ASSERT_TRUE(WaitUntil([&] {
    for (const ProcessEntry& p : ListProcesses()) {
      if (p.session == leader && p.pid != leader && p.live() && PidProgramName(p.pid) == "sleep") {
        orphan = p.pid;
      }
    }
    return orphan != 0;
  }));
  EXPECT_TRUE((*shell)->Wait(milliseconds(5000)).ok());  // the parent is gone
  EXPECT_NE(PidParent(orphan), leader);
  for (const std::string& e : PidEnvironment(orphan)) EXPECT_NE(e.rfind("UISCOPE", 0), 0u) << e;
  auto origin = FindLaunchOrigin(orphan);
  ASSERT_TRUE(origin.has_value());
  EXPECT_EQ(origin->pid, orphan);
  EXPECT_NE(origin->how.find(std::to_string(leader)), std::string::npos) << origin->how;
  kill(orphan, SIGKILL);
}

TEST_F(LaunchMarksTest, TheEnvironmentMarkIsFoundWithoutARecord) {
  SpawnOptions spawn;
  spawn.argv = {"sleep", "30"};
  spawn.env = {{kLaunchedEnv, "app_launch"}};
  auto marked = Process::Spawn(spawn);
  ASSERT_TRUE(marked.ok());
  auto origin = FindLaunchOrigin((*marked)->pid());
  ASSERT_TRUE(origin.has_value());
  EXPECT_NE(origin->how.find(kLaunchedEnv), std::string::npos) << origin->how;
}

}  // namespace
}  // namespace uiscope
