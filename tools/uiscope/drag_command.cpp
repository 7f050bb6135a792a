// `uiscope drag FROM TO` (DESIGN §11).
#include "hands_commands.h"

namespace uiscope::cli {

CLI::App* AddDragCommand(CLI::App& app, GlobalFlags& g, DragFlags& f) {
  auto* cmd = app.add_subcommand("drag", "press at FROM, move to TO, release");
  cmd->add_option("FROM", f.from, "an element ID, or X,Y")->required();
  cmd->add_option("TO", f.to, "an element ID, or X,Y")->required();
  cmd->add_option("--button", f.button, "left (default), right or middle")
      ->check(CLI::IsMember({"left", "right", "middle"}));
  AddActionFlags(cmd, g, f.action, /*named=*/false);
  return cmd;
}

int RunDragCommand(const GlobalFlags& g, const DragFlags& f) {
  ActionRequest r;
  r.kind = ActionKind::kDrag;
  auto from = ParseActionTarget(f.from);
  if (!from.ok()) return Fail(g, from.error());
  auto to = ParseActionTarget(f.to);
  if (!to.ok()) return Fail(g, to.error());
  r.target = *from;
  r.to = *to;
  auto button = ParseMouseButton(f.button);
  if (!button.ok()) return Fail(g, button.error());
  r.button = *button;
  r.arguments = {{"from", f.from}, {"to", f.to}, {"button", f.button}};
  return RunAction(g, f.action, std::move(r));
}

}  // namespace uiscope::cli
