// Windows and applications of a desktop (DESIGN §6): listing windows,
// launching a command line into the session and waiting for its window and
// accessibility app, listing, focusing and closing apps.
//
// An app is a process with a window on the desktop or an application on its
// accessibility bus (or both). Apps are named in requests by pid, by an X
// window ID (0x1e00007), by the ID of their application or window element
// from observe (app_c408, win_b253), or by name: the accessible name or the
// WM_CLASS instance / class, case-insensitive.
//
// Launching, focusing and closing are actions: each is described as a
// PlannedAction (tool "app_launch", "app_focus", "app_close") and passed to
// the lease's ActionGate first, performed only on kAllow, and recorded.
//
// Not thread-safe: call under the workspace lease (Need::kHands).
#pragma once

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "engine/action_gate.h"
#include "engine/workspace.h"
#include "platform/windows.h"

namespace uiscope {

struct AppEntry {
  std::string name;  // accessible name, else WM_CLASS instance, else program name
  int pid = 0;
  std::string toolkit;      // from the accessibility bus ("GTK"), "" when not on it
  bool accessible = false;  // on the accessibility bus
  bool launched = false;    // started by this uiscope (app_launch)
  std::string command;      // its command line (/proc), "" when unreadable
  std::vector<WindowInfo> windows;
};

// A window with the name of the app showing it.
struct WindowEntry {
  WindowInfo window;
  std::string app;  // accessible name of its process, else its WM_CLASS instance
};

// The desktop's top-level windows, bottom to top.
Result<std::vector<WindowEntry>> ListDesktopWindows(Workspace::Lease& lease);

// Every app of the desktop, by pid.
Result<std::vector<AppEntry>> ListDesktopApps(Workspace::Lease& lease);

struct LaunchRequest {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH
  // Wait for the app's window and accessibility app this long; the result
  // says which appeared.
  std::chrono::milliseconds timeout{15000};
  bool wait = true;  // false: return once the process started
  std::string confirmation_token;
  nlohmann::json arguments = nlohmann::json::object();
  std::function<bool()> cancelled;
  std::function<void(const std::string&)> progress;  // "waiting for its window..."
  // Keep the process in the workspace (the MCP server) so it is reaped when
  // it exits; false releases it (a CLI that exits right away).
  bool keep = true;
  // A step of a plan (PlannedAction::plan_step, require_confirmation).
  bool plan_step = false;
  bool require_confirmation = false;
};

struct LaunchResult {
  bool performed = false;
  GateDecision decision;
  int pid = 0;
  std::string log_file;              // the app's stdout and stderr
  std::optional<WindowInfo> window;  // its first window, when one appeared
  bool accessible = false;           // its accessibility app appeared
  std::string app_name;              // its accessible name, else the window's WM_CLASS
  std::string toolkit;
  double waited_ms = 0;
  // The DevTools port given to a Chromium or Electron app (0: none given).
  int devtools_port = 0;
  std::vector<std::string> warnings;  // no accessibility app by the deadline, ...
};

// Starts `argv` in the lease's session (its DISPLAY, D-Bus and the switches
// that turn accessibility on for GTK, Qt and Chromium), then waits until a
// window of the process (or a child of it) is mapped and its accessibility
// app registered. Errors: InvalidArgument (empty argv), NotFound (no such
// program), Unavailable (it exited before showing a window: the exit status
// and the tail of its log say why), Timeout (no window by the deadline; the
// process keeps running and the error names its pid).
Result<LaunchResult> LaunchApp(Workspace::Lease& lease, const LaunchRequest& request);

struct FocusResult {
  bool performed = false;
  GateDecision decision;
  AppEntry app;
  WindowInfo window;  // the window raised and focused
};

// Raises and focuses the app's top-most window. NotFound (listing the apps)
// for an unknown app, Unsupported for an app without a window, Timeout
// when the window manager did not activate it.
Result<FocusResult> FocusApp(Workspace::Lease& lease, const std::string& app,
                             const std::string& confirmation_token = "");

struct CloseRequest {
  std::string app;
  // Each stage waits this long for the process to exit: the polite close
  // (the window's close button), then SIGTERM, then SIGKILL.
  std::chrono::milliseconds polite_timeout{3000};
  std::chrono::milliseconds term_timeout{2000};
  // End the app with signals even when it answered the polite close with a
  // question ("Save changes?"): its unsaved work is lost. Put it in
  // `arguments` too, so that the audit log records it.
  bool force = false;
  std::string confirmation_token;
  nlohmann::json arguments = nlohmann::json::object();
};

// What an app asked when it was told to close: a dialog (a new window of
// its process, or a dialog or alert in its accessibility tree), with the
// buttons that answer it. App text, to be printed escaped.
struct AppQuestion {
  uint64_t window = 0;  // its X window; 0 when only its accessibility tree showed it
  std::string title;
  std::string text;  // what it says: its labels, in order, one per line
  struct Button {
    std::string id;  // an element ID for click (from a fresh observation)
    std::string name;
  };
  std::vector<Button> buttons;  // empty when the app is not on the accessibility bus
};

struct CloseResult {
  bool performed = false;
  GateDecision decision;
  AppEntry app;
  // How it ended: "closed" (by the polite request), "terminated" (SIGTERM),
  // "killed" (SIGKILL); "asking" when it answered the polite close with a
  // question and runs on (see `question`); "" when not performed.
  std::string stage;
  std::optional<AppQuestion> question;  // stage "asking", or what `force` went past
  std::optional<int> exit_code;         // when it was uiscope's child
  double waited_ms = 0;
};

// Asks the app to close as its close button would. An app that answers
// with a dialog (any window of its process that appears meanwhile, or a
// dialog in its tree: "Save changes?") is left running with the dialog up:
// stage "asking", the question and its buttons in the result, for the
// agent or a person to answer; only `force` goes on. An app that neither
// exits nor asks within polite_timeout gets SIGTERM, then SIGKILL, waiting
// for the process to exit after each. NotFound (listing the apps) for an
// unknown app; Internal when even SIGKILL did not end it.
Result<CloseResult> CloseApp(Workspace::Lease& lease, const CloseRequest& request);

// Before a desktop is stopped: asks every app with a window there to close,
// as CloseApp's first stage does (no signals), and waits up to `timeout`
// for each to exit or to ask a question. One result per app asked: stage
// "closed", "asking" (with its question; it runs on) or "" (it did
// neither; stopping the desktop ends it). Not gated: part of session_stop.
Result<std::vector<CloseResult>> AskAppsToClose(Workspace::Lease& lease,
                                                std::chrono::milliseconds timeout);

// AskAppsToClose on the desktop of uiscope session `session_id`, for
// `session stop` without --force. A session whose desktop cannot be reached
// (dead, a VNC session) has no app to ask: an empty list.
std::vector<CloseResult> AskSessionAppsToClose(Workspace& workspace, const std::string& session_id,
                                               std::chrono::milliseconds timeout);

// The question an app shows in a window of process `pid` (or a process it
// started) that is not among `before` (window IDs), or in a dialog or alert
// of its accessibility tree (observed afresh, so the button IDs are current);
// nullopt when there is none.
std::optional<AppQuestion> FindAppQuestion(Workspace::Lease& lease, int pid,
                                           const std::vector<uint64_t>& before);

// Splits a command line into argv like a POSIX shell without expansions:
// whitespace separates words, '...' quotes literally, "..." quotes with
// backslash escapes for \ " $ `, a backslash outside quotes escapes the
// next character. InvalidArgument for an unterminated quote or an empty
// command.
Result<std::vector<std::string>> SplitCommandLine(std::string_view line);

// "0x1e00007".
std::string WindowIdText(uint64_t id);

// What an app asks (CloseResult::question), for a person or an agent to
// read, its text escaped (core/escape.h): `asks "Save changes?": TEXT`,
// then one `  button "Save" ID` line per button, each line ending in '\n'.
std::string AppQuestionText(const AppQuestion& question);

// How a performed close ended, one line: "terminated gedit (pid 812) in
// 2013 ms"; where `force` went past the app's question, it says so and that
// the unsaved work went with the app. App text escaped.
std::string CloseOutcomeText(const CloseResult& result);

}  // namespace uiscope
