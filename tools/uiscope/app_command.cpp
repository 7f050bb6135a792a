// `uiscope app launch CMD... | list | focus APP | close APP` (DESIGN §11).
#include <cstdio>
#include <iostream>

#include "core/escape.h"
#include "core/format.h"
#include "engine/apps.h"
#include "hands_commands.h"
#include "mcp/wire.h"

namespace uiscope::cli {
namespace {

nlohmann::json::string_t Dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<Workspace::Lease> Acquire(Workspace& workspace) {
  return workspace.Acquire("", Workspace::Need::kHands);
}

int Refused(const GateDecision& d, const std::string& what, const std::string& rerun) {
  std::cerr << "uiscope: " << what << " not performed: " << GateVerdictName(d.verdict)
            << (d.rule.empty() ? "" : " by rule " + EscapeForDisplay(d.rule))
            << (d.reason.empty() ? "" : ": " + EscapeForDisplay(d.reason)) << "\n";
  if (d.verdict == GateVerdict::kNeedsConfirmation) std::cerr << HeldHint(d, rerun);
  return kExitFailed;
}

void AddCommon(CLI::App* cmd, GlobalFlags& g) {
  cmd->add_option("--config", g.config,
                  "safety policy file (default ~/.config/uiscope/config.json)");
  cmd->add_option("--display", g.display, "X display to use (default: $DISPLAY)");
  cmd->add_option(
      "--session", g.session,
      "uiscope session ID, headless or VNC (default: $UISCOPE_SESSION, else the display)");
  cmd->add_flag("--json", g.json, "print the result as JSON (the MCP tool's structuredContent)");
}

void AddApproval(CLI::App* cmd, AppFlags& f) {
  cmd->add_option("--confirmation-token", f.confirmation_token,
                  "approval of an action the safety policy held for confirmation");
  cmd->add_option("--wait-confirm", f.wait_confirm_s,
                  "when the safety policy holds the action, wait up to SECONDS for a person to "
                  "decide (`uiscope confirm TOKEN --approve`), then perform it")
      ->check(CLI::Range(0, 3600));
}

// Performs `perform(token)`; when the policy holds it and --wait-confirm is
// given, waits for the decision and performs it once more with the token.
template <typename Perform>
auto WithApproval(const AppFlags& f, safety::PolicyGate& gate, Perform perform)
    -> decltype(perform(std::string())) {
  auto result = perform(f.confirmation_token);
  if (result.ok() && !result->performed &&
      result->decision.verdict == GateVerdict::kNeedsConfirmation && f.wait_confirm_s > 0 &&
      !result->decision.token.empty() &&
      WaitForApproval(gate, result->decision.token, f.wait_confirm_s)) {
    result = perform(result->decision.token);
  }
  return result;
}

}  // namespace

AppCommands AddAppCommand(CLI::App& app, GlobalFlags& g, AppFlags& f) {
  auto* cmd = app.add_subcommand("app", "applications: launch | list | focus | close");
  cmd->require_subcommand(1);
  AppCommands c;
  c.launch = cmd->add_subcommand(
      "launch", "start a command in the session; wait for its window and accessibility app");
  // CMD...: the program and its arguments, taken as they are (a prefix
  // command: nothing after the program is parsed as a uiscope flag).
  c.launch
      ->add_option("--timeout-ms", f.timeout_ms,
                   "wait this long for the window and accessibility app (default 15000)")
      ->check(CLI::Range(0, 600000));
  c.launch->add_flag("--no-wait", f.no_wait, "return as soon as the process started");
  AddApproval(c.launch, f);
  AddCommon(c.launch, g);
  c.launch->prefix_command();
  c.launch->footer(
      "Everything from the program on belongs to it: uiscope app launch gedit --new-window");
  c.list = cmd->add_subcommand("list", "the apps: accessible ones and those with windows");
  AddCommon(c.list, g);
  c.focus = cmd->add_subcommand("focus", "raise and focus an app's window");
  c.focus->add_option("APP", f.app, "name, pid, window ID (0x...) or element ID")->required();
  AddApproval(c.focus, f);
  AddCommon(c.focus, g);
  c.close =
      cmd->add_subcommand("close", "close an app: its close button, then SIGTERM, then SIGKILL");
  c.close->add_option("APP", f.app, "name, pid, window ID (0x...) or element ID")->required();
  c.close
      ->add_option("--timeout-ms", f.close_timeout_ms,
                   "wait this long after the polite close and after SIGTERM (default 3000)")
      ->check(CLI::Range(0, 600000));
  c.close->add_flag("--force", f.force,
                    "end the app with signals even when it asks a question (\"Save changes?\"): "
                    "its unsaved work is lost. Without it such an app is left asking, the "
                    "question and its buttons are printed and the exit status is 1");
  AddApproval(c.close, f);
  AddCommon(c.close, g);
  return c;
}

int RunAppLaunchCommand(const GlobalFlags& g, const AppFlags& f) {
  LaunchRequest r;
  r.argv = f.command;
  if (!r.argv.empty() && r.argv.front() == "--") r.argv.erase(r.argv.begin());
  if (r.argv.empty()) {
    return Fail(g, MakeError(ErrorCode::kInvalidArgument,
                             "app launch needs a command: uiscope app launch PROGRAM [ARGS...]"));
  }
  r.timeout = std::chrono::milliseconds(f.timeout_ms);
  r.wait = !f.no_wait;
  r.keep = false;  // this process exits; the app stays
  r.confirmation_token = f.confirmation_token;
  r.arguments = {{"command", f.command}};
  if (!g.json) r.progress = [](const std::string& s) { std::cerr << "uiscope: " << s << "\n"; };
  CliPolicy policy;
  auto where = ActingWorkspace(g, &policy);
  if (!where.ok()) return Fail(g, where.error());
  Workspace workspace(*where);
  auto lease = Acquire(workspace);
  if (!lease.ok()) return Fail(g, lease.error());
  auto result = WithApproval(f, *policy.gate, [&](const std::string& token) {
    r.confirmation_token = token;
    return LaunchApp(*lease, r);
  });
  if (!result.ok()) return Fail(g, result.error());
  if (g.json) {
    std::cout << Dump(LaunchResultToJson(*result)) << "\n";
  } else if (result->performed) {
    std::printf("launched %s: pid %d", EscapeForDisplay(r.argv[0], 80).c_str(), result->pid);
    if (result->window) {
      const WindowInfo& w = *result->window;
      std::printf(", window %s \"%s\" at %d,%d,%d,%d", WindowIdText(w.id).c_str(),
                  EscapeForDisplay(w.title, 80).c_str(), w.bounds.x, w.bounds.y, w.bounds.w,
                  w.bounds.h);
    }
    if (result->accessible) {
      std::printf(", accessible as \"%s\" (%s)", EscapeForDisplay(result->app_name, 80).c_str(),
                  EscapeForDisplay(result->toolkit, 40).c_str());
    }
    std::printf(" after %.0f ms\nlog: %s\n", result->waited_ms,
                EscapeForDisplay(result->log_file).c_str());
    for (const auto& w : result->warnings) {
      std::cerr << "uiscope: warning: " << EscapeForDisplay(w) << "\n";
    }
  }
  return result->performed ? kExitOk : Refused(result->decision, "launch", "uiscope app launch");
}

int RunAppListCommand(const GlobalFlags& g, const AppFlags&) {
  auto where = ActingWorkspace(g);
  if (!where.ok()) return Fail(g, where.error());
  Workspace workspace(*where);
  auto lease = Acquire(workspace);
  if (!lease.ok()) return Fail(g, lease.error());
  auto apps = ListDesktopApps(*lease);
  if (!apps.ok()) return Fail(g, apps.error());
  if (g.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const AppEntry& a : *apps) list.push_back(AppEntryToJson(a));
    std::cout << Dump({{"apps", list}, {"display", lease->display}}) << "\n";
    return kExitOk;
  }
  if (apps->empty()) std::cerr << "uiscope: no apps on " << lease->display << "\n";
  for (const AppEntry& a : *apps) {
    const std::string toolkit = !a.accessible        ? "-"
                                : a.toolkit.empty() ? "accessible"
                                                    : EscapeForDisplay(a.toolkit, 10);
    std::printf("%-7d %-24s %-10s %zu window%s%s  %s\n", a.pid,
                EscapeForDisplay(a.name, 24).c_str(), toolkit.c_str(),
                a.windows.size(), a.windows.size() == 1 ? "" : "s", a.launched ? " launched" : "",
                EscapeForDisplay(a.command, 60).c_str());
  }
  return kExitOk;
}

int RunAppFocusCommand(const GlobalFlags& g, const AppFlags& f) {
  CliPolicy policy;
  auto where = ActingWorkspace(g, &policy);
  if (!where.ok()) return Fail(g, where.error());
  Workspace workspace(*where);
  auto lease = Acquire(workspace);
  if (!lease.ok()) return Fail(g, lease.error());
  auto result = WithApproval(
      f, *policy.gate, [&](const std::string& token) { return FocusApp(*lease, f.app, token); });
  if (!result.ok()) return Fail(g, result.error());
  if (g.json) {
    std::cout << Dump(FocusResultToJson(*result)) << "\n";
  } else if (result->performed) {
    std::printf("focused %s (pid %d): window %s \"%s\"\n",
                EscapeForDisplay(result->app.name, 80).c_str(),
                result->app.pid, WindowIdText(result->window.id).c_str(),
                EscapeForDisplay(result->window.title, 80).c_str());
  }
  return result->performed ? kExitOk : Refused(result->decision, "focus", "uiscope app focus");
}

int RunAppCloseCommand(const GlobalFlags& g, const AppFlags& f) {
  CloseRequest r;
  r.app = f.app;
  r.polite_timeout = std::chrono::milliseconds(f.close_timeout_ms);
  r.term_timeout = std::chrono::milliseconds(f.close_timeout_ms);
  r.confirmation_token = f.confirmation_token;
  r.force = f.force;
  r.arguments = {{"app", f.app}};
  if (f.force) r.arguments["force"] = true;  // the audit log says so
  CliPolicy policy;
  auto where = ActingWorkspace(g, &policy);
  if (!where.ok()) return Fail(g, where.error());
  Workspace workspace(*where);
  auto lease = Acquire(workspace);
  if (!lease.ok()) return Fail(g, lease.error());
  auto result = WithApproval(f, *policy.gate, [&](const std::string& token) {
    r.confirmation_token = token;
    return CloseApp(*lease, r);
  });
  if (!result.ok()) return Fail(g, result.error());
  if (g.json) {
    std::cout << Dump(CloseResultToJson(*result)) << "\n";
  } else if (result->stage == "asking") {
    std::cout << "asking: " << EscapeForDisplay(result->app.name, 80) << " (pid " << result->app.pid
              << ") did not close; it " << AppQuestionText(*result->question);
  } else if (result->performed) {
    std::cout << CloseOutcomeText(*result);
  }
  if (result->stage == "asking") {
    std::cerr << "uiscope: the app asks and still runs: answer its dialog (a button above), or "
                 "end it with `uiscope app close "
              << SanitiseForDisplay(f.app, 80) << " --force` (its unsaved work is lost)\n";
    return kExitFailed;
  }
  return result->performed ? kExitOk : Refused(result->decision, "close", "uiscope app close");
}

}  // namespace uiscope::cli
