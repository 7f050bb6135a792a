// AuditLog: the audit trail of DESIGN §8 in the state database (table
// `audit`), written by PolicyGate::Record and read by `uiscope audit`.
//
// Durability: every Append and Complete is its own transaction in WAL mode
// with synchronous=FULL (sqlite.h): when it returns, the entry is on disk; a
// `kill -9` of the writer at any moment loses no committed entry and leaves
// the database consistent (tests/memory checks both). Entries arrive
// redacted (safety/audit.h); an in-flight entry is completed once with its
// outcome (write-ahead, safety/audit.h) and no entry is rewritten otherwise.
//
// Thread safety: every method may be called from any thread; several
// processes may append at once.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "memory/sqlite.h"
#include "safety/audit.h"

namespace uiscope::memory {

struct AuditQuery {
  int64_t since_ms = 0;  // entries at or after this time (Unix ms)
  int64_t after_id = 0;  // entries with a larger id (for following the log)
  std::string tool;      // "" = any
  std::string decision;  // "" = any
  int limit = 0;         // the most recent N of those (0 = all); oldest first either way
};

// A point in time for `uiscope audit --since`: a duration ago ("90s",
// "10m", "2h", "7d"), a local date or time ("2025-11-22",
// "2025-11-22T16:15", "2025-11-22 16:15:30"; a trailing "Z" means UTC), or
// Unix seconds ("@1763820000"). Returns Unix milliseconds; InvalidArgument
// with the accepted forms otherwise.
Result<int64_t> ParseSince(std::string_view text, int64_t now_ms);

class AuditLog final : public safety::AuditSink {
 public:
  explicit AuditLog(std::shared_ptr<Database> db) : db_(std::move(db)) {}

  Result<int64_t> Append(const safety::AuditEntry& entry) override;
  Status Complete(int64_t id, const safety::AuditEntry& outcome) override;
  Result<std::vector<int64_t>> UnconfirmedActionTimes(int64_t since_ms) override;
  Result<RateSlot> AppendWithinRate(const safety::AuditEntry& entry, int64_t after_ms,
                                    int max_actions) override;

  // Entries matching `query`, oldest first.
  Result<std::vector<safety::AuditEntry>> Query(const AuditQuery& query);
  // Deletes entries older than `before_ms` (retention); returns how many.
  Result<int> Prune(int64_t before_ms);

  const std::string& path() const { return db_->path(); }

 private:
  std::shared_ptr<Database> db_;
};

}  // namespace uiscope::memory
