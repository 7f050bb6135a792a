// `uiscope scroll TARGET [--dx N] [--dy N]` (DESIGN §11).
#include "hands_commands.h"

namespace uiscope::cli {

CLI::App* AddScrollCommand(CLI::App& app, GlobalFlags& g, ScrollFlags& f) {
  auto* cmd = app.add_subcommand("scroll", "turn the mouse wheel over an element or a point");
  cmd->add_option("TARGET", f.target, "an element ID, or X,Y (or --name LABEL)");
  cmd->add_option("--dx", f.dx, "wheel steps to the right (negative: left)")
      ->check(CLI::Range(-100, 100));
  cmd->add_option("--dy", f.dy, "wheel steps down (negative: up)")->check(CLI::Range(-100, 100));
  AddActionFlags(cmd, g, f.action);
  return cmd;
}

int RunScrollCommand(const GlobalFlags& g, const ScrollFlags& f) {
  ActionRequest r;
  r.kind = ActionKind::kScroll;
  if (auto st = CheckTargetOrName(f.target, f.action, true, "scroll"); !st.ok()) {
    return Fail(g, st.error());
  }
  if (!f.target.empty()) {
    auto target = ParseActionTarget(f.target);
    if (!target.ok()) return Fail(g, target.error());
    r.target = *target;
  }
  r.dx = f.dx;
  r.dy = f.dy;
  r.arguments = {{"target", f.target}, {"dx", f.dx}, {"dy", f.dy}};
  return RunAction(g, f.action, std::move(r));
}

}  // namespace uiscope::cli
