// Acting (DESIGN §7): click, type, keys, scroll, drag and set value on an
// element by ID or on a screen point, each verified (engine/verify.h).
//
// By ID, the element is resolved against a fresh observation (IDs are
// deterministic, so an ID printed by one `uiscope observe` works in the next
// process; the MCP server re-observes only the element's application when it
// has observed everything before). Then uiscope prefers what the element
// offers:
//   click      an accessibility action (click, press, toggle, activate, jump;
//              not "activate" on text fields, which means Enter there),
//              else XTest at the element's click point;
//   type_text  --replace: EditableText.SetTextContents; else key events
//              (the element is focused first and, if it was not focused,
//              the caret moved to the end so the text is appended);
//   set_value  Value.CurrentValue for sliders and spin buttons (checked
//              against their range), an option chosen through Selection or
//              its action for combo boxes and lists (Accessibility::
//              ChooseOption; never keys) — or, where accessibility cannot
//              choose (an element found in pixels, via xtest, or a Selection
//              that does not read back), the box clicked open and the option
//              clicked where it shows (in the tree, else by OCR) —,
//              EditableText for text, else key events;
//   press_keys, scroll, drag: XTest.
// `via` forces either path. Before XTest input the element's window is
// raised and focused when it is not the active one, and the "before" state
// of the verification is taken after that, so the activation is not counted
// as the action's effect.
//
// Safety: every action is described as a PlannedAction and passed to the
// lease's ActionGate before any input reaches the desktop; it is performed
// only on kAllow, and Record() is called with the outcome whatever happened
// (also for an unknown ID, with no target). Policy is the gate's alone.
//
// Not thread-safe: call under the workspace lease (acquired with
// Workspace::Need::kHands).
#pragma once

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/node.h"
#include "core/result.h"
#include "engine/action_gate.h"
#include "engine/verify.h"
#include "engine/workspace.h"
#include "platform/input.h"

namespace uiscope {

enum class ActionKind { kClick, kTypeText, kPressKeys, kScroll, kDrag, kSetValue };
// The tool verb: "click", "type_text", "press_keys", "scroll", "drag", "set_value".
std::string_view ActionToolName(ActionKind kind);
// Whether the action puts text or a value into an element (type_text,
// set_value): a label given to it stands for the field it labels.
bool PutsText(ActionKind kind);

enum class Via { kAuto, kAccessibility, kXTest };
// "auto" | "accessibility" | "xtest"; InvalidArgument naming them otherwise.
Result<Via> ParseVia(std::string_view name);
std::string_view ViaName(Via via);

// What an action aims at: an element by ID, or a screen point.
struct ActionTarget {
  std::string id;              // "btn_1a2b"; "" for a point or nothing
  std::optional<Point> point;  // screen pixels

  bool empty() const { return id.empty() && !point; }
  std::string ToString() const;  // the ID, "X,Y", or ""
};

// "btn_1a2b" (an ID: letters, digits, '_' and '-') or "X,Y" (integers);
// InvalidArgument saying which forms are accepted.
Result<ActionTarget> ParseActionTarget(std::string_view text);

struct ActionRequest {
  ActionKind kind = ActionKind::kClick;
  // click, scroll, drag (the start), set_value: required. type_text,
  // press_keys: optional (empty = the focused element).
  ActionTarget target;
  ActionTarget to;  // drag: the end
  MouseButton button = MouseButton::kLeft;
  int count = 1;  // click: 2 = double click
  // click via accessibility: this action instead of the preferred one.
  std::string action;
  std::string text;               // type_text: the text; set_value: the value
  bool replace = false;           // type_text: replace the element's text
  std::vector<std::string> keys;  // press_keys: chords, pressed in order
  int dx = 0;                     // scroll: wheel steps, > 0 right
  int dy = 0;                     // scroll: wheel steps, > 0 down
  Via via = Via::kAuto;
  VerifyOptions verify;
  std::chrono::milliseconds timeout{2000};  // accessibility walks and calls
  // For the gate: an approval brought by the caller, and the arguments as
  // given (for the audit log).
  std::string confirmation_token;
  nlohmann::json arguments = nlohmann::json::object();
  std::function<bool()> cancelled;  // asked while verifying; may be empty
  // When the target was named by label (engine/named_target.h): how many
  // elements the label names and which, best first; the gate holds the
  // action for confirmation when there are several (R4).
  int candidates = 1;
  std::vector<Node> candidate_nodes;
  // A step of a plan, and whether it asks for a person's confirmation
  // (PlannedAction::plan_step, require_confirmation).
  bool plan_step = false;
  bool require_confirmation = false;
};

struct ActionResult {
  std::string tool;
  bool performed = false;
  // How: "accessibility" (an action), "editable_text", "value", "cdp" (text
  // typed into a browser page with Input.insertText), or the input's kind
  // ("xtest", "vnc": Input::kind()); "" when not performed.
  std::string via;
  // What exactly, for people: "action \"click\"", "SetTextContents",
  // "left click at 431,268", ...
  std::string method;
  std::optional<Node> target;  // the element acted on, as resolved (no children)
  std::vector<Point> points;   // screen points the input touched
  GateDecision decision;
  std::optional<Verification> verification;  // when performed
  std::vector<std::string> notes;            // raised a window, an unconfirmed action, ...
  // How the target ID was found: "tree" (in the observation the action
  // made), "place" (an OCR or vision ID from an earlier observation, acted
  // on where it was because its window and pixels are unchanged:
  // engine/pixel_ids.h), "perceived" (such an ID found by perceiving its
  // window again), "memory" (a learned target); "" for a point or no target.
  std::string resolution;
  std::string display;
  double resolve_ms = 0;  // observing and planning
  double act_ms = 0;      // window activation and the input / accessibility call
  double total_ms = 0;    // everything, verification included
};

// Resolves, plans, asks the gate, performs and verifies one action. Errors
// (the gate is consulted and told first wherever a target was named):
// InvalidArgument for a malformed request, NotFound / Stale for an ID that
// is not on screen (observe again), Unsupported when the element offers
// nothing the requested path can use, and whatever the backends report.
// A refusal by the gate is not an error: performed = false and `decision`
// says why.
Result<ActionResult> PerformAction(Workspace::Lease& lease, const ActionRequest& request);

// A few lines for people and models: what was done, how, the effect and
// the changes.
std::string FormatActionResult(const ActionResult& result);

std::string_view GateVerdictName(GateVerdict verdict);

}  // namespace uiscope
