// `uiscope set-value TARGET VALUE` (DESIGN §11).
#include "hands_commands.h"

namespace uiscope::cli {

CLI::App* AddSetValueCommand(CLI::App& app, GlobalFlags& g, SetValueFlags& f) {
  auto* cmd = app.add_subcommand("set-value",
                                 "set a slider's or spin button's number, or a text field's text");
  cmd->add_option("TARGET", f.target, "an element ID")->required();
  cmd->add_option("VALUE", f.value, "a number for sliders and spin buttons, else text")->required();
  AddActionFlags(cmd, g, f.action);
  return cmd;
}

int RunSetValueCommand(const GlobalFlags& g, const SetValueFlags& f) {
  ActionRequest r;
  r.kind = ActionKind::kSetValue;
  auto target = ParseActionTarget(f.target);
  if (!target.ok()) return Fail(g, target.error());
  r.target = *target;
  r.text = f.value;
  r.arguments = {{"target", f.target}, {"via", f.action.via}};
  return RunAction(g, f.action, std::move(r));
}

}  // namespace uiscope::cli
