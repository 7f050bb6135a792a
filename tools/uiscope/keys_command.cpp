// `uiscope keys CHORD...` (DESIGN §11), e.g. `uiscope keys ctrl+a Delete`.
#include "hands_commands.h"

namespace uiscope::cli {

CLI::App* AddKeysCommand(CLI::App& app, GlobalFlags& g, KeysFlags& f) {
  auto* cmd = app.add_subcommand(
      "keys", "press key chords in order (ctrl+shift+s, Return, F5, super, alt+F4)");
  cmd->add_option("CHORD", f.chords, "chords, pressed in order")->required();
  cmd->add_option("--target", f.target,
                  "focus this element (an ID) first; default: whatever has the focus (or "
                  "--name LABEL)");
  AddActionFlags(cmd, g, f.action);
  return cmd;
}

int RunKeysCommand(const GlobalFlags& g, const KeysFlags& f) {
  ActionRequest r;
  r.kind = ActionKind::kPressKeys;
  if (auto st = CheckTargetOrName(f.target, f.action, false, "keys"); !st.ok()) {
    return Fail(g, st.error());
  }
  if (!f.target.empty()) {
    auto target = ParseActionTarget(f.target);
    if (!target.ok()) return Fail(g, target.error());
    r.target = *target;
  }
  r.keys = f.chords;
  r.arguments = {{"keys", f.chords}, {"target", f.target}};
  return RunAction(g, f.action, std::move(r));
}

}  // namespace uiscope::cli
