// GatedAction: the one path every action takes through the ActionGate
// (engine/action_gate.h): check -> perform -> record, exactly once each.
//
// Constructing one asks the gate (Check); the action is performed only when
// allowed(); Record() reports the outcome, and the destructor reports
// whatever outcome was reached if no Record() came first (a refused action,
// an early error return), so no path out of an action can miss its audit
// row or write two. Every action kind (act: click, type, keys, scroll, drag,
// set_value, invoke, menu, plan steps; app_launch, app_focus, app_close;
// clipboard_set; confirm's replays) goes through it; nothing else in the
// engine calls ActionGate::Check or ActionGate::Record (a test scans for it).
//
// Gated() is the same as one call, for actions whose performing fits in a
// function.
//
// Not thread-safe: one action, one thread (the gate itself is thread-safe).
#pragma once

#include <functional>
#include <string>
#include <utility>

#include "engine/action_gate.h"

namespace uiscope {

class GatedAction {
 public:
  // Checks `planned` with `gate` now.
  GatedAction(ActionGate& gate, PlannedAction planned)
      : gate_(gate), planned_(std::move(planned)), decision_(gate_.Check(planned_)) {}
  ~GatedAction() { Record(); }
  GatedAction(const GatedAction&) = delete;
  GatedAction& operator=(const GatedAction&) = delete;

  const PlannedAction& planned() const { return planned_; }
  const GateDecision& decision() const { return decision_; }
  bool allowed() const { return decision_.verdict == GateVerdict::kAllow; }

  // What happened so far; the performer fills it in.
  ActionOutcome& outcome() { return outcome_; }

  // Reports the outcome so far (once: later calls, and the destructor, do
  // nothing).
  void Record() {
    if (recorded_) return;
    recorded_ = true;
    gate_.Record(planned_, decision_, outcome_);
  }
  // Reports `outcome` (once, as above).
  void Record(ActionOutcome outcome) {
    if (recorded_) return;
    outcome_ = std::move(outcome);
    Record();
  }

 private:
  ActionGate& gate_;
  PlannedAction planned_;
  GateDecision decision_;
  ActionOutcome outcome_;
  bool recorded_ = false;
};

// Checks `planned`; when allowed runs `perform`, whose outcome is recorded;
// when not, records that nothing was performed. Returns the decision.
inline GateDecision Gated(ActionGate& gate, PlannedAction planned,
                          const std::function<ActionOutcome(const GateDecision&)>& perform) {
  GatedAction action(gate, std::move(planned));
  if (action.allowed()) action.Record(perform(action.decision()));
  return action.decision();
}

}  // namespace uiscope
