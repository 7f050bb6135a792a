// `uiscope wait-for (--id ID | --name TEXT | --text TEXT | --gone ID | --change)
//                   [--timeout-ms N]` (DESIGN §11).
#include <cstdio>
#include <iostream>
#include <memory>

#include "core/escape.h"
#include "core/format.h"
#include "engine/find.h"
#include "engine/wait_for.h"
#include "hands_commands.h"
#include "mcp/wire.h"

namespace uiscope::cli {

CLI::App* AddWaitForCommand(CLI::App& app, GlobalFlags& g, WaitForFlags& f) {
  auto* cmd = app.add_subcommand(
      "wait-for", "wait until an element, a name, a text, an element gone or any change shows");
  auto* id = cmd->add_option("--id", f.id, "an element with this ID appears");
  auto* name = cmd->add_option("--name", f.name, "an element whose name contains TEXT appears");
  cmd->add_option("--role", f.role, "with --name: only this role (button, text_field, ...)");
  auto* text = cmd->add_option("--text", f.text,
                               "TEXT shows: in an element's name or value, else read by OCR");
  auto* gone = cmd->add_option("--gone", f.gone, "the element with this ID disappears");
  auto* change = cmd->add_flag("--change", f.change, "anything changes (tree or pixels)");
  id->excludes(name, text, gone, change);
  name->excludes(text, gone, change);
  text->excludes(gone, change);
  gone->excludes(change);
  cmd->add_option("--app", f.app, "only this application");
  cmd->add_option("--timeout-ms", f.timeout_ms, "give up after this long (default 5000)")
      ->check(CLI::Range(0, 3600000));
  cmd->add_option("--interval-ms", f.interval_ms, "pause between polls (default: 20)")
      ->check(CLI::Range(0, 60000));
  cmd->add_flag("--no-ocr", f.no_ocr, "with --text: look in the tree only");
  cmd->add_option("--config", g.config,
                  "safety policy file (default ~/.config/uiscope/config.json)");
  cmd->add_option("--display", g.display, "X display to use (default: $DISPLAY)");
  cmd->add_option(
      "--session", g.session,
      "uiscope session ID, headless or VNC (default: $UISCOPE_SESSION, else the display)");
  cmd->add_flag("--json", g.json, "print the result as JSON (the MCP tool's structuredContent)");
  return cmd;
}

int RunWaitForCommand(const GlobalFlags& g, const WaitForFlags& f) {
  WaitForRequest r;
  WaitCondition& c = r.condition;
  if (!f.id.empty()) {
    c.kind = WaitCondition::Kind::kElement;
    c.id = f.id;
  } else if (!f.name.empty() || !f.role.empty()) {
    c.kind = WaitCondition::Kind::kName;
    c.name = f.name;
    if (!f.role.empty()) {
      auto role = ParseRole(f.role);
      if (!role.ok()) return Fail(g, role.error());
      c.role = *role;
    }
  } else if (!f.text.empty()) {
    c.kind = WaitCondition::Kind::kText;
    c.text = f.text;
    c.ocr = !f.no_ocr;
  } else if (!f.gone.empty()) {
    c.kind = WaitCondition::Kind::kGone;
    c.id = f.gone;
  } else if (f.change) {
    c.kind = WaitCondition::Kind::kChange;
  } else {
    return Fail(g, MakeError(ErrorCode::kInvalidArgument,
                             "say what to wait for: --id, --name, --text, --gone or --change"));
  }
  r.app = f.app;
  r.timeout = std::chrono::milliseconds(f.timeout_ms);
  r.interval = std::chrono::milliseconds(f.interval_ms);
  CliPolicy policy;
  auto where = ActingWorkspace(g, &policy);
  if (!where.ok()) return Fail(g, where.error());
  std::unique_ptr<TextReader> reader;
  if (c.kind == WaitCondition::Kind::kText && c.ocr) {
    reader = CliTextReader(policy.config);
    r.reader = reader.get();
  }
  Workspace workspace(*where);
  auto result = WaitFor(workspace, r);
  if (!result.ok()) return Fail(g, result.error());
  for (const auto& w : result->warnings) {
    std::cerr << "uiscope: warning: " << EscapeForDisplay(w) << "\n";
  }
  if (g.json) {
    std::cout << WaitForResultToJson(*result).dump(-1, ' ', false,
                                                   nlohmann::json::error_handler_t::replace)
              << "\n";
  } else if (result->satisfied) {
    std::printf("seen %s in the %s after %.0f ms (%d polls)\n", result->condition.c_str(),
                result->seen_in.c_str(), result->waited_ms, result->polls);
    for (const Node& n : result->matches) std::cout << FormatNodeLine(n) << "\n";
    for (const TextMatch& m : result->text_matches) {
      std::printf("[ocr \"%s\" bounds=%d,%d,%d,%d]\n", SanitiseForDisplay(m.text, 200).c_str(),
                  m.bounds.x, m.bounds.y, m.bounds.w, m.bounds.h);
    }
    std::cout << FormatDiff(result->change, 40);
  }
  if (!result->satisfied) {
    std::cerr << "uiscope: timed out after " << static_cast<int>(result->waited_ms)
              << " ms waiting for " << result->condition << " (" << result->polls << " polls)\n";
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace uiscope::cli
