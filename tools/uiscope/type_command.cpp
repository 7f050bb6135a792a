// `uiscope type TARGET TEXT [--replace]` (DESIGN §11).
#include "hands_commands.h"

namespace uiscope::cli {

CLI::App* AddTypeCommand(CLI::App& app, GlobalFlags& g, TypeFlags& f) {
  auto* cmd = app.add_subcommand(
      "type", "type TEXT into an element (any Unicode; appended unless --replace)");
  cmd->add_option("TARGET", f.target,
                  "an element ID, or X,Y; \"focused\" types into whatever has the focus")
      ->required();
  cmd->add_option("TEXT", f.text, "the text (UTF-8; newlines press Return)")->required();
  cmd->add_flag("--replace", f.replace, "replace the element's text instead of appending");
  AddActionFlags(cmd, g, f.action);
  return cmd;
}

int RunTypeCommand(const GlobalFlags& g, const TypeFlags& f) {
  ActionRequest r;
  r.kind = ActionKind::kTypeText;
  if (f.target != "focused") {
    auto target = ParseActionTarget(f.target);
    if (!target.ok()) return Fail(g, target.error());
    r.target = *target;
  }
  r.text = f.text;
  r.replace = f.replace;
  // The text itself is for the gate to judge (PlannedAction::text); the
  // arguments stay free of it so that no log can leak it by accident.
  r.arguments = {{"target", f.target},
                 {"replace", f.replace},
                 {"via", f.action.via},
                 {"text_chars", f.text.size()}};
  return RunAction(g, f.action, std::move(r));
}

}  // namespace uiscope::cli
