// RecordingGate (tests only): an ActionGate that answers with a verdict the
// test chooses and records every Check and Record, so tests can see that
// each action was described to the policy before input and reported after.
#pragma once

#include <mutex>
#include <vector>

#include "engine/action_gate.h"

namespace uiscope::test {

class RecordingGate final : public ActionGate {
 public:
  struct Entry {
    PlannedAction action;
    GateDecision decision;
    ActionOutcome outcome;
    bool recorded = false;
  };

  // The answer to every Check.
  GateDecision answer;

  GateDecision Check(const PlannedAction& action) override {
    std::lock_guard lock(mutex_);
    entries_.push_back({action, answer, {}, false});
    return answer;
  }
  void Record(const PlannedAction& action, const GateDecision& decision,
              const ActionOutcome& outcome) override {
    std::lock_guard lock(mutex_);
    for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
      if (!it->recorded && it->action.tool == action.tool) {
        it->outcome = outcome;
        it->decision = decision;
        it->recorded = true;
        return;
      }
    }
    entries_.push_back({action, decision, outcome, true});  // Record without Check: a bug
    unmatched_records_++;
  }

  std::vector<Entry> entries() {
    std::lock_guard lock(mutex_);
    return entries_;
  }
  int unmatched_records() const { return unmatched_records_; }

 private:
  std::mutex mutex_;
  std::vector<Entry> entries_;
  int unmatched_records_ = 0;
};

}  // namespace uiscope::test
