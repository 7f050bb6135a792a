// The audit trail (DESIGN §8): every action the policy saw — performed,
// refused or held — with what it was, what was decided and what happened.
//
// Write-ahead: PolicyGate appends the entry of an allowed action in
// Check(), with decision kInFlight, before any input reaches the desktop,
// and completes that same entry with the outcome in Record(). A process
// killed in between leaves the row in flight, so no performed action is
// ever missing from the log (and the rate limiter, which counts from the
// log, sees it). Refused and held actions send nothing and are appended
// whole in Record(). Entries are redacted before they get here: `arguments`
// never holds text typed into a sensitive field (redact.h).
//
// Implementations: memory::AuditLog (SQLite, shared by every process; an
// entry is durable when Append returns) and, in tests, a recording fake.
// Safe to call from several threads at once.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace uiscope::safety {

// The decision column: what became of the action.
namespace decision {
inline constexpr std::string_view kInFlight = "in_flight";  // allowed; outcome not recorded (yet)
inline constexpr std::string_view kDone = "done";        // allowed and performed
inline constexpr std::string_view kFailed = "failed";    // allowed; failed or not performed
inline constexpr std::string_view kDropped = "dropped";  // refused as unsafe input (R5)
inline constexpr std::string_view kDenied = "denied";    // refused by policy (R3, R6, deny list)
inline constexpr std::string_view kAwaiting = "awaiting_confirmation";  // held with a token
inline constexpr std::string_view kApproved = "approved";               // a person approved a token
inline constexpr std::string_view kRejected = "rejected";               // a person denied a token
}  // namespace decision

struct AuditEntry {
  int64_t id = 0;       // assigned by the log
  int64_t time_ms = 0;  // Unix time, milliseconds, of the decision
  int64_t finished_ms = 0;  // when the outcome was recorded (0: in flight)
  int pid = 0;          // the uiscope process that wrote it
  std::string session;  // uiscope session ID ("" = the default desktop)
  std::string display;
  std::string tool;
  std::string target;       // the element ID asked for ("" for points / keys)
  std::string target_desc;  // `button "OK" btn_1a2b`, when resolved
  std::string app;
  nlohmann::json arguments = nlohmann::json::object();  // redacted
  std::string decision;                                 // one of decision::
  std::string rule;                                     // "R5", "R6", ... ("" for a plain allow)
  std::string reason;
  std::string token;       // the confirmation token, when one is involved
  bool confirmed = false;  // performed under an approved confirmation
  std::string via;         // how it was performed: "accessibility", "xtest", ...
  nlohmann::json verification = nlohmann::json::object();  // summary of what changed
  std::string error;
  std::string screen_before;  // screenshot hashes (hex), "" when not captured
  std::string screen_after;
};

nlohmann::json AuditEntryToJson(const AuditEntry& entry);

class AuditSink {
 public:
  virtual ~AuditSink() = default;
  // Appends one entry; when this returns OK the entry is committed and
  // survives the process being killed. Returns the entry's id.
  virtual Result<int64_t> Append(const AuditEntry& entry) = 0;
  // Adds the outcome to entry `id`, appended in flight: its decision, via,
  // verification, error, screen_after, finished_ms. Only an in-flight entry
  // is completed, once; NotFound otherwise. Durable when it returns OK.
  virtual Status Complete(int64_t id, const AuditEntry& outcome) = 0;
  // Times (Unix ms) of the actions performed (or in flight) without a
  // confirmation since `since_ms`, by any process: what the rate limit
  // counts (the default AppendWithinRate reads it).
  virtual Result<std::vector<int64_t>> UnconfirmedActionTimes(int64_t since_ms) = 0;

  // The rate limit's slot, taken with the action's write-ahead entry:
  // appends `entry` (in flight, unconfirmed) only when fewer than
  // `max_actions` unconfirmed actions were performed or are in flight after
  // `after_ms`, by any process. The check and the append are one step, so
  // processes acting at once cannot overshoot the limit between them.
  struct RateSlot {
    int64_t id = 0;              // the appended entry; 0 when the limit is reached
    std::vector<int64_t> times;  // when refused: the counted actions' times, ascending
  };
  // The default checks then appends: atomic only for a sink that one
  // process alone writes (a fake). memory::AuditLog does both in one
  // statement.
  virtual Result<RateSlot> AppendWithinRate(const AuditEntry& entry, int64_t after_ms,
                                            int max_actions);
};

}  // namespace uiscope::safety
