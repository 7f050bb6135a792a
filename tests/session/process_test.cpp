#include "session/process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>

namespace uiscope {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// GCC 12 warns (-Wmissing-field-initializers) on designated initializers
// that leave fields out, so options are built step by step.
SpawnOptions Options(std::vector<std::string> argv, bool capture_stdout = false,
                     bool pipe_stdin = false) {
  SpawnOptions options;
  options.argv = std::move(argv);
  options.capture_stdout = capture_stdout;
  options.pipe_stdin = pipe_stdin;
  return options;
}

std::unique_ptr<Process> SpawnOrDie(const SpawnOptions& options) {
  auto process = Process::Spawn(options);
  EXPECT_TRUE(process.ok()) << process.error().ToString();
  return process.ok() ? std::move(process.value()) : nullptr;
}

TEST(ProcessTest, SpawnOfMissingBinaryIsAnErrorNamingIt) {
  auto process = Process::Spawn(Options({"uiscope-no-such-binary", "--x"}));
  ASSERT_FALSE(process.ok());
  EXPECT_EQ(process.error().code, ErrorCode::kNotFound);
  EXPECT_NE(process.error().message.find("uiscope-no-such-binary"), std::string::npos)
      << process.error().message;

  auto absolute = Process::Spawn(Options({"/nonexistent/dir/tool"}));
  ASSERT_FALSE(absolute.ok());
  EXPECT_NE(absolute.error().message.find("/nonexistent/dir/tool"), std::string::npos);
}

TEST(ProcessTest, ExecFailureOtherThanMissingIsReported) {
  // Exists but is not executable: the child's execve() fails, and the
  // parent learns it through the close-on-exec pipe.
  auto process = Process::Spawn(Options({"/etc/hostname"}));
  ASSERT_FALSE(process.ok());
  EXPECT_NE(process.error().message.find("/etc/hostname"), std::string::npos)
      << process.error().message;
}

TEST(ProcessTest, ReadLineAndWriteLineRoundTripThroughCat) {
  auto cat = SpawnOrDie(Options({"cat"}, true, true));
  ASSERT_NE(cat, nullptr);
  ASSERT_TRUE(cat->WriteLine("hello world").ok());
  ASSERT_TRUE(cat->WriteLine("second").ok());
  auto first = cat->ReadLine(milliseconds(5000));
  ASSERT_TRUE(first.ok()) << first.error().ToString();
  EXPECT_EQ(*first, "hello world");
  auto second = cat->ReadLine(milliseconds(5000));
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, "second");

  // End of input ends cat; then stdout reports end of file.
  cat->CloseStdin();
  auto status = cat->Wait(milliseconds(5000));
  ASSERT_TRUE(status.ok()) << status.error().ToString();
  EXPECT_EQ(*status, 0);
  auto eof = cat->ReadLine(milliseconds(1000));
  ASSERT_FALSE(eof.ok());
  EXPECT_EQ(eof.error().code, ErrorCode::kUnavailable);
}

TEST(ProcessTest, ReadLineTimesOutWithoutBlocking) {
  auto sleeper = SpawnOrDie(Options({"sleep", "30"}, true));
  ASSERT_NE(sleeper, nullptr);
  const auto start = Clock::now();
  auto line = sleeper->ReadLine(milliseconds(100));
  ASSERT_FALSE(line.ok());
  EXPECT_EQ(line.error().code, ErrorCode::kTimeout);
  EXPECT_LT(Clock::now() - start, milliseconds(2000));
}

TEST(ProcessTest, WriteLineToExitedChildIsAnErrorNotSigpipe) {
  auto child = SpawnOrDie(Options({"true"}, false, true));
  ASSERT_NE(child, nullptr);
  ASSERT_TRUE(child->Wait(milliseconds(5000)).ok());
  // Without the SIGPIPE handling this would kill the test binary.
  Status written = child->WriteLine("anyone there?");
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().code, ErrorCode::kUnavailable);
  sigset_t pending;
  sigpending(&pending);
  EXPECT_FALSE(sigismember(&pending, SIGPIPE));
}

TEST(ProcessTest, WaitReportsExitCodeAndSignal) {
  auto exits = SpawnOrDie(Options({"sh", "-c", "exit 7"}));
  ASSERT_NE(exits, nullptr);
  auto code = exits->Wait(milliseconds(5000));
  ASSERT_TRUE(code.ok());
  EXPECT_EQ(*code, 7);
  EXPECT_FALSE(exits->Running());

  auto killed = SpawnOrDie(Options({"sleep", "30"}));
  ASSERT_NE(killed, nullptr);
  EXPECT_TRUE(killed->Running());
  auto still = killed->Wait(milliseconds(50));
  ASSERT_FALSE(still.ok());
  EXPECT_EQ(still.error().code, ErrorCode::kTimeout);
  kill(killed->pid(), SIGKILL);
  auto signalled = killed->Wait(milliseconds(5000));
  ASSERT_TRUE(signalled.ok());
  EXPECT_EQ(*signalled, 128 + SIGKILL);
}

TEST(ProcessTest, TerminateEndsAProcessIgnoringSigterm) {
  // `sleep` inherits the ignored SIGTERM, so only SIGKILL ends either.
  auto stubborn = SpawnOrDie(Options({"sh", "-c", "trap '' TERM; echo trapped; sleep 30"}, true));
  ASSERT_NE(stubborn, nullptr);
  ASSERT_EQ(stubborn->ReadLine(milliseconds(5000)).value(), "trapped");
  const int pid = stubborn->pid();
  const auto start = Clock::now();
  ASSERT_TRUE(stubborn->Terminate(milliseconds(2000)).ok());
  EXPECT_GE(Clock::now() - start, milliseconds(1900));  // the grace is given
  EXPECT_LT(Clock::now() - start, milliseconds(3000));
  EXPECT_FALSE(stubborn->Running());
  EXPECT_FALSE(PidAlive(pid));
  // The whole group went, the shell's `sleep` included.
  EXPECT_FALSE(ProcessGroupAlive(pid));
}

TEST(ProcessTest, EnvironmentIsAddedOverriddenAndUnset) {
  setenv("UISCOPE_TEST_KEEP", "kept", 1);
  setenv("UISCOPE_TEST_DROP", "dropped", 1);
  SpawnOptions options =
      Options({"sh", "-c", "echo \"$UISCOPE_TEST_KEEP|${UISCOPE_TEST_DROP-unset}|$FOO\""}, true);
  options.env = {{"FOO", "one"}, {"FOO", "two"}};
  options.unset_env = {"UISCOPE_TEST_DROP"};
  auto shell = SpawnOrDie(options);
  unsetenv("UISCOPE_TEST_KEEP");
  unsetenv("UISCOPE_TEST_DROP");
  ASSERT_NE(shell, nullptr);
  auto line = shell->ReadLine(milliseconds(5000));
  ASSERT_TRUE(line.ok()) << line.error().ToString();
  EXPECT_EQ(*line, "kept|unset|two");
}

TEST(ProcessTest, ChildStartsWithCleanDescriptorsAndSession) {
  // A descriptor opened without O_CLOEXEC must not leak into the child.
  int leaked = dup(STDERR_FILENO);
  ASSERT_GE(leaked, 0);
  auto shell =
      SpawnOrDie(Options({"sh", "-c",
                          "test -e /proc/self/fd/" + std::to_string(leaked) +
                              " && echo leaked || echo clean; cut -d' ' -f6 /proc/$$/stat"},
                         true));
  close(leaked);
  ASSERT_NE(shell, nullptr);
  auto fds = shell->ReadLine(milliseconds(5000));
  ASSERT_TRUE(fds.ok());
  EXPECT_EQ(*fds, "clean");
  auto sid = shell->ReadLine(milliseconds(5000));
  ASSERT_TRUE(sid.ok());
  EXPECT_EQ(std::stoi(*sid), shell->pid());  // setsid(): its own session
}

TEST(ProcessTest, DestructorTerminatesAndReleaseLeavesRunning) {
  int pid = 0;
  {
    auto sleeper = SpawnOrDie(Options({"sleep", "30"}));
    ASSERT_NE(sleeper, nullptr);
    pid = sleeper->pid();
    EXPECT_TRUE(PidAlive(pid));
  }
  EXPECT_FALSE(PidAlive(pid));

  {
    auto sleeper = SpawnOrDie(Options({"sleep", "30"}));
    ASSERT_NE(sleeper, nullptr);
    pid = sleeper->pid();
    sleeper->Release();
  }
  EXPECT_TRUE(PidAlive(pid));
  EXPECT_EQ(PidProgramName(pid), "sleep");
  EXPECT_EQ(PidCmdline(pid), "sleep 30");
  EXPECT_TRUE(TerminatePids({pid}, milliseconds(2000)).empty());
  EXPECT_FALSE(PidAlive(pid));
}

TEST(ProcessTest, PidHelpers) {
  EXPECT_TRUE(PidAlive(getpid()));
  EXPECT_FALSE(PidAlive(0));
  EXPECT_FALSE(PidAlive(-1));
  EXPECT_EQ(PidParent(getpid()), getppid());
  EXPECT_FALSE(PidCmdline(getpid()).empty());
  EXPECT_EQ(PidCmdline(0), "");

  // Unique per test process: test binaries may run in parallel.
  // (Appended, not `"t" + std::to_string(...)`: GCC 12 -O3 warns falsely,
  // -Wrestrict, GCC bug 105329.)
  std::string tag = "t";
  tag += std::to_string(getpid());
  SpawnOptions options = Options({"sleep", "30"});
  options.env = {{"UISCOPE_TEST_TAG", tag}};
  auto tagged = SpawnOrDie(options);
  ASSERT_NE(tagged, nullptr);
  std::vector<int> pids = PidsWithEnvironment("UISCOPE_TEST_TAG", tag);
  EXPECT_EQ(pids, std::vector<int>{tagged->pid()});
  EXPECT_TRUE(PidsWithEnvironment("UISCOPE_TEST_TAG", tag + "0").empty());
}

}  // namespace
}  // namespace uiscope
