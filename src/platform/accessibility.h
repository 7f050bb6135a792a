// Accessibility: the interface between the engine and an accessibility
// backend (DESIGN §2, §5.1).
//
// The real implementation is AtspiAccessibility (atspi/atspi_tree.h), which
// talks AT-SPI2 over raw, pipelined D-Bus; tests use the fake in
// tests/support. Implementations return plain core::Node trees without IDs
// (core/ids.h assigns them) with bounds in screen pixels of the display.
//
// Thread safety: one instance is used from one thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/node.h"
#include "core/result.h"

namespace uiscope {

struct AppInfo {
  std::string name;             // accessible name of the application ("gedit")
  int pid = 0;                  // 0 when the bus does not know it
  std::string toolkit;          // "GTK", "Qt", "Chromium", ...
  std::string toolkit_version;  // "3.24.38"
  std::string bus_name;         // the app's unique name on the accessibility bus
};

// The toolkit that drew the app, in one word (core/toolkit.h's
// ToolkitLabel, with the process's command line to tell Electron from
// Chromium): what the application node's `toolkit` says.
std::string ToolkitLabel(const AppInfo& app);

struct TreeRequest {
  std::string app_name;         // only apps whose name equals this (case-insensitive); "" = all
  int pid = 0;                  // only this process; 0 = all
  bool include_hidden = false;  // keep non-showing and scrolled-out nodes
  int max_depth = 64;           // deeper nodes are not fetched
  int max_nodes = 20000;        // the walk stops adding nodes past this many
  std::chrono::milliseconds timeout{2000};  // per application
  // The whole call's deadline (no application is waited for past it); unset
  // = none beyond the per-application timeouts.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  bool fetch_actions = true;
  bool fetch_values = true;  // text of fields, value of sliders (never of passwords)
  // Applications never to read (the safety policy's deny list): true for an
  // application name means its tree is not fetched at all, and it is left
  // out of listings in errors. Asking for one by pid is kDenied.
  std::function<bool(const std::string& app_name)> skip_app;
  // Applications not to contact at all, by unique bus name (AppInfo::
  // bus_name): those the caller knows are not answering (the circuit
  // breaker, engine/app_health.h). They are neither asked their name nor
  // walked, nor listed as present; the caller reports them.
  std::vector<std::string> skip_buses;
  // Walk every application, even where the backend keeps a mirror of its
  // tree that it could vouch for (TreeResult::cache).
  bool fresh = false;
  // For a request of one app (pid or app_name): an app that does not answer
  // is an error (kTimeout) when true; when false it is left out with a
  // warning and listed in TreeResult::unanswered, as among several apps, so
  // that a caller with a circuit breaker (the Observer) records it and
  // shows its windows from X11.
  bool unanswered_is_error = true;
};

// What an element offers to be acted on through accessibility (DESIGN §7).
struct ElementCapabilities {
  std::vector<std::string> actions;  // action names, lower case, in the element's order
  bool editable_text = false;        // EditableText: its text can be replaced
  bool text = false;                 // Text: its text can be read
  bool component = false;            // Component: it can take the keyboard focus
  bool value = false;                // Value: a number in [minimum, maximum]
  double current = 0;                // the Value fields, when `value`
  double minimum = 0;
  double maximum = 0;
  double increment = 0;  // smallest step; 0 when the toolkit does not say
};

struct TreeResult {
  std::vector<Node> apps;             // role kApplication, children windows
  std::vector<std::string> warnings;  // an app that timed out, a capped walk, ...
  int requests = 0;                   // D-Bus requests sent (for benchmarks)
  // Applications left out because they did not answer in time (busy or
  // hung), and because they exited during the call: each also has a warning.
  std::vector<AppInfo> unanswered;
  std::vector<AppInfo> exited;
  // Where the trees came from, for backends that keep a mirror of them
  // (AtspiOptions::mirror): "hit" = all from the mirror, with no request to
  // the applications but one barrier each; "miss" = all walked; "partial" =
  // some of each. "" = the backend keeps no mirror (every tree is walked).
  std::string cache;
};

class Accessibility {
 public:
  virtual ~Accessibility() = default;
  // Applications registered on the accessibility bus.
  virtual Result<std::vector<AppInfo>> ListApps() = 0;
  // The trees of the requested applications. An unknown app name or pid is a
  // NotFound error listing the applications present (Stale, naming it, for
  // one that exited); an application that stops answering is dropped with a
  // warning once its deadline passes, and named in TreeResult::unanswered.
  // A request for one application that does not answer is a Timeout naming
  // it (name and pid).
  virtual Result<TreeResult> Tree(const TreeRequest& request) = 0;

  // Whether an application answers at all: one cheap request (its name),
  // sent to each of `apps` at once, waited for `timeout` at most. The
  // circuit breaker probes an app that did not answer before it is walked
  // again. The default, for backends that cannot tell, says every app answers.
  enum class Liveness { kAnswers, kSilent, kGone };
  virtual std::vector<Liveness> Probe(const std::vector<AppInfo>& apps,
                                      std::chrono::milliseconds timeout);

  // The caller is about to act on the application of process `pid` (0 = not
  // known: any) through input. A backend that keeps a mirror of the trees
  // does not serve that app's tree again until the app has shown, by an
  // event, that it reacted. The default does nothing.
  virtual void NoteActed(int pid) {}

  // How many accessibility events the backend has received from the
  // applications of process `pid` since it began listening, or nullopt when
  // it does not listen to them (no mirror, or its event stream is down).
  // Verification reads an action's effect from the events it caused
  // (engine/verify.h). The default does not listen.
  virtual std::optional<uint64_t> EventsFrom(int pid) { return std::nullopt; }

  // --- Acting on elements (DESIGN §7) -------------------------------------
  // `node` is a node this backend returned (its Node::ref). Errors: Stale
  // when the object is gone (observe again), Unsupported when the element
  // lacks the interface, Timeout when its application did not answer within
  // `timeout`. The defaults report that the backend cannot act (Unsupported),
  // for read-only backends.

  // The interfaces, actions and value range of the element.
  virtual Result<ElementCapabilities> Capabilities(const Node& node,
                                                   std::chrono::milliseconds timeout);
  // Invokes the accessibility action named `action` (case-insensitive:
  // "click", "press", "activate", "toggle", ...). NotFound, listing the
  // element's actions, when it has none of that name. The application runs
  // the action before it answers, so an action that opens a modal dialog
  // may answer late: Timeout then means "sent, not confirmed".
  virtual Status DoAction(const Node& node, std::string_view action,
                          std::chrono::milliseconds timeout);
  // EditableText: replaces the element's whole text.
  virtual Status SetText(const Node& node, std::string_view text,
                         std::chrono::milliseconds timeout);
  // Value: sets the current value (the caller checks the range).
  virtual Status SetValue(const Node& node, double value, std::chrono::milliseconds timeout);
  // Component: moves the keyboard focus to the element.
  virtual Status GrabFocus(const Node& node, std::chrono::milliseconds timeout);
  // A combo box's or list's option (a <select>'s, a GtkComboBox's item):
  // chooses the descendant named `option` (exactly, else ignoring ASCII
  // case) through Selection or the option's action — never input — and
  // reads it back as chosen. Returns how, for people ("option \"Green\"
  // through the element's Selection"). NotFound listing the options when
  // none is so named; Unsupported when no way made it read back.
  virtual Result<std::string> ChooseOption(const Node& node, std::string_view option,
                                           std::chrono::milliseconds timeout);
};

struct AtspiOptions {
  std::string session_bus_address;  // "" = $DBUS_SESSION_BUS_ADDRESS
  std::string display;              // for the AT_SPI_BUS root-window fallback; "" = $DISPLAY
  std::chrono::milliseconds connect_timeout{3000};
  bool peer_to_peer = true;  // talk to apps on their private sockets when they offer one
  // Keep a mirror of each application's tree, kept current by its AT-SPI
  // events, and serve it instead of walking while the events say nothing
  // changed (atspi/atspi_mirror.h). For long-running processes (the MCP
  // server): a one-shot CLI call would only pay for listening.
  bool mirror = false;
};

// Connects to the AT-SPI2 bus of the session. Unavailable errors say what
// to start ("no D-Bus session ...: run `uiscope session start`").
Result<std::unique_ptr<Accessibility>> ConnectAtspi(const AtspiOptions& options = {});

// The accessibility of a desktop that has none to offer (a VNC desktop shows
// pixels only): no applications, so every window is read from its pixels.
// `where` names the desktop in the error a request for an app gets.
std::unique_ptr<Accessibility> NoAccessibility(std::string where);

}  // namespace uiscope
