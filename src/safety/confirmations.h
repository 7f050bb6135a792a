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

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
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

// A person's approval that reaches past the one action it was asked for, so
// that approving is cheap and an agent never needs to approve itself
// (agent_may_confirm is false by default): for the app and desktop of the
// held action, the rule that held it is waived for `max_actions` actions or
// until `expires_ms`, whichever ends first. Only the rules that hold actions
// for their number or kind can be granted away ("rate", "confirm_tools" for
// the same tool); an ambiguous target (R4) or a plan step marked
// requireConfirmation is always asked about alone.
struct Grant {
  int64_t id = 0;          // assigned by the store
  std::string token;       // the confirmation it was given with
  int64_t created_ms = 0;  // Unix time, milliseconds
  int64_t expires_ms = 0;  // it ends then at the latest
  int max_actions = 0;     // 0: no count limit (only the time bounds it)
  int used = 0;            // actions performed under it so far
  std::string app;         // the application it covers ("" = actions whose app is unknown)
  std::string display;
  std::string session;
  std::string rule;  // the rule it waives: "rate" or "confirm_tools"
  std::string tool;  // confirm_tools: the one tool it covers; "" for rate (any tool)
  std::string decided_by;
};

// How far a person's approval reaches (`uiscope confirm --grant 30m`, the
// elicitation's "also allow" answer). At least one of the two is set.
struct GrantScope {
  std::chrono::seconds duration{0};  // 0: until the default cap
  int actions = 0;                   // 0: any number within the duration
};

// The longest and largest grant a person can give: a grant is a shortcut
// for the next stretch of work, not a standing permission.
inline constexpr std::chrono::hours kMaxGrantDuration{24};
inline constexpr int kMaxGrantActions = 1000;

// "30m", "2h", "90s" (a duration), "20" or "20x" (a number of actions), or
// both joined by a comma ("30m,20": whichever ends first). InvalidArgument
// saying the accepted forms and limits otherwise.
Result<GrantScope> ParseGrantScope(std::string_view spec);
// "20 actions or 30 min", for people.
std::string DescribeGrantScope(const GrantScope& scope);
// Whether a hold by `rule` may be granted away (see Grant).
bool IsGrantableRule(std::string_view rule);
// The grant a person's approval of `c` with `scope` gives (ids and counts
// left for the store).
Grant MakeGrant(const Confirmation& c, const GrantScope& scope, const std::string& decided_by,
                int64_t now_ms);
nlohmann::json GrantToJson(const Grant& g);

// What an action must match to go ahead under a grant.
struct GrantQuery {
  std::string app;
  std::string display;
  std::string session;
  std::string rule;
  std::string tool;
};

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

  // Records a grant; returns its id.
  virtual Result<int64_t> AddGrant(const Grant& grant) = 0;
  // Spends one action of a live grant matching `query` (atomically across
  // processes: two racing actions never both take its last use); nullopt
  // when none matches.
  virtual Result<std::optional<Grant>> UseGrant(const GrantQuery& query, int64_t now_ms) = 0;
  // The grants still live at `now_ms`, oldest first.
  virtual Result<std::vector<Grant>> LiveGrants(int64_t now_ms) = 0;
  // Ends every live grant now; returns how many.
  virtual Result<int> RevokeGrants(int64_t now_ms) = 0;
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
  Result<int64_t> AddGrant(const Grant& grant) override;
  Result<std::optional<Grant>> UseGrant(const GrantQuery& query, int64_t now_ms) override;
  Result<std::vector<Grant>> LiveGrants(int64_t now_ms) override;
  Result<int> RevokeGrants(int64_t now_ms) override;

 private:
  Confirmation* Find(const std::string& token, int64_t now_ms);

  std::mutex mutex_;
  std::vector<Confirmation> items_;
  std::vector<Grant> grants_;
};

// A grant is live while it has not expired and has uses left.
bool IsLive(const Grant& g, int64_t now_ms);

}  // namespace uiscope::safety
