// Confirmations over MCP (DESIGN §8, issue 7): what happens to an action the
// safety policy holds, and the `confirm` tool.
//
// A tool that acts runs its action through Confirmer::Run as an "attempt": a
// function that builds the PlannedAction, asks the gate, performs the action
// when allowed and records it, and reports whether the gate held it. When it
// is held (R4 ambiguous target, confirm_tools, rate limit):
//   - if the client declared the elicitation capability, the user is asked
//     right away through elicitation/create (the call waits, up to
//     confirmations.elicitation_timeout_seconds); "approve" runs the attempt
//     again with the approved token, anything else denies it. A decision
//     taken meanwhile elsewhere (`uiscope confirm`) ends the question too;
//   - otherwise (or when the user did not answer in time) the attempt is kept
//     under its token and the call returns `confirmation_required` (isError,
//     with structuredContent {status, token, tool, target, rule, reason,
//     candidates, expires_ms}). A person decides with `uiscope confirm TOKEN
//     --approve|--deny` or, when confirmations.agent_may_confirm allows it,
//     the agent relays the user's answer with `confirm {token, decision}`.
//     `confirm {token}` then performs the approved action (waiting up to
//     wait_ms for a decision still to come) and returns its result.
// Held attempts live in this process only (they hold the raw arguments,
// typed text included); the decision travels through the state database.
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "engine/action_gate.h"
#include "mcp/tool_registry.h"
#include "safety/policy_gate.h"

namespace uiscope::mcp {

class Confirmer {
 public:
  // One run of an action: `held` is set when the gate held it for
  // confirmation (its decision, with the token); otherwise `result` is the
  // tool's final answer. A held attempt may bring the tool's own result
  // too: it is returned as is when the gate is no PolicyGate (nothing to
  // confirm with here; the decision and token are in it).
  struct Attempt {
    ToolResult result;
    std::optional<GateDecision> held;

    static Attempt Done(ToolResult r) { return {std::move(r), std::nullopt}; }
    static Attempt Held(GateDecision d, ToolResult r = {}) { return {std::move(r), std::move(d)}; }
  };
  // Runs the action once, bringing `confirmation_token` ("" the first time)
  // in PlannedAction::confirmation_token. `ctx` is the call running it now:
  // a held attempt runs again later inside `confirm`, so it must copy what
  // it needs and never keep the first call's context.
  using AttemptFn = std::function<Attempt(const std::string& confirmation_token, ToolContext& ctx)>;

  // `gate` checks and records the actions of the tools using this
  // Confirmer. Holding needs it to be a safety::PolicyGate (the
  // confirmations live there); AllowAllGate never holds.
  explicit Confirmer(std::shared_ptr<ActionGate> gate);

  ActionGate& gate() { return *gate_; }
  safety::PolicyGate* policy() { return policy_; }

  // Runs `attempt`, and when the gate holds it, asks or holds as described
  // above. `what` says what the action does, for the user ("stop session
  // s3 and every app in it").
  ToolResult Run(ToolContext& ctx, const std::string& what, const AttemptFn& attempt);

  // The `confirm` tool: {token, decision?: "approve"|"deny", wait_ms?}.
  ToolResult Confirm(ToolContext& ctx, const json& args);

  // For action tools: Check, then `perform` when allowed, then Record, in
  // one attempt. `perform` returns the tool result and what to record.
  static Attempt GatedAttempt(ActionGate& gate, PlannedAction action,
                              const std::function<ToolResult(ActionOutcome*)>& perform);
  // The result of an action the gate refused (dropped or denied).
  static ToolResult Refused(const PlannedAction& action, const GateDecision& decision);

 private:
  struct Held {
    AttemptFn attempt;
    std::string what;
    int64_t expires_ms = 0;
  };

  ToolResult Hold(const GateDecision& decision, const std::string& what, AttemptFn attempt,
                  const std::string& note);
  ToolResult RunApproved(ToolContext& ctx, const std::string& token, const AttemptFn& attempt,
                         const std::string& what);
  ToolResult Denied(const safety::Confirmation& c, const std::string& what);
  std::optional<Held> TakeHeld(const std::string& token);

  std::shared_ptr<ActionGate> gate_;
  safety::PolicyGate* policy_;  // gate_ when it is a PolicyGate
  std::mutex mutex_;
  std::map<std::string, Held> held_;  // by token
};

// The `confirm` tool.
Status RegisterConfirmTools(ToolRegistry& registry, std::shared_ptr<Confirmer> confirmer);

}  // namespace uiscope::mcp
