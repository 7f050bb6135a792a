// PolicyGate: the safety policy between every action and the input backend
// (DESIGN §8), the real ActionGate of engine/action_gate.h.
//
// Check() applies, in this order, and the first rule that speaks decides:
//   1. the audit log must be writable: an action that cannot be recorded is
//      not performed (rule "audit", kDeny);
//   2. the deny list (kDeny), 3. R3 launch allow-list (kDeny),
//   4. R6 unknown / stale target (kDeny), 5. R5 points off screen or off the
//      target's window (kDrop);
//   6. a confirmation token brought by the caller: approved for this very
//      action -> kAllow, once; pending -> held again; denied / used /
//      foreign -> kDeny;
//   7. R4 ambiguous target, confirm_tools, and the rate limit of actions
//      without confirmation -> kNeedsConfirmation with a token (a retry of
//      the same held action gets the same token back), unless a person's
//      live grant covers the app and the rule (confirm_tools and rate
//      only; confirmations.h) -> kAllow, confirmed;
//   8. otherwise kAllow, counted by the rate limit, which is kept in the
//      shared audit log (AuditSink::AppendWithinRate): every process on the
//      state database spends the same budget.
// Rules 2-5 hold even with an approval: a person's "yes" does not make an
// off-screen click safe. An approval is bound to the action it was issued
// for (tool, desktop, target, arguments, text), so it cannot be spent on
// another one.
//
// One audit entry per Check(), redacted: text typed into a sensitive field
// (IsSensitive) is stored as "••••", and the secret is scrubbed from every
// other field of the entry as well. An allowed action's entry is written in
// Check(), in flight, before the caller performs anything, and completed by
// Record() (write-ahead, safety/audit.h); if it cannot be written the
// action is refused (rule "audit"). Refusals and holds are written by
// Record().
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "engine/action_gate.h"
#include "safety/audit.h"
#include "safety/confirmations.h"
#include "safety/policy_config.h"

namespace uiscope::safety {

class PolicyGate final : public ActionGate {
 public:
  using Clock = std::function<std::chrono::system_clock::time_point()>;

  // `audit` null means the audit log could not be opened: every action is
  // then refused with `audit_error` as the reason. `clock` defaults to the
  // system clock (tests pass their own).
  PolicyGate(PolicyConfig config, std::shared_ptr<AuditSink> audit,
             std::shared_ptr<ConfirmationStore> confirmations, std::string audit_error = "",
             Clock clock = {});

  GateDecision Check(const PlannedAction& action) override;
  void Record(const PlannedAction& action, const GateDecision& decision,
              const ActionOutcome& outcome) override;

  // A person's decision on a held action (elicitation, the confirm tool),
  // audited; an approval with `grant` also lets the held action's app go
  // ahead without asking within that scope (confirmations.h, Grant).
  // Errors as DecideConfirmation.
  Result<Confirmation> Decide(const std::string& token, bool approve,
                              const std::string& decided_by,
                              const std::optional<GrantScope>& grant = std::nullopt);
  Result<Confirmation> GetConfirmation(const std::string& token);
  // Polls the store until the confirmation is decided (by anyone, in any
  // process), `timeout` passes or `cancelled` returns true; returns it as
  // last read.
  Result<Confirmation> WaitForDecision(const std::string& token, std::chrono::milliseconds timeout,
                                       const std::function<bool()>& cancelled = {});

  // True for an application name on the deny list: the observation path
  // leaves such apps out (neither indexed nor acted on).
  bool IsDeniedApp(std::string_view app_name) const;

  const PolicyConfig& config() const { return config_; }
  ConfirmationStore& confirmations() { return *confirmations_; }
  int64_t NowMs() const;

 private:
  GateDecision ApplyRules(const PlannedAction& action);  // mutex_ held
  // The entry of `action` as far as the decision goes (redacted).
  AuditEntry EntryFor(const PlannedAction& action, const GateDecision& decision) const;
  std::optional<GateDecision> CheckToken(const PlannedAction& action,
                                         const std::string& fingerprint, int64_t now_ms);
  // An allow when a live grant covers `action` held by `rule` (one use
  // spent); nullopt otherwise.
  std::optional<GateDecision> UnderGrant(const PlannedAction& action, const std::string& rule,
                                         int64_t now_ms);
  // Step 8: the write-ahead entry of `action` within the rate limit (an
  // allow with its audit_id), or the action held by rule "rate".
  GateDecision TakeRateSlot(const PlannedAction& action, const std::string& fingerprint,
                            std::chrono::system_clock::time_point now);
  // The deny of an action whose write-ahead entry could not be appended:
  // remembers `error`, so what follows is refused until the log works.
  GateDecision Unrecorded(const std::string& tool, const Error& error);
  GateDecision AuditUnwritable() const;  // the deny while audit_error_ is set
  GateDecision Hold(const PlannedAction& action, GateDecision decision,
                    const std::string& fingerprint, int64_t now_ms);
  void ForgetOld(int64_t now_ms);

  const PolicyConfig config_;
  const std::shared_ptr<AuditSink> audit_;
  const std::shared_ptr<ConfirmationStore> confirmations_;
  const Clock clock_;

  mutable std::mutex mutex_;  // guards everything below
  std::string audit_error_;   // not empty: actions are refused
  struct Issued {
    std::string fingerprint;  // in memory only: it may contain typed text
    int64_t created_ms = 0;
  };
  std::map<std::string, Issued> issued_;                  // by token
  std::map<std::string, std::string> pending_by_action_;  // fingerprint -> token
};

// Records a decision on a confirmation and appends it to the audit log
// (decision "approved" / "rejected", the grant in its reason): what
// PolicyGate::Decide and `uiscope confirm` share. `audit` may be null. An
// approval with `grant` records a Grant for the held action's app, desktop
// and rule; InvalidArgument (nothing decided) when that rule cannot be
// granted away (IsGrantableRule).
Result<Confirmation> DecideConfirmation(ConfirmationStore& store, AuditSink* audit,
                                        const std::string& token, bool approve,
                                        const std::string& decided_by, int64_t now_ms,
                                        const std::optional<GrantScope>& grant = std::nullopt);

}  // namespace uiscope::safety
