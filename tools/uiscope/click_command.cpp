// `uiscope click TARGET [--button left|right|middle] [--double]` (DESIGN §11).
#include "hands_commands.h"

namespace uiscope::cli {

CLI::App* AddClickCommand(CLI::App& app, GlobalFlags& g, ClickFlags& f) {
  auto* cmd = app.add_subcommand(
      "click", "click an element (by ID, or by label with --name) or a screen point (X,Y)");
  cmd->add_option("TARGET", f.target, "an element ID from observe / find, or X,Y");
  cmd->add_option("--button", f.button, "left (default), right or middle")
      ->check(CLI::IsMember({"left", "right", "middle"}));
  cmd->add_flag("--double", f.double_click, "a double click");
  cmd->add_option("--action", f.accessibility_action,
                  "the accessibility action to invoke (default: click, press, toggle, ... "
                  "whichever the element has)");
  AddActionFlags(cmd, g, f.action);
  return cmd;
}

int RunClickCommand(const GlobalFlags& g, const ClickFlags& f) {
  ActionRequest r;
  r.kind = ActionKind::kClick;
  if (auto st = CheckTargetOrName(f.target, f.action, true, "click"); !st.ok()) {
    return Fail(g, st.error());
  }
  if (!f.target.empty()) {
    auto target = ParseActionTarget(f.target);
    if (!target.ok()) return Fail(g, target.error());
    r.target = *target;
  }
  auto button = ParseMouseButton(f.button);
  if (!button.ok()) return Fail(g, button.error());
  r.button = *button;
  r.count = f.double_click ? 2 : 1;
  r.action = f.accessibility_action;
  r.arguments = {{"target", f.target},
                 {"button", f.button},
                 {"double", f.double_click},
                 {"via", f.action.via}};
  return RunAction(g, f.action, std::move(r));
}

}  // namespace uiscope::cli
