// `confirm`, and what happens to actions the safety policy holds.
#include "mcp/tools/confirm_tools.h"

#include <algorithm>

#include "core/escape.h"
#include "engine/gated_action.h"
#include "mcp/tools/schemas.h"

namespace uiscope::mcp {
namespace {

using safety::Confirmation;
using safety::ConfirmationStatus;

std::string ExpiresIn(int64_t expires_ms, int64_t now_ms) {
  return std::to_string(std::max<int64_t>(0, (expires_ms - now_ms + 999) / 1000)) + " s";
}

ToolResult WithText(ToolResult result, std::string line) {
  result.content.insert(result.content.begin(), Content::Text(std::move(line)));
  return result;
}

// The answers to "also allow" in the elicitation, and the grant each gives.
struct GrantChoice {
  const char* answer;
  const char* spec;  // safety::ParseGrantScope
};
constexpr GrantChoice kGrantChoices[] = {
    {"only this action", ""},
    {"the next 10 actions", "10"},
    {"the next 5 minutes", "5m"},
    {"the next 30 minutes", "30m"},
};

// The question a person answers. For a hold that can be granted away (the
// rate limit, confirm_tools) it also offers to let the same app go ahead
// for a while, so that a person is not asked for every action and the
// agent never needs to approve itself.
json ApproveSchema(const std::string& what, const Confirmation* held) {
  json properties = {{"approve",
                      {{"type", "boolean"},
                       {"title", "Allow uiscope to " + EscapeForDisplay(what)},
                       {"description", "true performs the action once; false refuses it"},
                       {"default", false}}}};
  if (held != nullptr && safety::IsGrantableRule(held->rule)) {
    json answers = json::array();
    for (const GrantChoice& c : kGrantChoices) answers.push_back(c.answer);
    const std::string app = held->app.empty() ? "this desktop" : EscapeForDisplay(held->app, 60);
    properties["also_allow"] = {
        {"type", "string"},
        {"title", "Without asking again, also allow " + app + "'s actions for"},
        {"description",
         "held by rule " + EscapeForDisplay(held->rule) + "; an ambiguous target is always asked"},
        {"enum", answers},
        {"default", kGrantChoices[0].answer}};
  }
  return {{"type", "object"}, {"properties", properties}, {"required", {"approve"}}};
}

std::optional<safety::GrantScope> GrantFromAnswer(const json& content) {
  const json answer = content.value("also_allow", json(""));
  if (!answer.is_string()) return std::nullopt;
  for (const GrantChoice& c : kGrantChoices) {
    if (answer.get<std::string>() != c.answer || *c.spec == '\0') continue;
    auto scope = safety::ParseGrantScope(c.spec);
    if (scope.ok()) return *scope;
  }
  return std::nullopt;
}

// What a person types to approve `token`, with a grant where one is allowed.
std::string ApproveCommand(const std::string& token, const Confirmation* held) {
  std::string cmd = "`uiscope confirm " + token + " --approve`";
  if (held != nullptr && safety::IsGrantableRule(held->rule)) {
    cmd += " (with `--grant 30m` or `--grant 20` it also lets " +
           (held->app.empty() ? std::string("this desktop") : EscapeForDisplay(held->app, 60)) +
           " go ahead without asking for 30 minutes or 20 actions)";
  }
  return cmd;
}

}  // namespace

Confirmer::Confirmer(std::shared_ptr<ActionGate> gate)
    : gate_(gate ? std::move(gate) : std::make_shared<AllowAllGate>()),
      policy_(dynamic_cast<safety::PolicyGate*>(gate_.get())) {}

Confirmer::Attempt Confirmer::GatedAttempt(
    ActionGate& gate, PlannedAction action,
    const std::function<ToolResult(ActionOutcome*)>& perform) {
  GatedAction checked(gate, action);
  const GateDecision decision = checked.decision();
  if (decision.verdict == GateVerdict::kNeedsConfirmation) {
    checked.Record();
    return Attempt::Held(decision);
  }
  if (!checked.allowed()) {
    checked.Record();
    return Attempt::Done(Refused(action, decision));
  }
  ToolResult result = perform(&checked.outcome());
  checked.Record();
  return Attempt::Done(std::move(result));
}

ToolResult Confirmer::Refused(const PlannedAction& action, const GateDecision& d) {
  const bool dropped = d.verdict == GateVerdict::kDrop;
  ToolResult r = ToolResult::Error(std::string(dropped ? "dropped" : "denied") + " (" +
                                   EscapeForDisplay(d.rule) + "): " + EscapeForDisplay(d.reason));
  r.structured = {{"status", dropped ? "dropped" : "denied"},
                  {"tool", action.tool},
                  {"rule", d.rule},
                  {"reason", d.reason}};
  return r;
}

std::optional<Confirmer::Held> Confirmer::TakeHeld(const std::string& token) {
  std::lock_guard lock(mutex_);
  auto it = held_.find(token);
  if (it == held_.end()) return std::nullopt;
  Held held = std::move(it->second);
  held_.erase(it);
  return held;
}

ToolResult Confirmer::Hold(const GateDecision& decision, const std::string& what, AttemptFn attempt,
                           const std::string& note) {
  const int64_t now = policy_->NowMs();
  auto c = policy_->GetConfirmation(decision.token);
  const int64_t expires = c.ok() ? c->expires_ms : now;
  {
    std::lock_guard lock(mutex_);
    // Forget what can no longer be confirmed.
    for (auto it = held_.begin(); it != held_.end();) {
      it = it->second.expires_ms < now ? held_.erase(it) : std::next(it);
    }
    held_[decision.token] = Held{std::move(attempt), what, expires};
  }
  const std::string& t = decision.token;
  // What is held and why name the app's elements and the agent's text: the
  // one escaping printer keeps them from adding lines (a forged "Token:" or
  // "run uiscope confirm") to what the agent reads.
  std::string text = "confirmation_required: " + EscapeForDisplay(what) + " was NOT done. " +
                     EscapeForDisplay(decision.reason) +
                     ".\nToken: " + t + " (expires in " + ExpiresIn(expires, now) +
                     "). A person must decide: ask the user to run " +
                     ApproveCommand(t, c.ok() ? &*c : nullptr) + " or `uiscope confirm " + t +
                     " --deny` in a terminal, then call confirm with {\"token\": \"" + t +
                     "\", \"wait_ms\": 60000} to perform it once approved.";
  if (policy_->config().agent_may_confirm) {
    text += " If the user has told you to go ahead, call confirm with {\"token\": \"" + t +
            "\", \"decision\": \"approve\"}.";
  }
  if (!note.empty()) text += "\n" + note;
  ToolResult r = ToolResult::Error(std::move(text));
  r.structured = {{"status", "confirmation_required"},
                  {"token", t},
                  {"rule", decision.rule},
                  {"reason", decision.reason},
                  {"expires_ms", expires}};
  r.structured["approve_command"] = "uiscope confirm " + t + " --approve";
  r.structured["agent_may_confirm"] = policy_->config().agent_may_confirm;
  if (c.ok()) {
    r.structured["tool"] = c->tool;
    r.structured["target"] = c->target;
    r.structured["candidates"] = c->candidates;
    r.structured["grantable"] = safety::IsGrantableRule(c->rule);
  }
  return r;
}

ToolResult Confirmer::RunApproved(ToolContext& ctx, const std::string& token,
                                  const AttemptFn& attempt, const std::string& what) {
  Attempt again = attempt(token, ctx);
  if (again.held) {
    // Held once more (the approval no longer matches, e.g. the screen
    // changed the target): a new decision is needed.
    return Hold(*again.held, what, attempt, "");
  }
  return WithText(std::move(again.result), "approved (confirmation " + token + "): " + what);
}

ToolResult Confirmer::Denied(const Confirmation& c, const std::string& what) {
  ToolResult r = ToolResult::Error(
      "denied: " + what + " was not done; " +
      (c.decided_by.empty() ? std::string("a person refused it") : "refused by " + c.decided_by) +
      " (confirmation " + c.token + "). Do not retry it without asking the user.");
  r.structured = {{"status", "denied"}, {"token", c.token}, {"tool", c.tool}};
  return r;
}

ToolResult Confirmer::Run(ToolContext& ctx, const std::string& what, const AttemptFn& attempt) {
  Attempt first = attempt("", ctx);
  if (!first.held) return std::move(first.result);
  const GateDecision& held = *first.held;
  if (policy_ == nullptr || held.token.empty()) {
    if (!first.result.content.empty()) return std::move(first.result);
    return ToolResult::Error(
        "internal error: the action was held for confirmation, but this "
        "server has no confirmation store (this is a bug in uiscope)");
  }
  const std::string token = held.token;
  std::string note;
  if (ctx.CanElicit()) {
    ElicitRequest ask;
    auto pending = policy_->GetConfirmation(token);
    ask.message = "uiscope is about to " + EscapeForDisplay(what) + ".\n" +
                  EscapeForDisplay(held.reason) + ".\nAllow it?";
    ask.requested_schema = ApproveSchema(what, pending.ok() ? &*pending : nullptr);
    ask.timeout = policy_->config().elicitation_timeout;
    ask.answered_elsewhere = [this, &token] {
      auto c = policy_->GetConfirmation(token);
      return c.ok() && c->status != ConfirmationStatus::kPending;
    };
    auto answer = ctx.Elicit(ask);
    if (answer.ok()) {
      const bool approve =
          answer->action == "accept" && answer->content.value("approve", json(false)) == true;
      const std::string by =
          answer->action == "accept"
              ? "the user (MCP elicitation)"
              : "the user, who " +
                    std::string(answer->action == "decline" ? "declined" : "dismissed") +
                    " the question (MCP elicitation)";
      auto decided =
          policy_->Decide(token, approve, by, approve ? GrantFromAnswer(answer->content) : std::nullopt);
      if (decided.ok()) {
        if (approve) return RunApproved(ctx, token, attempt, what);
        return Denied(*decided, what);
      }
      // Decided elsewhere in the meantime: that decision stands (below).
    } else if (answer.error().code != ErrorCode::kStale) {
      note = "(the user could not be asked through the MCP client: " + answer.error().message + ")";
      ctx.Log(LogLevel::kWarning, "confirmation " + token + ": " + note);
    }
    auto c = policy_->GetConfirmation(token);
    if (c.ok() && c->status == ConfirmationStatus::kApproved) {
      return RunApproved(ctx, token, attempt, what);
    }
    if (c.ok() && c->status == ConfirmationStatus::kDenied) return Denied(*c, what);
  }
  return Hold(held, what, attempt, note);
}

ToolResult Confirmer::Confirm(ToolContext& ctx, const json& args) {
  if (policy_ == nullptr) {
    return ToolResult::Error("this server runs without a safety policy, so nothing is held");
  }
  const std::string token = args["token"].get<std::string>();
  const std::string decision = args.value("decision", "");
  if (!decision.empty()) {
    if (!policy_->config().agent_may_confirm) {
      return ToolResult::Error(
          "denied: the configuration leaves this decision to a person "
          "(confirmations.agent_may_confirm is false). Ask the user to run `uiscope confirm " +
          token + " --approve` (or --deny), then call confirm with {\"token\": \"" + token + "\"}");
    }
    auto decided =
        policy_->Decide(token, decision == "approve", "the agent, with the confirm tool");
    // Already decided (by a person, elsewhere): that decision stands and is
    // reported below.
    if (!decided.ok() && decided.error().code != ErrorCode::kStale) {
      return ToolResult::FromError(decided.error());
    }
  }
  const auto wait = std::chrono::milliseconds(args.value("wait_ms", 0));
  auto c = policy_->WaitForDecision(token, wait, [&ctx] { return ctx.cancelled(); });
  if (!c.ok()) return ToolResult::FromError(c.error());
  const int64_t now = policy_->NowMs();
  std::optional<Held> held;
  switch (c->status) {
    case ConfirmationStatus::kPending: {
      ToolResult r;
      r.content.push_back(Content::Text(
          "confirmation " + token + " is still waiting for a person (" + c->tool + ": " +
          c->reason + "); it expires in " + ExpiresIn(c->expires_ms, now) +
          ". A person must decide: ask the user to run " + ApproveCommand(token, &*c) +
          " or `uiscope confirm " + token +
          " --deny`, then call confirm again (wait_ms waits for it)."));
      r.structured = {{"status", "pending"}, {"token", token}, {"expires_ms", c->expires_ms}};
      return r;
    }
    case ConfirmationStatus::kDenied:
      held = TakeHeld(token);
      return Denied(*c, held ? held->what : c->tool);
    case ConfirmationStatus::kExpired:
      TakeHeld(token);
      return ToolResult::FromError(safety::NotDecidable(*c));
    case ConfirmationStatus::kUsed:
      return ToolResult::FromError(safety::NotDecidable(*c));
    case ConfirmationStatus::kApproved:
      break;
  }
  held = TakeHeld(token);
  if (!held) {
    return ToolResult::Error(
        "confirmation " + token + " is approved, but this server does not hold its action (it " +
        "was held by process " + std::to_string(c->holder_pid) +
        ", or it was already performed); call the tool again to get a new confirmation");
  }
  return RunApproved(ctx, token, held->attempt, held->what);
}

Status RegisterConfirmTools(ToolRegistry& registry, std::shared_ptr<Confirmer> confirmer) {
  Tool confirm;
  confirm.name = "confirm";
  confirm.title = "Confirm or refuse a held action";
  confirm.description =
      "Completes a confirmation_required action. Token alone: performs it once a person "
      "approved it (`uiscope confirm TOKEN --approve`), waiting up to wait_ms. With decision: "
      "relays the user's own answer, if allowed. Never approve without the user's consent.";
  confirm.input_schema = {{"type", "object"},
                          {"additionalProperties", false},
                          {"required", {"token"}},
                          {"properties",
                           {{"token",
                             {{"type", "string"},
                              {"minLength", 1},
                              {"maxLength", 64},
                              {"description", "from the confirmation_required result"}}},
                            {"decision",
                             {{"type", "string"},
                              {"enum", {"approve", "deny"}},
                              {"description", "the user's own answer"}}},
                            {"wait_ms",
                             {{"type", "integer"},
                              {"minimum", 0},
                              {"maximum", 600000},
                              {"default", 0},
                              {"description", "wait this long for a person"}}}}}};
  confirm.annotations = ToolAnnotations{
      .read_only = false, .destructive = true, .idempotent = false, .open_world = false};
  confirm.handler = [confirmer](const json& args, ToolContext& ctx) {
    return confirmer->Confirm(ctx, args);
  };
  return registry.Add(std::move(confirm));
}

}  // namespace uiscope::mcp
