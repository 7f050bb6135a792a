// SqliteConfirmationStore: the confirmations of safety/confirmations.h in
// the state database (table `confirmations`), so that a decision taken in
// one process (`uiscope confirm TOKEN --approve`, the web page) reaches the
// process holding the action (the MCP server) through the file.
//
// Every transition is one conditional UPDATE (`... WHERE status =
// 'pending' AND expires_ms >= now`), so two deciders racing in two
// processes cannot both win. Expiry is applied when reading (a read never
// writes). Only redacted arguments are stored.
//
// Thread safety: every method may be called from any thread and process.
#pragma once

#include <memory>

#include "memory/sqlite.h"
#include "safety/confirmations.h"

namespace uiscope::memory {

class SqliteConfirmationStore final : public safety::ConfirmationStore {
 public:
  explicit SqliteConfirmationStore(std::shared_ptr<Database> db) : db_(std::move(db)) {}

  Status Create(const safety::Confirmation& confirmation) override;
  Result<safety::Confirmation> Get(const std::string& token, int64_t now_ms) override;
  Result<safety::Confirmation> Decide(const std::string& token, bool approve,
                                      const std::string& decided_by, int64_t now_ms) override;
  Result<safety::Confirmation> Consume(const std::string& token, int64_t now_ms) override;
  Result<std::vector<safety::Confirmation>> List(bool pending_only, int64_t since_ms,
                                                 int64_t now_ms) override;
  Result<int64_t> AddGrant(const safety::Grant& grant) override;
  Result<std::optional<safety::Grant>> UseGrant(const safety::GrantQuery& query,
                                                int64_t now_ms) override;
  Result<std::vector<safety::Grant>> LiveGrants(int64_t now_ms) override;
  Result<int> RevokeGrants(int64_t now_ms) override;

 private:
  Result<safety::Confirmation> GetLocked(const std::string& token, int64_t now_ms);

  std::shared_ptr<Database> db_;
};

}  // namespace uiscope::memory
