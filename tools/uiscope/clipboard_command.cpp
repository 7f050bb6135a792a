#include "clipboard_command.h"

#include <unistd.h>

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "engine/act.h"
#include "engine/clipboard.h"
#include "hands_commands.h"
#include "mcp/wire.h"
#include "policy_flags.h"

namespace uiscope::cli {
namespace {

void AddCommon(CLI::App* cmd, GlobalFlags& g, ClipboardFlags& f) {
  cmd->add_option("--selection", f.selection,
                  "clipboard (ctrl+c / ctrl+v, the default) or primary (the mouse selection)")
      ->check(CLI::IsMember({"clipboard", "primary"}));
  cmd->add_option("--config", g.config,
                  "safety policy file (default ~/.config/uiscope/config.json)");
  cmd->add_option("--display", g.display, "X display to use (default: $DISPLAY)");
  cmd->add_option(
      "--session", g.session,
      "uiscope session ID, headless or VNC (default: $UISCOPE_SESSION, else the display)");
  cmd->add_flag("--json", g.json, "print the result as JSON (the MCP tool's structuredContent)");
}

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return MakeError(ErrorCode::kInvalidArgument, "cannot open " + path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return MakeError(ErrorCode::kInvalidArgument, "cannot read " + path);
  return bytes.str();
}

Status WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return MakeError(ErrorCode::kInvalidArgument, "cannot open " + path + " for writing");
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return MakeError(ErrorCode::kInternal, "cannot write " + path);
  return OkStatus();
}

// The content of `set`: exactly one of TEXT, --stdin, --file.
Result<std::string> Content(const ClipboardFlags& f) {
  const int sources = (f.text.empty() ? 0 : 1) + (f.stdin_text ? 1 : 0) + (f.file.empty() ? 0 : 1);
  if (sources != 1) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "clipboard set needs exactly one of TEXT, --stdin and --file FILE");
  }
  if (!f.file.empty()) return ReadFile(f.file);
  if (f.stdin_text) {
    std::string bytes((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    return bytes;
  }
  return f.text;
}

}  // namespace

ClipboardCommands AddClipboardCommand(CLI::App& app, GlobalFlags& g, ClipboardFlags& f) {
  auto* cmd = app.add_subcommand("clipboard", "the desktop's clipboard: get | set");
  cmd->require_subcommand(1);
  ClipboardCommands c;
  c.get = cmd->add_subcommand(
      "get", "print what was copied (text), or write it to --out (any --mime, e.g. image/png)");
  c.get->add_option("--mime", f.mime, "the type to ask for: text/plain (default), image/png, ...");
  c.get->add_option("-o,--out", f.out, "write the content to FILE instead of stdout");
  c.get
      ->add_option("--timeout-ms", f.timeout_ms,
                   "the owner must hand over everything within this (default 5000)")
      ->check(CLI::Range(1, 600000));
  AddCommon(c.get, g, f);
  c.get->footer("Content over 64 MiB is refused. The deny list's apps are not read.");
  c.set = cmd->add_subcommand(
      "set", "put TEXT (or --stdin, or --file F) on the clipboard for apps to paste");
  c.set->add_option("TEXT", f.text, "the text (or use --stdin / --file)");
  c.set->add_flag("--stdin", f.stdin_text, "the content from standard input (kept out of argv)");
  c.set->add_option("--file", f.file, "the content from FILE");
  c.set->add_option("--mime", f.mime, "its type: text/plain (default, UTF-8), image/png, ...");
  c.set
      ->add_option("--hold-hours", f.hold_hours,
                   "keep offering it at most this long (default 8, the most); it ends sooner "
                   "when another app copies or the session stops")
      ->check(CLI::Range(1, 8));
  c.set->add_option("--confirmation-token", f.confirmation_token,
                    "approval of a set the safety policy held for confirmation");
  c.set
      ->add_option("--wait-confirm", f.wait_confirm_s,
                   "when the safety policy holds it, wait up to SECONDS for a person to decide")
      ->check(CLI::Range(0, 3600));
  AddCommon(c.set, g, f);
  return c;
}

int RunClipboardGetCommand(const GlobalFlags& g, const ClipboardFlags& f) {
  ClipboardGetRequest r;
  auto selection = ParseSelection(f.selection);
  if (!selection.ok()) return Fail(g, selection.error());
  r.selection = *selection;
  r.mime = f.mime;
  r.timeout = std::chrono::milliseconds(f.timeout_ms);
  const bool text = IsTextMime(r.mime);
  if (!text && f.out.empty() && (g.json || isatty(STDOUT_FILENO))) {
    return Fail(g, MakeError(ErrorCode::kInvalidArgument,
                             r.mime + " is binary: write it to a file with --out FILE"));
  }
  auto where = ActingWorkspace(g);
  if (!where.ok()) return Fail(g, where.error());
  Workspace workspace(*where);
  auto lease = workspace.Acquire();
  if (!lease.ok()) return Fail(g, lease.error());
  auto got = GetClipboard(*lease, r);
  if (!got.ok()) return Fail(g, got.error());
  if (!f.out.empty()) {
    if (Status st = WriteFile(f.out, got->data.bytes); !st.ok()) return Fail(g, st.error());
  }
  if (g.json) {
    nlohmann::json j = {{"selection", f.selection},
                        {"mime", got->data.mime},
                        {"bytes", got->data.bytes.size()},
                        {"owner", ClipboardOwnerToJson(*got)}};
    if (!f.out.empty()) j["out"] = f.out;
    if (text && f.out.empty()) j["text"] = got->data.bytes;
    std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else if (f.out.empty()) {
    std::cout.write(got->data.bytes.data(), static_cast<std::streamsize>(got->data.bytes.size()));
    std::cout.flush();
  } else {
    std::cerr << "uiscope: " << got->data.bytes.size() << " bytes of " << got->data.mime
              << " written to " << f.out << "\n";
  }
  return kExitOk;
}

int RunClipboardSetCommand(const GlobalFlags& g, const ClipboardFlags& f) {
  ClipboardSetRequest r;
  auto selection = ParseSelection(f.selection);
  if (!selection.ok()) return Fail(g, selection.error());
  r.selection = *selection;
  auto content = Content(f);
  if (!content.ok()) return Fail(g, content.error());
  r.data.mime = f.mime;
  r.data.bytes = std::move(content).value();
  r.hold_for = std::chrono::hours(f.hold_hours);
  r.confirmation_token = f.confirmation_token;
  CliPolicy policy;
  auto where = ActingWorkspace(g, &policy);
  if (!where.ok()) return Fail(g, where.error());
  Workspace workspace(*where);
  auto lease = workspace.Acquire();
  if (!lease.ok()) return Fail(g, lease.error());
  auto result = SetClipboard(*lease, r);
  if (result.ok() && !result->performed &&
      result->decision.verdict == GateVerdict::kNeedsConfirmation && f.wait_confirm_s > 0 &&
      !result->decision.token.empty() &&
      WaitForApproval(*policy.gate, result->decision.token, f.wait_confirm_s)) {
    r.confirmation_token = result->decision.token;
    result = SetClipboard(*lease, r);
  }
  if (!result.ok()) return Fail(g, result.error());
  if (g.json) {
    std::cout << ClipboardSetResultToJson(r, *result).dump() << "\n";
  } else if (result->performed) {
    std::cerr << "uiscope: " << r.data.bytes.size() << " bytes of " << r.data.mime << " on the "
              << f.selection << " of " << lease->display << ", held by pid " << result->holder_pid
              << " until another app copies, the session ends or " << f.hold_hours << " h pass"
              << (result->verified ? "" : " (owner not confirmed)") << "\n";
  }
  if (result->performed) return kExitOk;
  const GateDecision& d = result->decision;
  std::cerr << "uiscope: clipboard set not performed: " << GateVerdictName(d.verdict)
            << (d.rule.empty() ? "" : " by rule " + d.rule)
            << (d.reason.empty() ? "" : ": " + d.reason) << "\n";
  if (d.verdict == GateVerdict::kNeedsConfirmation) {
    std::cerr << HeldHint(d, "uiscope clipboard set");
  }
  return kExitFailed;
}

}  // namespace uiscope::cli
