// ActionGate: the seam between the action executor (engine, DESIGN §7) and
// the safety policy (src/safety, DESIGN §8).
//
// Every action the engine performs — click, type, keys, scroll, drag, set
// value, accessibility action, app launch / focus / close, plan steps — is
// described as a PlannedAction in plain data and passed to Check() before
// any input reaches the desktop; the executor performs it only on kAllow.
// After the action (performed or not) the executor calls Record() with the
// decision and the outcome. A gate that keeps an audit log writes an allowed
// action's entry in Check() itself, before the executor sends anything, and
// completes it in Record(): a process killed mid-action leaves its entry
// "in flight", never missing (safety/audit.h). The
// executor never decides policy itself: out-of-screen points, stale IDs,
// ambiguous targets, allow / deny lists and rate limits are the gate's.
//
// Implementations: safety::PolicyGate (the real policy, src/safety) and
// AllowAllGate below (tests, and builds without a policy). Both are safe to
// call from several threads at once.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/geometry.h"
#include "core/node.h"

namespace uiscope {

// What an action is about to do. Screen pixels of the captured display
// throughout (the frame of observe and screenshot).
struct PlannedAction {
  std::string tool;     // the tool verb: "click", "type_text", "press_keys", "scroll", "drag",
                        // "set_value", "invoke", "app_launch", "app_focus", "app_close", "plan"
  std::string display;  // ":N" of the desktop acted on
  std::string session;  // uiscope session ID ("" = none)

  // The element acted on. `target_id` is what the caller asked for ("" for
  // actions by point or keys alone); `target` the element it resolved to in
  // a fresh observation (nullopt: unknown or stale ID); `target_window` the
  // bounds of that element's window.
  std::string target_id;
  std::optional<Node> target;
  std::optional<Rect> target_window;
  // How many elements matched when the target was named by label rather
  // than ID (find-then-act, plan steps); 1 for an ID. Above 1 is ambiguous.
  int candidates = 1;
  std::vector<Node> candidate_nodes;  // the matches, when candidates > 1

  // Every screen point the input will touch: a click point, a drag's start
  // and end, the pointer position of a scroll. Empty for keys / text only.
  std::vector<Point> points;
  Frame frame;  // the screen size, for out-of-screen checks

  // Text the action types or sets (type_text, set_value), raw: the gate
  // decides what may be stored. `sensitive` is set when the target is a
  // password / secured field (the gate must never log or store `text` then).
  std::string text;
  bool sensitive = false;

  std::string command;  // app_launch: the command line
  std::string app;      // the application acted on, when known
  // The input would reach a window of an application the observers hide
  // (the deny list; engine/privacy.h): a point inside one, keys or text to
  // a focused one. Such apps have no elements in any tree, so this is how
  // the gate hears of them.
  bool hidden_window = false;
  // A step of a plan (execute_plan): confirm_tools' "plan" holds it; with
  // `require_confirmation` (the step's requireConfirmation) it is held for a
  // person whatever the configuration.
  bool plan_step = false;
  bool require_confirmation = false;

  // The tool's arguments as given, for the audit log (the gate redacts).
  nlohmann::json arguments = nlohmann::json::object();

  // An approval the caller brings (the token of an earlier
  // kNeedsConfirmation, approved through `confirm` or elicitation).
  std::string confirmation_token;

  // Hash of the screen before the action (XXH3 of the captured frame, hex;
  // "" when not captured).
  std::string screen_hash_before;
};

enum class GateVerdict {
  kAllow,              // perform it
  kDrop,               // refused as unsafe input (out of screen / window): nothing sent
  kDeny,               // refused by policy (deny list, unknown ID, not allow-listed)
  kNeedsConfirmation,  // held: a person must approve (token below)
};

struct GateDecision {
  GateVerdict verdict = GateVerdict::kAllow;
  std::string rule;    // "R5", "R6", "R4", "R3", "rate", ... ("" for a plain allow)
  std::string reason;  // what happened and what to do, for the agent
  std::string token;   // kNeedsConfirmation: the confirmation to approve or deny
  // kAllow: the audit entry written ahead for this action (PolicyGate), which
  // Record() completes; 0 when the gate keeps no log. Pass the decision
  // back to Record() unchanged.
  int64_t audit_id = 0;
};

// What happened, for Record().
struct ActionOutcome {
  bool performed = false;  // input or an accessibility call reached the app
  std::string via;         // "accessibility", "editable_text", "value", "xtest", ...
  std::string effect;      // "observed" | "none" | "unverified" | "" (not performed)
  std::string error;       // the failure, when the action failed after the gate
  nlohmann::json verification = nlohmann::json::object();  // summary of what changed
  std::string screen_hash_after;
};

class ActionGate {
 public:
  virtual ~ActionGate() = default;

  // The decision for `action`. May record a pending confirmation.
  virtual GateDecision Check(const PlannedAction& action) = 0;

  // Called once per Check(), after the action was performed or refused.
  virtual void Record(const PlannedAction& action, const GateDecision& decision,
                      const ActionOutcome& outcome) = 0;
};

// Allows everything and records nothing. For tests and embedders that run
// their own policy.
class AllowAllGate final : public ActionGate {
 public:
  GateDecision Check(const PlannedAction&) override { return {}; }
  void Record(const PlannedAction&, const GateDecision&, const ActionOutcome&) override {}
};

}  // namespace uiscope
