// `uiscope keys CHORD...` (DESIGN §11), e.g. `uiscope keys ctrl+a Delete`;
// `uiscope keys --action "Save As" --app gedit` presses the chord the app's
// shortcut registry gives that action (engine/shortcuts.h).
#include "engine/shortcuts.h"
#include "hands_commands.h"
#include "policy_flags.h"
#include "specialist_commands.h"

namespace uiscope::cli {

CLI::App* AddKeysCommand(CLI::App& app, GlobalFlags& g, KeysFlags& f) {
  auto* cmd = app.add_subcommand(
      "keys", "press key chords in order (ctrl+shift+s, Return, F5, super, alt+F4)");
  cmd->add_option("CHORD", f.chords, "chords, pressed in order");
  cmd->add_option("--target", f.target,
                  "focus this element (an ID) first; default: whatever has the focus (or "
                  "--name LABEL)");
  cmd->add_option("--action", f.action_name,
                  "instead of CHORD: the action whose shortcut to press, looked up in --app's "
                  "shortcut registry (`uiscope shortcuts --app APP`), e.g. \"Save As\"");
  AddActionFlags(cmd, g, f.action);
  return cmd;
}

int RunKeysCommand(const GlobalFlags& g, const KeysFlags& f) {
  ActionRequest r;
  r.kind = ActionKind::kPressKeys;
  if (!f.action_name.empty()) {
    if (!f.chords.empty() || !f.target.empty() || !f.action.name.empty() || f.action.app.empty()) {
      return Fail(g, MakeError(ErrorCode::kInvalidArgument,
                               "keys --action NAME needs --app APP, and no CHORD, --target or "
                               "--name"));
    }
    r.arguments = {{"action", f.action_name}, {"app", f.action.app}};
    auto store = OpenShortcutStore(g);
    const auto timeout = std::chrono::milliseconds(f.action.timeout_ms);
    ActionFlags flags = f.action;
    flags.app.clear();  // the app names the registry here, not a --name search
    return RunAction(g, flags, std::move(r), [&](Workspace::Lease& lease, ActionRequest& req) {
      auto hit = PlanShortcutPress(lease, f.action.app, f.action_name, store.get(), timeout, req);
      if (!hit.ok()) return Status(hit.error());
      req.arguments["keys"] = hit->keys;
      if (!g.json) {
        std::cerr << "\"" << hit->action << "\" is " << hit->keys << " (" << hit->source << ")\n";
      }
      return OkStatus();
    });
  }
  if (f.chords.empty()) {
    return Fail(g,
                MakeError(ErrorCode::kInvalidArgument,
                          "keys needs CHORD... (e.g. ctrl+s Return) or --action NAME --app APP"));
  }
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
  // One chord that opened a dialog naming an action is kept as a learned
  // shortcut (engine/shortcuts.h LearnShortcut), while memory learning is on.
  std::shared_ptr<memory::ShortcutStore> store;
  if (f.chords.size() == 1) {
    auto config = LoadPolicy(g);
    if (config.ok() && config->memory.learning) store = OpenShortcutStore(g);
  }
  return RunAction(g, f.action, std::move(r), nullptr,
                   [&](const ActionRequest& done, ActionResult& result) {
                     LearnShortcut(done, result, store.get());
                   });
}

}  // namespace uiscope::cli
