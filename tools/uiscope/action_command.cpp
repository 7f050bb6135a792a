// What the action verbs share: their flags, running one action on the
// desktop and printing its verification; and the registration of every
// verb of hands_commands.h.
#include <iostream>

#include "engine/find.h"
#include "engine/named_target.h"
#include "engine/workspace.h"
#include "hands_commands.h"
#include "mcp/wire.h"

namespace uiscope::cli {

Result<WorkspaceOptions> ActingWorkspace(const GlobalFlags& g, CliPolicy* policy) {
  auto p = PolicyFor(g);
  if (!p.ok()) return p.error();
  WorkspaceOptions where;
  where.display = g.display;
  where.session = g.session;
  where.start_headless = false;  // the CLI names the desktop; it never starts one
  where.hide_app = HiddenApps(p->config);
  where.gate = p->gate;
  where.learner = LearnerFor(p->config);
  if (policy != nullptr) *policy = std::move(p).value();
  return where;
}

void AddActionFlags(CLI::App* cmd, GlobalFlags& g, ActionFlags& f, bool named) {
  if (named) {
    cmd->add_option("--name", f.name,
                    "instead of TARGET: the element's label, found as `uiscope find` finds it; "
                    "several matches are held for a person's confirmation");
    cmd->add_option("--role", f.role, "with --name: only elements of this role (button, ...)");
    cmd->add_option("--app", f.app, "with --name: only in this application");
    cmd->add_flag("--exact", f.exact, "with --name: the whole label, exactly as written");
  }
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
  cmd->add_option("--wait-confirm", f.wait_confirm_s,
                  "when the safety policy holds the action, wait up to SECONDS for a person to "
                  "decide (`uiscope confirm TOKEN --approve`), then perform it")
      ->check(CLI::Range(0, 3600));
  cmd->add_option("--config", g.config,
                  "safety policy file (default ~/.config/uiscope/config.json)");
  cmd->add_option("--display", g.display, "X display to use (default: $DISPLAY)");
  cmd->add_option(
      "--session", g.session,
      "uiscope session ID, headless or VNC (default: $UISCOPE_SESSION, else the display)");
  cmd->add_flag("--json", g.json, "print the result as JSON (the MCP tool's structuredContent)");
}

Status CheckTargetOrName(const std::string& target, const ActionFlags& f, bool required,
                         const char* verb) {
  if (!f.name.empty() && !target.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     std::string(verb) + ": give either TARGET (an ID or X,Y) or --name, not both");
  }
  if (f.name.empty() && (!f.role.empty() || !f.app.empty() || f.exact)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     std::string(verb) + ": --role, --app and --exact go with --name");
  }
  if (required && f.name.empty() && target.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     std::string(verb) +
                         " needs TARGET (an element ID from observe / find, or X,Y) or --name "
                         "LABEL");
  }
  return OkStatus();
}

namespace {

// The result as FormatActionResult words it, without its hint for agents
// about confirmation_token: the CLI says how to approve in its own words
// (HeldHint, WaitForApproval).
std::string FormatForPeople(const ActionResult& result) {
  ActionResult shown = result;
  shown.decision.token.clear();
  return FormatActionResult(shown);
}

}  // namespace

int RunAction(const GlobalFlags& g, const ActionFlags& f, ActionRequest request,
              const PrepareAction& prepare, const AfterAction& after) {
  auto via = ParseVia(f.via);
  if (!via.ok()) return Fail(g, via.error());
  request.via = *via;
  request.verify.settle = std::chrono::milliseconds(f.settle_ms);
  request.timeout = std::chrono::milliseconds(f.timeout_ms);
  request.verify.tree_timeout = request.timeout;
  request.confirmation_token = f.confirmation_token;
  std::optional<NamedTarget> named;
  if (!f.name.empty()) {
    NamedTarget t;
    t.name = f.name;
    t.exact = f.exact;
    t.app = f.app;
    if (!f.role.empty()) {
      auto role = ParseRole(f.role);
      if (!role.ok()) return Fail(g, role.error());
      t.role = *role;
    }
    request.arguments["name"] = NamedTargetToJson(t);
    named = std::move(t);
  }

  CliPolicy policy;
  auto where = ActingWorkspace(g, &policy);
  if (!where.ok()) return Fail(g, where.error());
  Workspace workspace(*where);
  auto lease = workspace.Acquire("", Workspace::Need::kHands);
  if (!lease.ok()) return Fail(g, lease.error());
  if (prepare) {
    if (auto st = prepare(*lease, request); !st.ok()) return Fail(g, st.error());
  }
  auto perform = [&] {
    return named ? PerformActionOnNamed(*lease, request, *named) : PerformAction(*lease, request);
  };
  auto result = perform();
  if (result.ok() && result->decision.verdict == GateVerdict::kNeedsConfirmation &&
      f.wait_confirm_s > 0 && !result->decision.token.empty()) {
    std::cerr << FormatForPeople(*result);
    if (WaitForApproval(*policy.gate, result->decision.token, f.wait_confirm_s)) {
      request.confirmation_token = result->decision.token;
      result = perform();
    }
  }
  if (!result.ok()) return Fail(g, result.error());
  if (after) after(request, *result);
  if (g.json) {
    std::cout << ActionResultToJson(*result).dump(-1, ' ', false,
                                                  nlohmann::json::error_handler_t::replace)
              << "\n";
  } else {
    (result->performed ? std::cout : std::cerr) << FormatForPeople(*result);
  }
  if (result->decision.verdict == GateVerdict::kNeedsConfirmation) {
    std::cerr << HeldHint(result->decision, "the same command");
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
