#include "memory/state_db.h"

namespace uiscope::memory {
namespace {

constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE IF NOT EXISTS audit (
  id            INTEGER PRIMARY KEY,
  time_ms       INTEGER NOT NULL,
  pid           INTEGER NOT NULL,
  session       TEXT NOT NULL DEFAULT '',
  display       TEXT NOT NULL DEFAULT '',
  tool          TEXT NOT NULL,
  target        TEXT NOT NULL DEFAULT '',
  target_desc   TEXT NOT NULL DEFAULT '',
  app           TEXT NOT NULL DEFAULT '',
  arguments     TEXT NOT NULL DEFAULT '{}',
  decision      TEXT NOT NULL,
  rule          TEXT NOT NULL DEFAULT '',
  reason        TEXT NOT NULL DEFAULT '',
  token         TEXT NOT NULL DEFAULT '',
  confirmed     INTEGER NOT NULL DEFAULT 0,
  via           TEXT NOT NULL DEFAULT '',
  verification  TEXT NOT NULL DEFAULT '{}',
  error         TEXT NOT NULL DEFAULT '',
  screen_before TEXT NOT NULL DEFAULT '',
  screen_after  TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS audit_by_time ON audit(time_ms);
CREATE TABLE IF NOT EXISTS confirmations (
  token       TEXT PRIMARY KEY,
  created_ms  INTEGER NOT NULL,
  expires_ms  INTEGER NOT NULL,
  status      TEXT NOT NULL,
  tool        TEXT NOT NULL,
  target      TEXT NOT NULL DEFAULT '',
  app         TEXT NOT NULL DEFAULT '',
  display     TEXT NOT NULL DEFAULT '',
  session     TEXT NOT NULL DEFAULT '',
  rule        TEXT NOT NULL DEFAULT '',
  reason      TEXT NOT NULL DEFAULT '',
  candidates  TEXT NOT NULL DEFAULT '[]',
  arguments   TEXT NOT NULL DEFAULT '{}',
  decided_ms  INTEGER NOT NULL DEFAULT 0,
  decided_by  TEXT NOT NULL DEFAULT '',
  holder_pid  INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS confirmations_by_time ON confirmations(created_ms);
PRAGMA user_version = 1;
)sql";

// Version 2: what an approval is bound to, so that a process other than the
// one that held the action (a CLI verb run again with its token) can check
// it is spent on that very action (safety::PolicyGate).
constexpr const char* kSchemaV2 = R"sql(
ALTER TABLE confirmations ADD COLUMN binding TEXT NOT NULL DEFAULT '';
PRAGMA user_version = 2;
)sql";

// Version 3: write-ahead audit entries (an allowed action's row is written
// in flight before any input and completed afterwards: finished_ms), and the
// grants a person gives with an approval (safety/confirmations.h).
constexpr const char* kSchemaV3 = R"sql(
ALTER TABLE audit ADD COLUMN finished_ms INTEGER NOT NULL DEFAULT 0;
UPDATE audit SET finished_ms = time_ms;
CREATE TABLE IF NOT EXISTS grants (
  id          INTEGER PRIMARY KEY,
  token       TEXT NOT NULL,
  created_ms  INTEGER NOT NULL,
  expires_ms  INTEGER NOT NULL,
  max_actions INTEGER NOT NULL DEFAULT 0,
  used        INTEGER NOT NULL DEFAULT 0,
  app         TEXT NOT NULL DEFAULT '',
  display     TEXT NOT NULL DEFAULT '',
  session     TEXT NOT NULL DEFAULT '',
  rule        TEXT NOT NULL,
  tool        TEXT NOT NULL DEFAULT '',
  decided_by  TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS grants_by_expiry ON grants(expires_ms);
PRAGMA user_version = 3;
)sql";

// Version 4: the shortcut registry (shortcut_store.h, issue 19).
constexpr const char* kSchemaV4 = R"sql(
CREATE TABLE IF NOT EXISTS shortcuts (
  app        TEXT NOT NULL COLLATE NOCASE,
  keys       TEXT NOT NULL,
  action     TEXT NOT NULL,
  category   TEXT NOT NULL DEFAULT '',
  source     TEXT NOT NULL,
  path       TEXT NOT NULL DEFAULT '',
  updated_ms INTEGER NOT NULL,
  PRIMARY KEY (app, source, keys, action)
);
PRAGMA user_version = 4;
)sql";

Result<int> UserVersion(Database& db) {
  auto stmt = db.Prepare("PRAGMA user_version");
  if (!stmt.ok()) return stmt.error();
  auto row = stmt->Step();
  if (!row.ok()) return row.error();
  return *row ? static_cast<int>(stmt->Int(0)) : 0;
}

}  // namespace

Result<std::shared_ptr<Database>> OpenStateDatabase(const std::string& path,
                                                    const DatabaseOptions& options) {
  auto db = Database::Open(path, options);
  if (!db.ok()) return db.error();
  Database& d = **db;
  std::lock_guard lock(d.mutex());
  auto version = UserVersion(d);
  if (!version.ok()) return version.error();
  if (*version == kStateSchemaVersion) return db;
  if (options.read_only && *version < kStateSchemaVersion) {
    // Reading changes nothing, the schema included.
    return MakeError(ErrorCode::kUnavailable,
                     "database " + path +
                         (*version == 0 ? std::string(" holds no uiscope state")
                                        : " was written by an older uiscope (schema version " +
                                              std::to_string(*version) +
                                              "); open it once with write access to upgrade it"));
  }
  if (*version > kStateSchemaVersion) {
    return MakeError(ErrorCode::kUnavailable,
                     "database " + path + " was written by a newer uiscope (schema version " +
                         std::to_string(*version) + ", this one knows " +
                         std::to_string(kStateSchemaVersion) +
                         "); upgrade uiscope or use another database");
  }
  // IMMEDIATE takes the write lock first, so two processes creating the
  // tables at once run one after the other.
  if (auto st = d.Exec("BEGIN IMMEDIATE"); !st.ok()) return st.error();
  auto again = UserVersion(d);
  Status st = again.ok() ? OkStatus() : Status(again.error());
  if (st.ok() && *again < 1) st = d.Exec(kSchemaV1);
  if (st.ok() && *again < 2) st = d.Exec(kSchemaV2);
  if (st.ok() && *again < 3) st = d.Exec(kSchemaV3);
  if (st.ok() && *again < 4) st = d.Exec(kSchemaV4);
  if (!st.ok()) {
    (void)d.Exec("ROLLBACK");
    return st.error();
  }
  if (auto commit = d.Exec("COMMIT"); !commit.ok()) return commit.error();
  return db;
}

}  // namespace uiscope::memory
