#include "support/desktop_fixture.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#if !defined(UISCOPE_FIXTURE_GTK3) || !defined(UISCOPE_FIXTURE_QT5) || \
    !defined(UISCOPE_FIXTURE_GTK4)
#error "UISCOPE_FIXTURE_{GTK3,QT5,GTK4} must name the fixture binaries (see CMakeLists.txt)"
#endif

namespace uiscope::test {
namespace {

using Clock = std::chrono::steady_clock;

// Removes the per-process state dir when the test binary exits.
class StateDirOwner {
 public:
  StateDirOwner() {
    std::string path = "/tmp/uiscope-test-state-XXXXXX";
    if (mkdtemp(path.data()) == nullptr) {
      path = "/tmp/uiscope-test-state-" + std::to_string(getpid());
      std::filesystem::create_directories(path);
    }
    path_ = path;
    setenv("UISCOPE_STATE_DIR", path_.c_str(), 1);
  }
  ~StateDirOwner() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string Basename(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

}  // namespace

bool WaitUntil(const std::function<bool()>& predicate, milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (true) {
    if (predicate()) return true;
    if (Clock::now() >= deadline) return predicate();
    std::this_thread::sleep_for(milliseconds(10));
  }
}

const std::string& TestStateDir() {
  static StateDirOwner owner;
  return owner.path();
}

Result<std::string> FixtureCommand(Process& fixture, std::string_view command,
                                   milliseconds timeout) {
  Status written = fixture.WriteLine(command);
  if (!written.ok()) return written.error();
  auto line = fixture.ReadLine(timeout);
  if (!line.ok()) {
    return MakeError(line.error().code,
                     "fixture command '" + std::string(command) + "': " + line.error().message);
  }
  if (*line == "ok") return std::string();
  if (line->starts_with("ok ")) return line->substr(3);
  return MakeError(ErrorCode::kInternal,
                   "fixture command '" + std::string(command) + "' answered: " + *line);
}

Result<ScreenBox> FixtureBox(Process& fixture, std::string_view command, milliseconds timeout) {
  auto answer = FixtureCommand(fixture, command, timeout);
  if (!answer.ok()) return answer.error();
  std::istringstream in(*answer);
  ScreenBox box;
  if (!(in >> box.x >> box.y >> box.w >> box.h)) {
    return MakeError(ErrorCode::kInternal,
                     "fixture command '" + std::string(command) + "': not a box: " + *answer);
  }
  return box;
}

TestDesktop::TestDesktop(const DesktopOptions& options) {
  TestStateDir();
  auto started = HeadlessDesktop::Start(options);
  if (!started.ok()) {
    error_ = started.error().ToString();
    ADD_FAILURE() << "cannot start a headless desktop: " << error_;
    return;
  }
  desktop_ = std::move(started.value());
}

TestDesktop::~TestDesktop() = default;

TestDesktop& TestDesktop::Shared() {
  // Constructed after the state dir (TestStateDir() runs in the
  // constructor), hence destroyed before it at exit.
  static TestDesktop shared;
  return shared;
}

const DesktopInfo& TestDesktop::info() const {
  static const DesktopInfo kNone;
  return desktop_ ? desktop_->info() : kNone;
}

std::vector<std::pair<std::string, std::string>> TestDesktop::Environment() const {
  return SessionEnvironment(info());
}

std::unique_ptr<Process> TestDesktop::Launch(SpawnOptions options) {
  if (!ok()) {
    ADD_FAILURE() << "no desktop: " << error_;
    return nullptr;
  }
  if (options.argv.empty()) {
    ADD_FAILURE() << "Launch: empty argv";
    return nullptr;
  }
  if (options.log_file.empty()) {
    options.log_file = info().runtime_dir + "/app-" + std::to_string(++launched_) + "-" +
                       Basename(options.argv[0]) + ".log";
  }
  last_log_ = options.log_file;
  const std::string program = options.argv[0];
  // Recorded as the session's, so stopping the desktop ends it even when it
  // hides its environment (Chromium).
  auto process = SpawnInSession(info(), std::move(options));
  if (!process.ok()) {
    ADD_FAILURE() << "cannot launch " << program << ": " << process.error().ToString();
    return nullptr;
  }
  return std::move(process.value());
}

std::unique_ptr<Process> TestDesktop::LaunchFixture(std::vector<std::string> args,
                                                    milliseconds timeout) {
  return LaunchControlled(UISCOPE_FIXTURE_GTK3, "gtk3", std::move(args), timeout);
}

std::unique_ptr<Process> TestDesktop::LaunchQtFixture(std::vector<std::string> args,
                                                      milliseconds timeout) {
  return LaunchControlled(UISCOPE_FIXTURE_QT5, "qt5", std::move(args), timeout);
}

std::unique_ptr<Process> TestDesktop::LaunchGtk4Fixture(std::vector<std::string> args,
                                                        milliseconds timeout) {
  return LaunchControlled(UISCOPE_FIXTURE_GTK4, "gtk4", std::move(args), timeout);
}

std::unique_ptr<Process> TestDesktop::LaunchControlled(const char* binary, const char* label,
                                                       std::vector<std::string> args,
                                                       milliseconds timeout) {
  SpawnOptions options;
  options.argv.emplace_back(binary);
  for (auto& arg : args) options.argv.push_back(std::move(arg));
  options.pipe_stdin = true;
  options.capture_stdout = true;
  if (ok()) {
    options.log_file =
        info().runtime_dir + "/app-" + std::to_string(++launched_) + "-fixture-" + label + ".log";
  }
  const std::string log_file = options.log_file;
  std::unique_ptr<Process> fixture = Launch(std::move(options));
  if (!fixture) return nullptr;

  const auto deadline = Clock::now() + timeout;
  while (true) {
    auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    auto line = fixture->ReadLine(std::max(left, milliseconds(0)));
    if (!line.ok()) {
      ADD_FAILURE() << label << " fixture did not get ready: " << line.error().ToString()
                    << "; its log " << log_file << ":" << FileTail(log_file, 20);
      return nullptr;
    }
    if (line->starts_with("ready ")) return fixture;
  }
}

}  // namespace uiscope::test
