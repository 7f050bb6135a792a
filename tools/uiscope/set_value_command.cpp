// `uiscope set-value TARGET VALUE` (DESIGN §11).
#include "hands_commands.h"

namespace uiscope::cli {

CLI::App* AddSetValueCommand(CLI::App& app, GlobalFlags& g, SetValueFlags& f) {
  auto* cmd = app.add_subcommand("set-value",
                                 "set a slider's or spin button's number, a combo box's option, or a "
                                 "text field's text");
  // TARGET VALUE, or --name LABEL VALUE: the positionals are sorted out in
  // RunSetValueCommand.
  cmd->add_option("TARGET", f.target, "an element ID (or --name LABEL)");
  cmd->add_option("VALUE", f.value, "a number for sliders and spin buttons, an option's name for combo "
                  "boxes and lists, else text");
  AddActionFlags(cmd, g, f.action);
  return cmd;
}

int RunSetValueCommand(const GlobalFlags& g, const SetValueFlags& given) {
  SetValueFlags f = given;
  if (!f.action.name.empty() && f.value.empty()) std::swap(f.target, f.value);
  if (auto st = CheckTargetOrName(f.target, f.action, true, "set-value"); !st.ok()) {
    return Fail(g, st.error());
  }
  ActionRequest r;
  r.kind = ActionKind::kSetValue;
  if (!f.target.empty()) {
    auto target = ParseActionTarget(f.target);
    if (!target.ok()) return Fail(g, target.error());
    r.target = *target;
  }
  r.text = f.value;
  // The value as given: the safety policy masks it in the audit log when
  // the element is a password field.
  r.arguments = {{"target", f.target}, {"value", f.value}, {"via", f.action.via}};
  return RunAction(g, f.action, std::move(r));
}

}  // namespace uiscope::cli
