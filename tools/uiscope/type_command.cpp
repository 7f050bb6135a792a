// `uiscope type TARGET TEXT [--replace]` (DESIGN §11).
#include <iostream>
#include <iterator>

#include "hands_commands.h"

namespace uiscope::cli {

CLI::App* AddTypeCommand(CLI::App& app, GlobalFlags& g, TypeFlags& f) {
  auto* cmd = app.add_subcommand(
      "type", "type TEXT into an element (any Unicode; appended unless --replace)");
  // TARGET TEXT, or --name LABEL TEXT, or with --stdin only TARGET (or
  // nothing with --name): the positionals are sorted out in RunTypeCommand.
  cmd->add_option("TARGET", f.target,
                  "an element ID, or X,Y; \"focused\" types into whatever has the focus");
  cmd->add_option("TEXT", f.text, "the text (UTF-8; newlines press Return)");
  cmd->add_flag("--replace", f.replace, "replace the element's text instead of appending");
  cmd->add_flag("--stdin", f.stdin_text,
                "read TEXT from standard input (keeps a secret out of the process list and "
                "the shell history; one trailing newline is dropped)");
  AddActionFlags(cmd, g, f.action);
  return cmd;
}

int RunTypeCommand(const GlobalFlags& g, const TypeFlags& given) {
  TypeFlags f = given;
  const bool named = !f.action.name.empty();
  // With --name the one positional is TEXT.
  if (named && f.text.empty() && !f.stdin_text) std::swap(f.target, f.text);
  if (f.stdin_text) {
    if (!f.text.empty()) {
      return Fail(g,
                  MakeError(ErrorCode::kInvalidArgument, "type: give TEXT or --stdin, not both"));
    }
    f.text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    if (!f.text.empty() && f.text.back() == '\n') f.text.pop_back();
  } else if (f.text.empty() && !f.replace) {
    return Fail(g, MakeError(ErrorCode::kInvalidArgument,
                             "type needs TARGET and TEXT (or --name LABEL TEXT, or --stdin)"));
  }
  if (f.target.empty() && !named) {
    return Fail(g, MakeError(ErrorCode::kInvalidArgument,
                             "type needs TARGET (an ID, X,Y or \"focused\") or --name LABEL"));
  }
  if (auto st = CheckTargetOrName(f.target, f.action, true, "type"); !st.ok()) {
    return Fail(g, st.error());
  }
  ActionRequest r;
  r.kind = ActionKind::kTypeText;
  if (!f.target.empty() && f.target != "focused") {
    auto target = ParseActionTarget(f.target);
    if (!target.ok()) return Fail(g, target.error());
    r.target = *target;
  }
  r.text = f.text;
  r.replace = f.replace;
  // The text as given: the safety policy masks it in the audit log (and
  // everywhere else) when it goes into a password field.
  r.arguments = {
      {"target", f.target}, {"text", f.text}, {"replace", f.replace}, {"via", f.action.via}};
  return RunAction(g, f.action, std::move(r));
}

}  // namespace uiscope::cli
