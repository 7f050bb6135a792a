#include "safety/confirmations.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
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

}  // namespace uiscope::safety
