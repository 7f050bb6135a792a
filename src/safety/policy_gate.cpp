#include "safety/policy_gate.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <thread>

#include "safety/redact.h"
#include "safety/rules.h"

namespace uiscope::safety {
namespace {

using std::chrono::milliseconds;

int64_t ToMs(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<milliseconds>(t.time_since_epoch()).count();
}

GateDecision Verdict(GateVerdict verdict, std::string rule, std::string reason,
                     std::string token = "") {
  GateDecision d;
  d.verdict = verdict;
  d.rule = std::move(rule);
  d.reason = std::move(reason);
  d.token = std::move(token);
  return d;
}

// What binds an approval to one action. Kept in memory only.
std::string Fingerprint(const PlannedAction& a) {
  nlohmann::json args = a.arguments;
  if (args.is_object()) args.erase("confirmation_token");
  std::string f;
  for (const std::string* part :
       {&a.tool, &a.display, &a.session, &a.target_id, &a.command, &a.app, &a.text}) {
    f += *part;
    f += '\x1f';
  }
  return f + args.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void Scrub(nlohmann::json& j, const std::string& secret);

// The fingerprint as other processes may check it (Confirmation::binding):
// text typed into a sensitive field is masked, so no secret is stored.
std::string Binding(const PlannedAction& a, bool sensitive) {
  if (!sensitive) return Fingerprint(a);
  PlannedAction masked = a;
  masked.text = a.text.empty() ? "" : std::string(kMask);
  masked.arguments = RedactArguments(a.arguments, true);
  Scrub(masked.arguments, a.text);
  return Fingerprint(masked);
}

// Replaces every occurrence of `secret` inside the strings of `j`.
void Scrub(nlohmann::json& j, const std::string& secret) {
  if (secret.empty()) return;
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    bool changed = false;
    for (size_t at = s.find(secret); at != std::string::npos;
         at = s.find(secret, at + kMask.size())) {
      s.replace(at, secret.size(), kMask);
      changed = true;
    }
    if (changed) j = s;
  } else if (j.is_object() || j.is_array()) {
    for (auto& v : j) Scrub(v, secret);
  }
}

std::string ScrubText(std::string text, const std::string& secret) {
  nlohmann::json j = std::move(text);
  Scrub(j, secret);
  return j.get<std::string>();
}

std::string_view DecisionName(const GateDecision& d, const ActionOutcome& outcome) {
  switch (d.verdict) {
    case GateVerdict::kAllow:
      return outcome.performed ? decision::kDone : decision::kFailed;
    case GateVerdict::kDrop:
      return decision::kDropped;
    case GateVerdict::kDeny:
      return decision::kDenied;
    case GateVerdict::kNeedsConfirmation:
      return decision::kAwaiting;
  }
  return decision::kDenied;
}

nlohmann::json CandidatesJson(const PlannedAction& a) {
  nlohmann::json out = nlohmann::json::array();
  for (const Node& n : a.candidate_nodes) {
    nlohmann::json c = {{"id", n.id}, {"role", std::string(RoleName(n.role))}, {"name", n.name}};
    if (n.bounds) {
      c["bounds"] = {
          {"x", n.bounds->x}, {"y", n.bounds->y}, {"w", n.bounds->w}, {"h", n.bounds->h}};
    }
    if (!n.app.empty()) c["app"] = n.app;
    out.push_back(std::move(c));
  }
  return out;
}

std::string SecondsText(std::chrono::seconds s) { return std::to_string(s.count()) + " s"; }

}  // namespace

PolicyGate::PolicyGate(PolicyConfig config, std::shared_ptr<AuditSink> audit,
                       std::shared_ptr<ConfirmationStore> confirmations, std::string audit_error,
                       Clock clock)
    : config_(std::move(config)),
      audit_(std::move(audit)),
      confirmations_(confirmations ? std::move(confirmations)
                                   : std::make_shared<MemoryConfirmationStore>()),
      clock_(clock ? std::move(clock) : Clock([] { return std::chrono::system_clock::now(); })),
      audit_error_(std::move(audit_error)) {
  if (!audit_ && audit_error_.empty()) audit_error_ = "no audit log was opened";
}

int64_t PolicyGate::NowMs() const { return ToMs(clock_()); }

bool PolicyGate::IsDeniedApp(std::string_view app_name) const {
  return MatchingPattern(config_.deny_apps, app_name).has_value();
}

void PolicyGate::ForgetOld(int64_t now_ms) {
  // Twice the expiry: a token is useless after it expires, but an agent
  // retrying with it should hear "expired", not "unknown".
  const int64_t horizon =
      now_ms - 2 * std::chrono::duration_cast<milliseconds>(config_.confirmation_expiry).count();
  for (auto it = issued_.begin(); it != issued_.end();) {
    if (it->second.created_ms < horizon) {
      pending_by_action_.erase(it->second.fingerprint);
      it = issued_.erase(it);
    } else {
      ++it;
    }
  }
}

std::optional<GateDecision> PolicyGate::CheckToken(const PlannedAction& action,
                                                   const std::string& fingerprint, int64_t now_ms) {
  const std::string& token = action.confirmation_token;
  const GateDecision other_action = Verdict(
      GateVerdict::kDeny, "confirmation",
      "confirmation " + token +
          " was issued for a different action (other tool, target or arguments); an approval "
          "covers only the action it was asked for");
  auto c = confirmations_->Get(token, now_ms);
  if (!c.ok()) {
    if (c.error().code == ErrorCode::kNotFound) {
      return Verdict(GateVerdict::kDeny, "confirmation",
                     "no confirmation " + token +
                         " was issued for an action (or it is long expired); call the tool "
                         "again without it to get a new one");
    }
    return Verdict(GateVerdict::kDeny, "confirmation",
                   "confirmation " + token + " cannot be read: " + c.error().message);
  }
  // Issued here: the full fingerprint (typed secrets included) must match.
  // Issued by another process (a CLI verb run again with its token): the
  // stored binding must.
  auto it = issued_.find(token);
  if (it != issued_.end()) {
    if (it->second.fingerprint != fingerprint) return other_action;
  } else if (c->binding.empty() || c->binding != Binding(action, IsSensitive(action))) {
    return other_action;
  }
  switch (c->status) {
    case ConfirmationStatus::kPending:
      return Verdict(GateVerdict::kNeedsConfirmation, c->rule,
                     "still waiting for a person to approve: " + c->reason, token);
    case ConfirmationStatus::kApproved: {
      auto used = confirmations_->Consume(token, now_ms);
      if (!used.ok()) return Verdict(GateVerdict::kDeny, "confirmation", used.error().message);
      pending_by_action_.erase(fingerprint);
      if (it != issued_.end()) issued_.erase(it);
      GateDecision allow;
      allow.token = token;  // Record() marks the entry as confirmed
      return allow;
    }
    case ConfirmationStatus::kDenied:
      pending_by_action_.erase(fingerprint);
      return Verdict(GateVerdict::kDeny, "confirmation",
                     "a person denied this action (confirmation " + token +
                         (c->decided_by.empty() ? "" : ", by " + c->decided_by) +
                         "); do not retry it without asking the user",
                     token);
    case ConfirmationStatus::kUsed:
      return Verdict(
          GateVerdict::kDeny, "confirmation",
          "confirmation " + token + " was already used: each approval performs its action once",
          token);
    case ConfirmationStatus::kExpired:
      // Like no token at all: the rules below decide, and may hold the
      // action again under a new token.
      pending_by_action_.erase(fingerprint);
      if (it != issued_.end()) issued_.erase(it);
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<GateDecision> PolicyGate::UnderGrant(const PlannedAction& action,
                                                   const std::string& rule, int64_t now_ms) {
  GrantQuery q;
  q.app = !action.app.empty() ? action.app : (action.target ? action.target->app : "");
  q.display = action.display;
  q.session = action.session;
  q.rule = rule;
  q.tool = action.tool;
  auto used = confirmations_->UseGrant(q, now_ms);
  if (!used.ok()) {
    spdlog::warn("grants cannot be read ({}); the action is held instead", used.error().message);
    return std::nullopt;
  }
  if (!used->has_value()) return std::nullopt;
  const Grant& g = **used;
  GateDecision allow;
  allow.token = g.token;  // Record() marks the entry as confirmed
  allow.reason = "under the grant " + g.decided_by + " gave with confirmation " + g.token + " (" +
                 (g.max_actions > 0 ? "action " + std::to_string(g.used) + " of " +
                                          std::to_string(g.max_actions) + ", "
                                    : std::string()) +
                 "until " + std::to_string((g.expires_ms - now_ms + 999) / 1000) + " s from now)";
  return allow;
}

GateDecision PolicyGate::Hold(const PlannedAction& action, GateDecision decision,
                              const std::string& fingerprint, int64_t now_ms) {
  // The same held action asked again (an agent retrying) keeps its token.
  if (auto it = pending_by_action_.find(fingerprint); it != pending_by_action_.end()) {
    auto c = confirmations_->Get(it->second, now_ms);
    if (c.ok() && c->status == ConfirmationStatus::kPending) {
      decision.token = it->second;
      decision.reason += " (already waiting for a decision on confirmation " + it->second + ")";
      return decision;
    }
    pending_by_action_.erase(it);
  }
  const bool sensitive = IsSensitive(action);
  const std::string binding = Binding(action, sensitive);
  if (!sensitive) {
    // Held by another process (an earlier run of the same CLI verb) and still
    // pending: the same token, so a person approves each action once.
    const int64_t since =
        now_ms - std::chrono::duration_cast<milliseconds>(config_.confirmation_expiry).count();
    auto pending = confirmations_->List(/*pending_only=*/true, since, now_ms);
    if (pending.ok()) {
      for (const Confirmation& p : *pending) {
        if (p.binding != binding) continue;
        issued_[p.token] = Issued{fingerprint, p.created_ms};
        pending_by_action_[fingerprint] = p.token;
        decision.token = p.token;
        decision.reason += " (already waiting for a decision on confirmation " + p.token + ")";
        return decision;
      }
    }
  }
  Confirmation c;
  c.created_ms = now_ms;
  c.expires_ms =
      now_ms + std::chrono::duration_cast<milliseconds>(config_.confirmation_expiry).count();
  c.tool = action.tool;
  c.target = action.target ? DescribeNode(*action.target) : action.target_id;
  c.app = !action.app.empty() ? action.app : (action.target ? action.target->app : "");
  c.display = action.display;
  c.session = action.session;
  c.rule = decision.rule;
  c.reason = decision.reason;
  c.candidates = CandidatesJson(action);
  c.arguments = RedactArguments(action.arguments, sensitive);
  if (sensitive) Scrub(c.arguments, action.text);
  c.holder_pid = static_cast<int>(getpid());
  c.binding = binding;
  for (int attempt = 0; attempt < 3; ++attempt) {
    c.token = NewConfirmationToken();
    auto created = confirmations_->Create(c);
    if (created.ok()) {
      issued_[c.token] = Issued{fingerprint, now_ms};
      pending_by_action_[fingerprint] = c.token;
      decision.token = c.token;
      return decision;
    }
    if (created.error().code != ErrorCode::kInvalidArgument) {
      return Verdict(
          GateVerdict::kDeny, "confirmation",
          "this action needs a confirmation, but it cannot be stored: " + created.error().message);
    }
  }
  return Verdict(GateVerdict::kDeny, "confirmation",
                 "this action needs a confirmation, but no free token was found");
}

AuditEntry PolicyGate::EntryFor(const PlannedAction& action, const GateDecision& decision) const {
  const bool sensitive = IsSensitive(action);
  AuditEntry e;
  e.time_ms = NowMs();
  e.pid = static_cast<int>(getpid());
  e.session = action.session;
  e.display = action.display;
  e.tool = action.tool;
  e.target = action.target_id;
  e.target_desc = action.target ? DescribeNode(*action.target) : "";
  e.app = !action.app.empty() ? action.app : (action.target ? action.target->app : "");
  e.arguments = RedactArguments(action.arguments, sensitive);
  e.rule = decision.rule;
  e.reason = decision.reason;
  e.token = decision.token;
  e.confirmed = decision.verdict == GateVerdict::kAllow && !decision.token.empty();
  e.screen_before = action.screen_hash_before;
  if (sensitive && !action.text.empty()) {
    Scrub(e.arguments, action.text);
    e.reason = ScrubText(e.reason, action.text);
  }
  return e;
}

GateDecision PolicyGate::Check(const PlannedAction& action) {
  std::lock_guard lock(mutex_);
  GateDecision d = ApplyRules(action);
  // An action within the rate limit already has its entry: the slot and the
  // entry were taken together (ApplyRules).
  if (d.verdict != GateVerdict::kAllow || !audit_ || d.audit_id != 0) return d;
  // Write-ahead: the entry is committed before the caller sends anything,
  // so a crash mid-action leaves it in flight instead of leaving no trace.
  AuditEntry e = EntryFor(action, d);
  e.decision = std::string(decision::kInFlight);
  auto appended = audit_->Append(e);
  if (!appended.ok()) return Unrecorded(e.tool, appended.error());
  d.audit_id = *appended;
  return d;
}

GateDecision PolicyGate::Unrecorded(const std::string& tool, const Error& error) {
  audit_error_ = error.message;
  spdlog::error("audit log: cannot record {} before performing it: {}", tool, error.message);
  return AuditUnwritable();
}

GateDecision PolicyGate::AuditUnwritable() const {
  return Verdict(GateVerdict::kDeny, "audit",
                 "the audit log cannot be written (" + audit_error_ +
                     "); uiscope performs no action it cannot record. Fix the database "
                     "(\"database\" in the configuration) or its permissions");
}

GateDecision PolicyGate::ApplyRules(const PlannedAction& action) {
  const auto now = clock_();
  const int64_t now_ms = ToMs(now);
  ForgetOld(now_ms);

  if (!audit_error_.empty()) return AuditUnwritable();
  if (auto d = CheckDenyList(action, config_.deny_apps)) return *d;
  if (auto d = CheckLaunchAllowList(action, config_.launch_allow)) return *d;
  if (auto d = CheckKnownTarget(action)) return *d;
  if (auto d = CheckPoints(action)) return *d;

  const std::string fingerprint = Fingerprint(action);
  if (!action.confirmation_token.empty()) {
    if (auto d = CheckToken(action, fingerprint, now_ms)) return *d;
  }

  if (auto d = CheckAmbiguous(action)) return Hold(action, *d, fingerprint, now_ms);
  if (auto d = CheckConfirmTools(action, config_.confirm_tools)) {
    if (auto granted = UnderGrant(action, d->rule, now_ms)) return *granted;
    return Hold(action, *d, fingerprint, now_ms);
  }
  if (config_.rate_limit.max_actions <= 0 || !audit_) return GateDecision{};
  return TakeRateSlot(action, fingerprint, now);
}

GateDecision PolicyGate::TakeRateSlot(const PlannedAction& action, const std::string& fingerprint,
                                      std::chrono::system_clock::time_point now) {
  // The limit is counted in the shared audit log, not in this process: the
  // write-ahead entry is appended only while the window has room, in one
  // step, so every process on the state database (an MCP server, CLI verbs
  // run at once) shares the same budget.
  const int64_t now_ms = ToMs(now);
  const auto window = config_.rate_limit.window;
  const int64_t window_ms = std::chrono::duration_cast<milliseconds>(window).count();
  AuditEntry e = EntryFor(action, GateDecision{});
  e.time_ms = now_ms;
  e.decision = std::string(decision::kInFlight);
  auto slot = audit_->AppendWithinRate(e, now_ms - window_ms, config_.rate_limit.max_actions);
  if (!slot.ok()) return Unrecorded(e.tool, slot.error());
  if (slot->id != 0) {
    GateDecision allow;
    allow.audit_id = slot->id;
    return allow;
  }
  if (auto granted = UnderGrant(action, "rate", now_ms)) return *granted;
  // The counted times are those in the window, ascending: one more fits once
  // the oldest of the last max_actions has left it. (Fewer than max_actions
  // when some finished as failed since the slot was refused: try again now.)
  const std::vector<int64_t>& times = slot->times;
  const size_t max_actions = static_cast<size_t>(config_.rate_limit.max_actions);
  const int64_t free_ms =
      times.size() >= max_actions ? times[times.size() - max_actions] + window_ms : now_ms;
  const auto wait =
      std::chrono::duration_cast<std::chrono::seconds>(milliseconds(free_ms - now_ms)) +
      std::chrono::seconds(1);
  GateDecision d = Verdict(
      GateVerdict::kNeedsConfirmation, "rate",
      std::to_string(times.size()) + " actions were performed without confirmation in " +
          "the last " + SecondsText(window) +
          " (rate_limit: " + std::to_string(config_.rate_limit.max_actions) + " per " +
          SecondsText(window) + "). A person must confirm this one, or wait " + SecondsText(wait));
  return Hold(action, std::move(d), fingerprint, now_ms);
}

void PolicyGate::Record(const PlannedAction& action, const GateDecision& decision,
                        const ActionOutcome& outcome) {
  const bool sensitive = IsSensitive(action);
  const std::string secret = sensitive ? action.text : std::string();
  AuditEntry e = EntryFor(action, decision);
  e.finished_ms = e.time_ms;
  e.decision = std::string(DecisionName(decision, outcome));
  e.via = outcome.via;
  e.verification = outcome.verification.is_null() ? nlohmann::json::object() : outcome.verification;
  e.error = outcome.error;
  e.screen_after = outcome.screen_hash_after;
  if (!secret.empty()) {
    Scrub(e.verification, secret);
    e.error = ScrubText(e.error, secret);
  }

  std::lock_guard lock(mutex_);
  if (!audit_) return;  // Check() refused the action already
  Status written = OkStatus();
  if (decision.audit_id != 0) {
    written = audit_->Complete(decision.audit_id, e);
  } else if (auto appended = audit_->Append(e); !appended.ok()) {
    written = appended.error();
  }
  if (written.ok()) {
    audit_error_.clear();
  } else {
    // The outcome is lost (an allowed action's entry stays in flight);
    // refuse what follows until the log works again.
    audit_error_ = written.error().message;
    spdlog::error("audit log: cannot record {} ({}): {}", e.tool, e.decision,
                  written.error().message);
  }
}

Result<Confirmation> DecideConfirmation(ConfirmationStore& store, AuditSink* audit,
                                        const std::string& token, bool approve,
                                        const std::string& decided_by, int64_t now_ms,
                                        const std::optional<GrantScope>& grant) {
  if (approve && grant) {
    // Checked before deciding: a grant that cannot be given must not leave
    // a bare approval behind.
    auto held = store.Get(token, now_ms);
    if (!held.ok()) return held;
    if (!IsGrantableRule(held->rule)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "confirmation " + token + " was held by rule " + held->rule + " (" +
                           held->reason +
                           "): a grant cannot cover that, each such action is decided alone. "
                           "Approve it without --grant");
    }
  }
  auto c = store.Decide(token, approve, decided_by, now_ms);
  if (!c.ok()) return c;
  std::string granted;
  if (approve && grant) {
    Grant g = MakeGrant(*c, *grant, decided_by, now_ms);
    auto added = store.AddGrant(g);
    if (!added.ok()) {
      return MakeError(added.error().code, "confirmation " + token +
                                               " is approved, but the grant could not be "
                                               "stored: " +
                                               added.error().message);
    }
    granted = "; granted " + DescribeGrantScope(*grant) + " for " +
              (g.app.empty() ? std::string("actions of unknown apps") : g.app) + " on " +
              (g.display.empty() ? std::string("this desktop") : g.display) + " (rule " + g.rule +
              (g.tool.empty() ? "" : ", tool " + g.tool) + ")";
  }
  if (audit != nullptr) {
    AuditEntry e;
    e.time_ms = now_ms;
    e.pid = static_cast<int>(getpid());
    e.session = c->session;
    e.display = c->display;
    e.tool = c->tool;
    e.target_desc = c->target;
    e.app = c->app;
    e.arguments = c->arguments;  // stored redacted
    e.decision = std::string(approve ? decision::kApproved : decision::kRejected);
    e.rule = c->rule;
    e.reason = std::string(approve ? "approved" : "denied") + " by " + decided_by + granted;
    e.token = token;
    if (auto st = audit->Append(e); !st.ok()) {
      spdlog::error("audit log: cannot record the decision on {}: {}", token, st.error().message);
    }
  }
  return c;
}

Result<Confirmation> PolicyGate::Decide(const std::string& token, bool approve,
                                        const std::string& decided_by,
                                        const std::optional<GrantScope>& grant) {
  return DecideConfirmation(*confirmations_, audit_.get(), token, approve, decided_by, NowMs(),
                            grant);
}

Result<Confirmation> PolicyGate::GetConfirmation(const std::string& token) {
  return confirmations_->Get(token, NowMs());
}

Result<Confirmation> PolicyGate::WaitForDecision(const std::string& token,
                                                 std::chrono::milliseconds timeout,
                                                 const std::function<bool()>& cancelled) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto c = confirmations_->Get(token, NowMs());
    if (!c.ok() || c->status != ConfirmationStatus::kPending) return c;
    if (std::chrono::steady_clock::now() >= deadline || (cancelled && cancelled())) return c;
    // A decision from another process arrives through the database; 100 ms
    // is quick for a person and cheap for SQLite (one indexed read).
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        milliseconds(100), deadline - std::chrono::steady_clock::now()));
  }
}

}  // namespace uiscope::safety
