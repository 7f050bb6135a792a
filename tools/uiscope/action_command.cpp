// What the action verbs share: their flags, running one action on the
// desktop and printing its verification; and the registration of every
// verb of hands_commands.h.
#include <iostream>

#include "engine/workspace.h"
#include "hands_commands.h"

namespace uiscope::cli {

WorkspaceOptions ActingWorkspace(const GlobalFlags& g) {
  WorkspaceOptions where;
  where.display = g.display;
  where.start_headless = false;  // the CLI names the desktop; it never starts one
  return where;
}

void AddActionFlags(CLI::App* cmd, GlobalFlags& g, ActionFlags& f) {
  cmd->add_option("--via", f.via,
                  "auto (the element's accessibility action / text interface when it has one, "
                  "else input), accessibility or xtest")
      ->check(CLI::IsMember({"auto", "accessibility", "xtest"}));
  cmd->add_option("--settle-ms", f.settle_ms,
                  "how long to wait for an effect before reporting none (default 500)")
      ->check(CLI::Range(0, 60000));
  cmd->add_option("--timeout-ms", f.timeout_ms,
                  "deadline of each accessibility walk and call (default 2000)")
      ->check(CLI::Range(10, 600000));
  cmd->add_option("--confirmation-token", f.confirmation_token,
                  "approval of an action the safety policy held for confirmation");
  cmd->add_option("--display", g.display, "X display to use (default: $DISPLAY)");
  cmd->add_flag("--json", g.json, "print the result as JSON (the MCP tool's structuredContent)");
}

int RunAction(const GlobalFlags& g, const ActionFlags& f, ActionRequest request) {
  auto via = ParseVia(f.via);
  if (!via.ok()) return Fail(g, via.error());
  request.via = *via;
  request.verify.settle = std::chrono::milliseconds(f.settle_ms);
  request.timeout = std::chrono::milliseconds(f.timeout_ms);
  request.verify.tree_timeout = request.timeout;
  request.confirmation_token = f.confirmation_token;

  Workspace workspace(ActingWorkspace(g));
  auto lease = workspace.Acquire("", Workspace::Need::kHands);
  if (!lease.ok()) return Fail(g, lease.error());
  auto result = PerformAction(*lease, request);
  if (!result.ok()) return Fail(g, result.error());
  if (g.json) {
    std::cout << ActionResultToJson(*result).dump(-1, ' ', false,
                                                  nlohmann::json::error_handler_t::replace)
              << "\n";
  } else {
    (result->performed ? std::cout : std::cerr) << FormatActionResult(*result);
  }
  return result->performed ? kExitOk : kExitFailed;
}

std::unique_ptr<HandsCommands> HandsCommands::Add(CLI::App& app, GlobalFlags& g) {
  std::unique_ptr<HandsCommands> c(new HandsCommands(g));
  c->click_cmd_ = AddClickCommand(app, g, c->click_);
  c->type_cmd_ = AddTypeCommand(app, g, c->type_);
  c->keys_cmd_ = AddKeysCommand(app, g, c->keys_);
  c->scroll_cmd_ = AddScrollCommand(app, g, c->scroll_);
  c->drag_cmd_ = AddDragCommand(app, g, c->drag_);
  c->set_value_cmd_ = AddSetValueCommand(app, g, c->set_value_);
  c->wait_for_cmd_ = AddWaitForCommand(app, g, c->wait_for_);
  c->app_cmds_ = AddAppCommand(app, g, c->app_);
  c->windows_cmd_ = AddWindowsCommand(app, g);
  return c;
}

std::optional<int> HandsCommands::RunParsed() {
  if (click_cmd_->parsed()) return RunClickCommand(g_, click_);
  if (type_cmd_->parsed()) return RunTypeCommand(g_, type_);
  if (keys_cmd_->parsed()) return RunKeysCommand(g_, keys_);
  if (scroll_cmd_->parsed()) return RunScrollCommand(g_, scroll_);
  if (drag_cmd_->parsed()) return RunDragCommand(g_, drag_);
  if (set_value_cmd_->parsed()) return RunSetValueCommand(g_, set_value_);
  if (wait_for_cmd_->parsed()) return RunWaitForCommand(g_, wait_for_);
  if (app_cmds_.launch->parsed()) {
    app_.command = app_cmds_.launch->remaining();
    return RunAppLaunchCommand(g_, app_);
  }
  if (app_cmds_.list->parsed()) return RunAppListCommand(g_, app_);
  if (app_cmds_.focus->parsed()) return RunAppFocusCommand(g_, app_);
  if (app_cmds_.close->parsed()) return RunAppCloseCommand(g_, app_);
  if (windows_cmd_->parsed()) return RunWindowsCommand(g_);
  return std::nullopt;
}

}  // namespace uiscope::cli
