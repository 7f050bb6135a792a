// The CLI verbs that act on a desktop (DESIGN §11), each in its own
// *_command.cpp:
//   uiscope click     TARGET [--button left|right|middle] [--double]
//   uiscope type      TARGET TEXT [--replace]
//   uiscope keys      CHORD...                       e.g. ctrl+s Return
//   uiscope scroll    TARGET [--dx N] [--dy N]
//   uiscope drag      FROM TO
//   uiscope set-value TARGET VALUE
//   uiscope wait-for  (--id ID | --name TEXT | --text TEXT | --gone ID | --change)
//                     [--timeout-ms N]
//   uiscope app       launch CMD... | list | focus APP | close APP
//   uiscope windows
// TARGET is an element ID from observe / find, or X,Y in screen pixels; or,
// instead of TARGET, --name LABEL [--role ROLE] [--app APP] names the
// element by its label (several matches are held for confirmation, R4).
// Every action passes the safety policy of --config and is audited
// (policy_flags.h). Human output by default; --json prints the matching MCP tool's
// structuredContent. Exit codes: 0 done, 1 failed (not found, refused by
// the safety policy, timed out), 2 usage.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli.h"
#include "engine/act.h"
#include "engine/workspace.h"
#include "policy_flags.h"

namespace uiscope::cli {

// The desktop every acting verb works on: --display (else $DISPLAY), never a
// headless desktop of its own, under the safety policy of --config
// (policy_flags.h): its deny list hides apps from the observer, its gate
// decides every action and writes the audit log. `policy` (optional)
// receives the policy for the caller's own use.
Result<WorkspaceOptions> ActingWorkspace(const GlobalFlags& g, CliPolicy* policy = nullptr);

// Flags every action verb shares.
struct ActionFlags {
  std::string via = "auto";
  int settle_ms = 500;
  int timeout_ms = 2000;
  std::string confirmation_token;
  int wait_confirm_s = 0;  // wait this long for a person to approve a held action
  // find-then-act (engine/named_target.h): the target named by label.
  std::string name;
  std::string role;
  std::string app;
  bool exact = false;
};

// Adds --via, --settle-ms, --timeout-ms, --confirmation-token,
// --wait-confirm, --config, --display and --json to `cmd`, and with `named`
// the target by label: --name, --role, --app, --exact.
void AddActionFlags(CLI::App* cmd, GlobalFlags& g, ActionFlags& f, bool named = true);

// Usage error unless exactly one of a positional TARGET and --name is given
// (`required`), or at most one (not required).
Status CheckTargetOrName(const std::string& target, const ActionFlags& f, bool required,
                         const char* verb);

// Acquires the desktop, performs `request` with the flags applied, prints
// the result. The exit code: 0 performed, 1 failed or refused, 2 usage.
// `prepare` (optional) completes the request on the desktop first (keys
// --action looks its chord up there); its error fails the command.
using PrepareAction = std::function<Status(Workspace::Lease&, ActionRequest&)>;
// `after` (optional) sees the result before it is printed (keys learns a
// shortcut from it and adds a note).
using AfterAction = std::function<void(const ActionRequest&, ActionResult&)>;
int RunAction(const GlobalFlags& g, const ActionFlags& f, ActionRequest request,
              const PrepareAction& prepare = nullptr, const AfterAction& after = nullptr);

struct ClickFlags {
  ActionFlags action;
  std::string target;
  std::string button = "left";
  bool double_click = false;
  std::string accessibility_action;
};
CLI::App* AddClickCommand(CLI::App& app, GlobalFlags& g, ClickFlags& f);
int RunClickCommand(const GlobalFlags& g, const ClickFlags& f);

struct TypeFlags {
  ActionFlags action;
  std::string target;
  std::string text;
  bool replace = false;
  bool stdin_text = false;  // --stdin: TEXT from standard input (kept out of argv)
};
CLI::App* AddTypeCommand(CLI::App& app, GlobalFlags& g, TypeFlags& f);
int RunTypeCommand(const GlobalFlags& g, const TypeFlags& f);

struct KeysFlags {
  ActionFlags action;
  std::vector<std::string> chords;
  std::string target;
  std::string action_name;  // --action: press the chord of this action of --app
};
CLI::App* AddKeysCommand(CLI::App& app, GlobalFlags& g, KeysFlags& f);
int RunKeysCommand(const GlobalFlags& g, const KeysFlags& f);

struct ScrollFlags {
  ActionFlags action;
  std::string target;
  int dx = 0;
  int dy = 0;
};
CLI::App* AddScrollCommand(CLI::App& app, GlobalFlags& g, ScrollFlags& f);
int RunScrollCommand(const GlobalFlags& g, const ScrollFlags& f);

struct DragFlags {
  ActionFlags action;
  std::string from;
  std::string to;
  std::string button = "left";
};
CLI::App* AddDragCommand(CLI::App& app, GlobalFlags& g, DragFlags& f);
int RunDragCommand(const GlobalFlags& g, const DragFlags& f);

struct SetValueFlags {
  ActionFlags action;
  std::string target;
  std::string value;
};
CLI::App* AddSetValueCommand(CLI::App& app, GlobalFlags& g, SetValueFlags& f);
int RunSetValueCommand(const GlobalFlags& g, const SetValueFlags& f);

struct WaitForFlags {
  std::string id;
  std::string name;
  std::string role;
  std::string text;
  std::string gone;
  bool change = false;
  std::string app;
  int timeout_ms = 5000;
  int interval_ms = 0;
  bool no_ocr = false;
};
CLI::App* AddWaitForCommand(CLI::App& app, GlobalFlags& g, WaitForFlags& f);
int RunWaitForCommand(const GlobalFlags& g, const WaitForFlags& f);

struct AppFlags {
  std::vector<std::string> command;  // launch
  std::string app;                   // focus, close
  int timeout_ms = 15000;            // launch: window + accessibility
  // close: each stage. Its own variable: CLI11's default_val() writes the
  // default into the variable when the option is defined, so a shared one
  // gave `app launch` close's 3000 ms.
  int close_timeout_ms = 3000;
  bool force = false;  // close: end it even when it asks to save
  bool no_wait = false;  // launch: return once started
  std::string confirmation_token;
  int wait_confirm_s = 0;
};
struct AppCommands {
  CLI::App* launch = nullptr;
  CLI::App* list = nullptr;
  CLI::App* focus = nullptr;
  CLI::App* close = nullptr;
};
AppCommands AddAppCommand(CLI::App& app, GlobalFlags& g, AppFlags& f);
int RunAppLaunchCommand(const GlobalFlags& g, const AppFlags& f);
int RunAppListCommand(const GlobalFlags& g, const AppFlags& f);
int RunAppFocusCommand(const GlobalFlags& g, const AppFlags& f);
int RunAppCloseCommand(const GlobalFlags& g, const AppFlags& f);

CLI::App* AddWindowsCommand(CLI::App& app, GlobalFlags& g);
int RunWindowsCommand(const GlobalFlags& g);

// Every verb above, registered at once; main() asks RunParsed() for the
// exit code of whichever was given (nullopt: none of them).
class HandsCommands {
 public:
  static std::unique_ptr<HandsCommands> Add(CLI::App& app, GlobalFlags& g);
  std::optional<int> RunParsed();

 private:
  explicit HandsCommands(GlobalFlags& g) : g_(g) {}
  GlobalFlags& g_;
  ClickFlags click_;
  TypeFlags type_;
  KeysFlags keys_;
  ScrollFlags scroll_;
  DragFlags drag_;
  SetValueFlags set_value_;
  WaitForFlags wait_for_;
  AppFlags app_;
  CLI::App* click_cmd_ = nullptr;
  CLI::App* type_cmd_ = nullptr;
  CLI::App* keys_cmd_ = nullptr;
  CLI::App* scroll_cmd_ = nullptr;
  CLI::App* drag_cmd_ = nullptr;
  CLI::App* set_value_cmd_ = nullptr;
  CLI::App* wait_for_cmd_ = nullptr;
  AppCommands app_cmds_;
  CLI::App* windows_cmd_ = nullptr;
};

}  // namespace uiscope::cli
