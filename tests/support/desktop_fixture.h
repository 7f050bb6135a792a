// Test helpers for suites labelled `desktop`: a headless desktop per test (or
// one shared per test binary), the GTK3 fixture app launched into it, and a
// polling wait. For tests only.
//
// - TestDesktop points UISCOPE_STATE_DIR at a private temp dir of this test
//   process (created once, removed at exit) before starting anything, so
//   tests never see or touch the user's sessions, and parallel test binaries
//   never see each other's.
// - Failures are reported as gtest failures (ADD_FAILURE) with the cause,
//   and as a null / false return the test can ASSERT on.
// - Not thread-safe: use from the test's main thread.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"
#include "session/headless_desktop.h"
#include "session/process.h"

namespace uiscope::test {

using std::chrono::milliseconds;

// Polls `predicate` every 10 ms until it returns true or `timeout` passes.
// Returns the predicate's last answer (true on success). Never a fixed sleep:
// it returns as soon as the condition holds.
bool WaitUntil(const std::function<bool()>& predicate, milliseconds timeout = milliseconds(5000));

// The per-process registry dir; sets UISCOPE_STATE_DIR on first call.
const std::string& TestStateDir();

// A box in root-window (screen) pixels, as the fixture's control channel
// reports it.
struct ScreenBox {
  int x = 0, y = 0, w = 0, h = 0;
  bool operator==(const ScreenBox&) const = default;
};

// Sends one control command to a fixture started by LaunchFixture() and
// returns its answer without the "ok" / "ok " prefix. An "error ..." answer
// becomes kInternal, no answer in time kTimeout.
Result<std::string> FixtureCommand(Process& fixture, std::string_view command,
                                   milliseconds timeout = milliseconds(5000));
// FixtureCommand() for the commands answering "ok X Y W H" (geometry, widget
// NAME, move X Y).
Result<ScreenBox> FixtureBox(Process& fixture, std::string_view command,
                             milliseconds timeout = milliseconds(5000));

class TestDesktop {
 public:
  // Starts a desktop; check ok() (the failure is also reported to gtest).
  explicit TestDesktop(const DesktopOptions& options = {});
  ~TestDesktop();  // stops the desktop and everything launched into it
  TestDesktop(const TestDesktop&) = delete;
  TestDesktop& operator=(const TestDesktop&) = delete;

  // One desktop for the whole test binary, started on first use and stopped
  // at exit. For suites whose tests do not disturb each other.
  static TestDesktop& Shared();

  bool ok() const { return desktop_ != nullptr; }
  // Why the start failed (empty when ok()).
  const std::string& error() const { return error_; }
  const DesktopInfo& info() const;
  HeadlessDesktop* desktop() { return desktop_.get(); }
  // SessionEnvironment(info()).
  std::vector<std::pair<std::string, std::string>> Environment() const;

  // Starts `options.argv` in the session (SpawnInSession(): session
  // environment added, recorded as the session's; stderr to a log in the
  // session's runtime dir). nullptr and a gtest failure if
  // it cannot be started.
  std::unique_ptr<Process> Launch(SpawnOptions options);

  // Starts the GTK3 fixture (UISCOPE_FIXTURE_GTK3) with `args`, stdin piped
  // and stdout captured, and waits up to `timeout` for its "ready PID" line.
  // nullptr and a gtest failure (with the app's log) if it did not get ready.
  // The stdout/stderr log of the last app launched (for "the app logged no
  // warning" checks).
  const std::string& last_log() const { return last_log_; }

  std::unique_ptr<Process> LaunchFixture(std::vector<std::string> args = {},
                                         milliseconds timeout = milliseconds(10000));
  // The same for the Qt 5 Widgets fixture (UISCOPE_FIXTURE_QT5) and the GTK 4
  // fixture (UISCOPE_FIXTURE_GTK4), which take the same options and speak
  // the same control channel. For Chromium and toolkit-neutral tests see
  // fixture_app.h.
  std::unique_ptr<Process> LaunchQtFixture(std::vector<std::string> args = {},
                                           milliseconds timeout = milliseconds(20000));
  std::unique_ptr<Process> LaunchGtk4Fixture(std::vector<std::string> args = {},
                                             milliseconds timeout = milliseconds(20000));

 private:
  std::unique_ptr<Process> LaunchControlled(const char* binary, const char* label,
                                            std::vector<std::string> args, milliseconds timeout);

  std::unique_ptr<HeadlessDesktop> desktop_;
  std::string error_;
  int launched_ = 0;
  std::string last_log_;
};

}  // namespace uiscope::test
