#include "support/fixture_app.h"

#include <gtest/gtest.h>

#include <sstream>

#include "core/node.h"
#include "platform/accessibility.h"
#include "support/chromium_fixture.h"
#include "support/tree_queries.h"

namespace uiscope::test {
namespace {

// The GTK 3, GTK 4 and Qt fixtures: a process answering on stdin/stdout.
class ControlChannelApp final : public FixtureApp {
 public:
  ControlChannelApp(Toolkit toolkit, std::unique_ptr<Process> process, std::string app_name,
                    std::string log_file)
      : toolkit_(toolkit),
        process_(std::move(process)),
        app_name_(std::move(app_name)),
        log_file_(std::move(log_file)) {}

  Toolkit toolkit() const override { return toolkit_; }
  int pid() const override { return process_->pid(); }
  const std::string& app_name() const override { return app_name_; }
  Result<std::string> Command(std::string_view command, milliseconds timeout) override {
    return FixtureCommand(*process_, command, timeout);
  }
  std::string Log() const override { return FileTail(log_file_, 100000); }
  Status Quit(milliseconds timeout) override {
    auto answer = FixtureCommand(*process_, "quit", timeout);
    if (!answer.ok()) return answer.error();
    auto exited = process_->Wait(timeout);
    if (!exited.ok()) return exited.error();
    return OkStatus();
  }
  Status Terminate(milliseconds grace) override { return process_->Terminate(grace); }

 private:
  Toolkit toolkit_;
  std::unique_ptr<Process> process_;
  std::string app_name_;
  std::string log_file_;
};

}  // namespace

std::string_view ToolkitName(Toolkit toolkit) {
  switch (toolkit) {
    case Toolkit::kGtk3:
      return "gtk3";
    case Toolkit::kGtk4:
      return "gtk4";
    case Toolkit::kQt5:
      return "qt5";
    case Toolkit::kChromium:
      return "chromium";
  }
  return "unknown";
}

Result<ScreenBox> FixtureApp::Box(std::string_view command, milliseconds timeout) {
  auto answer = Command(command, timeout);
  if (!answer.ok()) return answer.error();
  std::istringstream in(*answer);
  ScreenBox box;
  if (!(in >> box.x >> box.y >> box.w >> box.h)) {
    return MakeError(ErrorCode::kInternal,
                     "command '" + std::string(command) + "': not a box: " + *answer);
  }
  return box;
}

std::unique_ptr<FixtureApp> LaunchApp(TestDesktop& desktop, Toolkit toolkit,
                                      const AppOptions& options, milliseconds timeout) {
  if (toolkit == Toolkit::kChromium) return LaunchChromium(desktop, options, timeout);

  std::vector<std::string> args = {"--rows", std::to_string(options.rows)};
  if (!options.title.empty()) args.insert(args.end(), {"--title", options.title});
  if (!options.name.empty()) args.insert(args.end(), {"--name", options.name});
  if (options.position) {
    args.insert(args.end(), {"--position", std::to_string(options.position->first) + "," +
                                               std::to_string(options.position->second)});
  }
  std::unique_ptr<Process> process;
  std::string default_name;
  switch (toolkit) {
    case Toolkit::kGtk3:
      process = desktop.LaunchFixture(std::move(args), timeout);
      default_name = "uiscope-fixture";
      break;
    case Toolkit::kGtk4:
      process = desktop.LaunchGtk4Fixture(std::move(args), timeout);
      default_name = "uiscope-fixture-gtk4";
      break;
    case Toolkit::kQt5:
      process = desktop.LaunchQtFixture(std::move(args), timeout);
      default_name = "uiscope-fixture-qt5";
      break;
    case Toolkit::kChromium:
      break;
  }
  if (!process) return nullptr;
  auto app = std::make_unique<ControlChannelApp>(toolkit, std::move(process),
                                                 options.name.empty() ? default_name : options.name,
                                                 desktop.last_log());
  Status accessible = WaitForAccessibleForm(desktop, app->pid(), timeout);
  if (!accessible.ok()) {
    ADD_FAILURE() << ToolkitName(toolkit) << " fixture: " << accessible.error().message
                  << "; its log:" << FileTail(desktop.last_log(), 20);
    return nullptr;
  }
  return app;
}

Status WaitForAccessibleForm(TestDesktop& desktop, int pid, milliseconds timeout) {
  AtspiOptions atspi;
  atspi.session_bus_address = desktop.info().dbus_address;
  atspi.display = desktop.info().display_name;
  auto ax = ConnectAtspi(atspi);
  if (!ax.ok()) return ax.error();
  std::string last = "no tree yet";
  bool shown = WaitUntil(
      [&] {
        TreeRequest request;
        request.pid = pid;
        auto tree = (*ax)->Tree(request);
        if (!tree.ok()) {
          last = tree.error().ToString();
          return false;
        }
        const Node* login = FindNode(tree->apps, Role::kButton, "Login");
        last = "no \"Login\" button with bounds in its tree";
        return login != nullptr && login->bounds.has_value();
      },
      timeout);
  if (!shown) {
    return MakeError(ErrorCode::kTimeout,
                     "the form never appeared in the accessibility tree (" + last + ")");
  }
  return OkStatus();
}

}  // namespace uiscope::test
