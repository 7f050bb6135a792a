// Confirmations: actions held until a person approves or denies them
// (DESIGN §8, seed 001's confirmation dialog).
//
// The gate issues a token for every action it holds and writes a
// Confirmation here; whoever decides — the user answering an MCP
// elicitation, the `confirm` tool, `uiscope confirm TOKEN --approve|--deny`
// in another process, the web page — calls Decide(); the holder then sees
// the decision with Get() and performs the action once, consuming the
// approval with Consume().
//
// A confirmation is decided at most once (the first decision wins, atomically
// across processes) and expires at `expires_ms`: after that it can no longer
// be decided or consumed. Stored text is always redacted (redact.h).
//
// Implementations: memory::SqliteConfirmationStore (shared by every process
// through the state database) and MemoryConfirmationStore below (one
// process; for embedders and tests). Both are safe to call from several
// threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace uiscope::safety {

enum class ConfirmationStatus {
  kPending,   // waiting for a decision
  kApproved,  // a person approved; the holder may perform it once
  kDenied,    // a person denied (or dismissed the question)
  kExpired,   // nobody decided in time
  kUsed,      // approved and performed
};
std::string_view ConfirmationStatusName(ConfirmationStatus status);
std::optional<ConfirmationStatus> ParseConfirmationStatus(std::string_view name);

struct Confirmation {
  std::string token;
  int64_t created_ms = 0;  // Unix time, milliseconds
  int64_t expires_ms = 0;
  ConfirmationStatus status = ConfirmationStatus::kPending;
  std::string tool;    // "click", "session_stop", ...
  std::string target;  // the target as a person reads it: `button "OK" btn_1a2b`
  std::string app;
  std::string display;
  std::string session;
  std::string rule;    // why it is held: "R4", "rate", "confirm_tools"
  std::string reason;  // the gate's explanation
  nlohmann::json candidates = nlohmann::json::array();  // R4: [{id, role, name, bounds, app}]
  nlohmann::json arguments = nlohmann::json::object();  // redacted
  int64_t decided_ms = 0;
  std::string decided_by;  // "elicitation", "confirm tool", "uiscope confirm", ...
  int holder_pid = 0;      // the process that holds the action
  // What the approval is bound to (PolicyGate): the action's tool, desktop,
  // target and arguments, with text typed into a sensitive field masked.
  // Not shown to people; never holds a secret.
  std::string binding;
};

nlohmann::json ConfirmationToJson(const Confirmation& c);

class ConfirmationStore {
 public:
  virtual ~ConfirmationStore() = default;

  // Records a new pending confirmation. InvalidArgument for a token in use.
  virtual Status Create(const Confirmation& confirmation) = 0;
  // The confirmation, its status brought up to date (a pending one past its
  // expiry reads as kExpired). NotFound for an unknown token.
  virtual Result<Confirmation> Get(const std::string& token, int64_t now_ms) = 0;
  // Pending -> approved / denied. NotFound for an unknown token; Stale when
  // it was already decided or has expired (the message says which).
  virtual Result<Confirmation> Decide(const std::string& token, bool approve,
                                      const std::string& decided_by, int64_t now_ms) = 0;
  // Approved -> used, once. Stale when it is not approved (any more).
  virtual Result<Confirmation> Consume(const std::string& token, int64_t now_ms) = 0;
  // Confirmations created since `since_ms`, oldest first; only pending ones
  // when `pending_only`.
  virtual Result<std::vector<Confirmation>> List(bool pending_only, int64_t since_ms,
                                                 int64_t now_ms) = 0;
};

// A new token: 10 characters of lowercase base32 (50 bits) from a CSPRNG,
// short enough to type into `uiscope confirm`.
std::string NewConfirmationToken();

// The message Decide / Consume give for a confirmation that is not in the
// state they need.
Error NotDecidable(const Confirmation& c);

// One process, in memory.
class MemoryConfirmationStore final : public ConfirmationStore {
 public:
  Status Create(const Confirmation& confirmation) override;
  Result<Confirmation> Get(const std::string& token, int64_t now_ms) override;
  Result<Confirmation> Decide(const std::string& token, bool approve, const std::string& decided_by,
                              int64_t now_ms) override;
  Result<Confirmation> Consume(const std::string& token, int64_t now_ms) override;
  Result<std::vector<Confirmation>> List(bool pending_only, int64_t since_ms,
                                         int64_t now_ms) override;

 private:
  Confirmation* Find(const std::string& token, int64_t now_ms);

  std::mutex mutex_;
  std::vector<Confirmation> items_;
};

}  // namespace uiscope::safety
