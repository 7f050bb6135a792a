#include "safety/confirmations.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <array>
#include <random>

namespace uiscope::safety {

std::string_view ConfirmationStatusName(ConfirmationStatus status) {
  switch (status) {
    case ConfirmationStatus::kPending:
      return "pending";
    case ConfirmationStatus::kApproved:
      return "approved";
    case ConfirmationStatus::kDenied:
      return "denied";
    case ConfirmationStatus::kExpired:
      return "expired";
    case ConfirmationStatus::kUsed:
      return "used";
  }
  return "pending";
}

std::optional<ConfirmationStatus> ParseConfirmationStatus(std::string_view name) {
  for (auto s :
       {ConfirmationStatus::kPending, ConfirmationStatus::kApproved, ConfirmationStatus::kDenied,
        ConfirmationStatus::kExpired, ConfirmationStatus::kUsed}) {
    if (ConfirmationStatusName(s) == name) return s;
  }
  return std::nullopt;
}

nlohmann::json ConfirmationToJson(const Confirmation& c) {
  nlohmann::json j = {{"token", c.token},
                      {"status", std::string(ConfirmationStatusName(c.status))},
                      {"created_ms", c.created_ms},
                      {"expires_ms", c.expires_ms},
                      {"tool", c.tool},
                      {"target", c.target},
                      {"app", c.app},
                      {"display", c.display},
                      {"session", c.session},
                      {"rule", c.rule},
                      {"reason", c.reason},
                      {"candidates", c.candidates},
                      {"arguments", c.arguments},
                      {"holder_pid", c.holder_pid}};
  if (c.decided_ms != 0) {
    j["decided_ms"] = c.decided_ms;
    j["decided_by"] = c.decided_by;
  }
  return j;
}

std::string NewConfirmationToken() {
  static constexpr char kAlphabet[] = "abcdefghijkmnpqrstuvwxyz23456789";  // 32, no l/o/0/1
  std::array<unsigned char, 10> bytes{};
  size_t got = 0;
  while (got < bytes.size()) {
    ssize_t n = getrandom(bytes.data() + got, bytes.size() - got, 0);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  if (got < bytes.size()) {
    // getrandom cannot fail on Linux >= 3.17 once the pool is ready; this is
    // a last resort, not a normal path.
    std::random_device device;
    for (auto& b : bytes) b = static_cast<unsigned char>(device());
  }
  std::string token;
  for (unsigned char b : bytes) token += kAlphabet[b & 31];
  return token;
}

Error NotDecidable(const Confirmation& c) {
  switch (c.status) {
    case ConfirmationStatus::kExpired:
      return MakeError(ErrorCode::kStale, "confirmation " + c.token +
                                              " has expired; nothing was done. Try the action "
                                              "again for a new confirmation");
    case ConfirmationStatus::kApproved:
      return MakeError(ErrorCode::kStale,
                       "confirmation " + c.token + " was already approved" +
                           (c.decided_by.empty() ? "" : " (by " + c.decided_by + ")"));
    case ConfirmationStatus::kDenied:
      return MakeError(ErrorCode::kStale,
                       "confirmation " + c.token + " was already denied" +
                           (c.decided_by.empty() ? "" : " (by " + c.decided_by + ")"));
    case ConfirmationStatus::kUsed:
      return MakeError(ErrorCode::kStale,
                       "confirmation " + c.token + " was approved and already performed");
    case ConfirmationStatus::kPending:
      return MakeError(ErrorCode::kStale,
                       "confirmation " + c.token + " is still waiting for a decision");
  }
  return MakeError(ErrorCode::kInternal, "unknown confirmation state");
}

// --- Grants -------------------------------------------------------------------

Result<GrantScope> ParseGrantScope(std::string_view spec) {
  auto bad = [&](const std::string& why) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "grant \"" + std::string(spec) + "\" " + why +
                         ": give a duration (90s, 30m, 2h; at most 24h), a number of actions "
                         "(20 or 20x; at most " +
                         std::to_string(kMaxGrantActions) +
                         "), or both joined by a comma (30m,20: whichever ends first)");
  };
  GrantScope scope;
  bool any = false;
  size_t start = 0;
  while (start <= spec.size()) {
    size_t end = spec.find(',', start);
    if (end == std::string_view::npos) end = spec.size();
    std::string_view part = spec.substr(start, end - start);
    start = end + 1;
    if (part.empty()) return bad("has an empty part");
    const char unit = part.back();
    std::string_view digits = part;
    if (!std::isdigit(static_cast<unsigned char>(unit))) digits.remove_suffix(1);
    if (digits.empty() || digits.size() > 7 ||
        digits.find_first_not_of("0123456789") != std::string_view::npos) {
      return bad("is not understood");
    }
    const long n = std::stol(std::string(digits));
    if (n <= 0) return bad("must be more than 0");
    if (std::isdigit(static_cast<unsigned char>(unit)) || unit == 'x') {
      if (scope.actions != 0) return bad("names a number of actions twice");
      if (n > kMaxGrantActions) return bad("is too many actions");
      scope.actions = static_cast<int>(n);
    } else {
      const long per = unit == 's' ? 1 : unit == 'm' ? 60 : unit == 'h' ? 3600 : 0;
      if (per == 0) return bad("has an unknown unit '" + std::string(1, unit) + "'");
      if (scope.duration.count() != 0) return bad("names a duration twice");
      if (n > std::chrono::seconds(kMaxGrantDuration).count() / per) return bad("is too long");
      scope.duration = std::chrono::seconds(n * per);
    }
    any = true;
    if (end == spec.size()) break;
  }
  if (!any) return bad("is empty");
  return scope;
}

std::string DescribeGrantScope(const GrantScope& scope) {
  std::string time;
  const int64_t s = scope.duration.count();
  if (s != 0) {
    time = s % 3600 == 0 ? std::to_string(s / 3600) + " h"
           : s % 60 == 0 ? std::to_string(s / 60) + " min"
                         : std::to_string(s) + " s";
  }
  if (scope.actions == 0) return time;
  std::string count =
      std::to_string(scope.actions) + (scope.actions == 1 ? " action" : " actions");
  return time.empty() ? count : count + " or " + time + ", whichever ends first";
}

bool IsGrantableRule(std::string_view rule) { return rule == "rate" || rule == "confirm_tools"; }

Grant MakeGrant(const Confirmation& c, const GrantScope& scope, const std::string& decided_by,
                int64_t now_ms) {
  Grant g;
  g.token = c.token;
  g.created_ms = now_ms;
  const auto duration = scope.duration.count() != 0
                            ? scope.duration
                            : std::chrono::duration_cast<std::chrono::seconds>(kMaxGrantDuration);
  g.expires_ms = now_ms + duration.count() * 1000;
  g.max_actions = scope.actions;
  g.app = c.app;
  g.display = c.display;
  g.session = c.session;
  g.rule = c.rule;
  if (c.rule == "confirm_tools") g.tool = c.tool;
  g.decided_by = decided_by;
  return g;
}

nlohmann::json GrantToJson(const Grant& g) {
  return {{"id", g.id},           {"token", g.token},         {"created_ms", g.created_ms},
          {"expires_ms", g.expires_ms}, {"max_actions", g.max_actions}, {"used", g.used},
          {"app", g.app},         {"display", g.display},     {"session", g.session},
          {"rule", g.rule},       {"tool", g.tool},           {"decided_by", g.decided_by}};
}

bool IsLive(const Grant& g, int64_t now_ms) {
  return now_ms < g.expires_ms && (g.max_actions == 0 || g.used < g.max_actions);
}

// --- MemoryConfirmationStore ---------------------------------------------------

Confirmation* MemoryConfirmationStore::Find(const std::string& token, int64_t now_ms) {
  for (Confirmation& c : items_) {
    if (c.token != token) continue;
    if ((c.status == ConfirmationStatus::kPending || c.status == ConfirmationStatus::kApproved) &&
        now_ms > c.expires_ms) {
      c.status = ConfirmationStatus::kExpired;
    }
    return &c;
  }
  return nullptr;
}

Status MemoryConfirmationStore::Create(const Confirmation& confirmation) {
  std::lock_guard lock(mutex_);
  for (const Confirmation& c : items_) {
    if (c.token == confirmation.token) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "confirmation token " + confirmation.token + " is already in use");
    }
  }
  items_.push_back(confirmation);
  return OkStatus();
}

Result<Confirmation> MemoryConfirmationStore::Get(const std::string& token, int64_t now_ms) {
  std::lock_guard lock(mutex_);
  Confirmation* c = Find(token, now_ms);
  if (c == nullptr) {
    return MakeError(ErrorCode::kNotFound, "no confirmation " + token);
  }
  return *c;
}

Result<Confirmation> MemoryConfirmationStore::Decide(const std::string& token, bool approve,
                                                     const std::string& decided_by,
                                                     int64_t now_ms) {
  std::lock_guard lock(mutex_);
  Confirmation* c = Find(token, now_ms);
  if (c == nullptr) return MakeError(ErrorCode::kNotFound, "no confirmation " + token);
  if (c->status != ConfirmationStatus::kPending) return NotDecidable(*c);
  c->status = approve ? ConfirmationStatus::kApproved : ConfirmationStatus::kDenied;
  c->decided_ms = now_ms;
  c->decided_by = decided_by;
  return *c;
}

Result<Confirmation> MemoryConfirmationStore::Consume(const std::string& token, int64_t now_ms) {
  std::lock_guard lock(mutex_);
  Confirmation* c = Find(token, now_ms);
  if (c == nullptr) return MakeError(ErrorCode::kNotFound, "no confirmation " + token);
  if (c->status != ConfirmationStatus::kApproved) return NotDecidable(*c);
  c->status = ConfirmationStatus::kUsed;
  return *c;
}

Result<std::vector<Confirmation>> MemoryConfirmationStore::List(bool pending_only, int64_t since_ms,
                                                                int64_t now_ms) {
  std::lock_guard lock(mutex_);
  std::vector<Confirmation> out;
  for (Confirmation& c : items_) {
    Find(c.token, now_ms);  // brings the status up to date
    if (c.created_ms < since_ms) continue;
    if (pending_only && c.status != ConfirmationStatus::kPending) continue;
    out.push_back(c);
  }
  std::stable_sort(out.begin(), out.end(), [](const Confirmation& a, const Confirmation& b) {
    return a.created_ms < b.created_ms;
  });
  return out;
}

Result<int64_t> MemoryConfirmationStore::AddGrant(const Grant& grant) {
  std::lock_guard lock(mutex_);
  grants_.push_back(grant);
  grants_.back().id = static_cast<int64_t>(grants_.size());
  return grants_.back().id;
}

Result<std::optional<Grant>> MemoryConfirmationStore::UseGrant(const GrantQuery& q,
                                                               int64_t now_ms) {
  std::lock_guard lock(mutex_);
  for (Grant& g : grants_) {
    if (!IsLive(g, now_ms) || g.app != q.app || g.display != q.display ||
        g.session != q.session || g.rule != q.rule || (!g.tool.empty() && g.tool != q.tool)) {
      continue;
    }
    ++g.used;
    return std::optional<Grant>(g);
  }
  return std::optional<Grant>();
}

Result<std::vector<Grant>> MemoryConfirmationStore::LiveGrants(int64_t now_ms) {
  std::lock_guard lock(mutex_);
  std::vector<Grant> out;
  for (const Grant& g : grants_) {
    if (IsLive(g, now_ms)) out.push_back(g);
  }
  return out;
}

Result<int> MemoryConfirmationStore::RevokeGrants(int64_t now_ms) {
  std::lock_guard lock(mutex_);
  int n = 0;
  for (Grant& g : grants_) {
    if (!IsLive(g, now_ms)) continue;
    g.expires_ms = now_ms;
    ++n;
  }
  return n;
}

}  // namespace uiscope::safety
