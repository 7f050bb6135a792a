#include "memory/target_store.h"

#include <filesystem>

#include "safety/rules.h"

namespace uiscope::memory {
namespace {

constexpr int kTargetSchemaVersion = 1;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS apps (
  sig           TEXT PRIMARY KEY,
  app           TEXT NOT NULL,
  title_pattern TEXT NOT NULL,
  toolkit       TEXT NOT NULL,
  first_seen_ms INTEGER NOT NULL,
  last_seen_ms  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS apps_by_name ON apps(app COLLATE NOCASE);
CREATE TABLE IF NOT EXISTS targets (
  sig           TEXT NOT NULL,
  id            TEXT NOT NULL,
  role          TEXT NOT NULL,
  label         TEXT NOT NULL,
  x INTEGER NOT NULL, y INTEGER NOT NULL, w INTEGER NOT NULL, h INTEGER NOT NULL,
  click_x INTEGER NOT NULL, click_y INTEGER NOT NULL,
  source        TEXT NOT NULL,
  confidence    INTEGER NOT NULL,   -- thousandths
  first_seen_ms INTEGER NOT NULL,
  last_seen_ms  INTEGER NOT NULL,
  hits          INTEGER NOT NULL DEFAULT 0,
  misses        INTEGER NOT NULL DEFAULT 0,
  visual_hash   INTEGER,            -- the 64 bits as a signed integer; NULL = none
  parent        TEXT NOT NULL DEFAULT '',
  stale         INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (sig, id)
) WITHOUT ROWID;
PRAGMA user_version = 1;
)sql";

constexpr const char* kColumns =
    "id, role, label, x, y, w, h, click_x, click_y, source, confidence, first_seen_ms, "
    "last_seen_ms, hits, misses, visual_hash, parent, stale";

LearnedTarget ReadTarget(const Statement& s, int c = 0) {
  LearnedTarget t;
  t.id = s.Text(c + 0);
  t.role = RoleFromName(s.Text(c + 1));
  t.label = s.Text(c + 2);
  t.bounds = Rect{static_cast<int>(s.Int(c + 3)), static_cast<int>(s.Int(c + 4)),
                  static_cast<int>(s.Int(c + 5)), static_cast<int>(s.Int(c + 6))};
  t.click = Point{static_cast<int>(s.Int(c + 7)), static_cast<int>(s.Int(c + 8))};
  t.source = LearnedSourceFromName(s.Text(c + 9)).value_or(LearnedSource::kAx);
  t.confidence = static_cast<double>(s.Int(c + 10)) / 1000.0;
  t.first_seen_ms = s.Int(c + 11);
  t.last_seen_ms = s.Int(c + 12);
  t.hits = static_cast<int>(s.Int(c + 13));
  t.misses = static_cast<int>(s.Int(c + 14));
  if (!s.IsNull(c + 15)) t.visual_hash = static_cast<uint64_t>(s.Int(c + 15));
  t.parent = s.Text(c + 16);
  t.stale = s.Int(c + 17) != 0;
  return t;
}

// The schema version; the statement is finished when this returns.
Result<int64_t> UserVersion(Database& db) {
  auto stmt = db.Prepare("PRAGMA user_version");
  if (!stmt.ok()) return stmt.error();
  auto row = stmt->Step();
  if (!row.ok()) return row.error();
  return *row ? stmt->Int(0) : 0;
}

Status Rollback(Database& db, Status st) {
  (void)db.Exec("ROLLBACK");
  return st;
}

}  // namespace

std::string MemoryDatabasePath(const std::string& state_database) {
  return (std::filesystem::path(state_database).parent_path() / "memory.db").string();
}

Result<std::shared_ptr<TargetStore>> OpenTargetStore(const std::string& path, bool durable) {
  DatabaseOptions options;
  options.synchronous_full = durable;
  auto db = Database::Open(path, options);
  if (!db.ok()) return db.error();
  Database& d = **db;
  std::lock_guard lock(d.mutex());
  auto version = UserVersion(d);
  if (!version.ok()) return version.error();
  const int64_t v = *version;
  if (v > kTargetSchemaVersion) {
    return MakeError(ErrorCode::kUnavailable, "learned memory " + path +
                                                  " was written by a newer uiscope (schema " +
                                                  std::to_string(v) +
                                                  "); upgrade uiscope or forget it with "
                                                  "`uiscope memory forget --all`");
  }
  if (v < kTargetSchemaVersion) {
    // The version was read by a statement already finished: one still
    // open would hold a read transaction, and a process whose snapshot
    // another's schema commit made stale gets "database is locked" at once
    // from BEGIN IMMEDIATE, without waiting. Read again under the lock.
    if (auto st = d.Exec("BEGIN IMMEDIATE"); !st.ok()) return st.error();
    auto again = UserVersion(d);
    if (!again.ok()) return Rollback(d, again.error()).error();
    if (*again < kTargetSchemaVersion) {
      if (auto st = d.Exec(kSchema); !st.ok()) return Rollback(d, st).error();
    }
    if (auto st = d.Exec("COMMIT"); !st.ok()) return st.error();
  }
  return std::make_shared<TargetStore>(std::move(db).value());
}

Result<std::vector<LearnedTarget>> TargetStore::Load(const AppSignature& signature) {
  std::lock_guard lock(db_->mutex());
  auto stmt = db_->Prepare(std::string("SELECT ") + kColumns + " FROM targets WHERE sig = ?");
  if (!stmt.ok()) return stmt.error();
  stmt->Bind(1, signature.Key());
  std::vector<LearnedTarget> out;
  while (true) {
    auto row = stmt->Step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    out.push_back(ReadTarget(*stmt));
  }
  return out;
}

Status TargetStore::Save(const AppSignature& signature, const std::vector<LearnedTarget>& upserted,
                         const std::vector<std::string>& removed, int64_t now_ms) {
  std::lock_guard lock(db_->mutex());
  Database& d = *db_;
  if (auto st = d.Exec("BEGIN IMMEDIATE"); !st.ok()) return st;
  const std::string key = signature.Key();
  auto app = d.Prepare(
      "INSERT INTO apps (sig, app, title_pattern, toolkit, first_seen_ms, last_seen_ms) "
      "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(sig) DO UPDATE SET last_seen_ms = "
      "excluded.last_seen_ms");
  if (!app.ok()) return Rollback(d, app.error());
  app->Bind(1, key).Bind(2, signature.app).Bind(3, signature.title_pattern);
  app->Bind(4, signature.toolkit).Bind(5, now_ms).Bind(6, now_ms);
  if (auto st = app->Run(); !st.ok()) return Rollback(d, st);

  auto put = d.Prepare(std::string("INSERT OR REPLACE INTO targets (sig, ") + kColumns +
                       ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  if (!put.ok()) return Rollback(d, put.error());
  for (const LearnedTarget& t : upserted) {
    put->Reset();
    put->Bind(1, key).Bind(2, t.id).Bind(3, RoleName(t.role)).Bind(4, t.label);
    put->Bind(5, t.bounds.x).Bind(6, t.bounds.y).Bind(7, t.bounds.w).Bind(8, t.bounds.h);
    put->Bind(9, t.click.x).Bind(10, t.click.y).Bind(11, LearnedSourceName(t.source));
    put->Bind(12, static_cast<int64_t>(t.confidence * 1000.0 + 0.5));
    put->Bind(13, t.first_seen_ms).Bind(14, t.last_seen_ms).Bind(15, t.hits).Bind(16, t.misses);
    if (t.visual_hash) {
      put->Bind(17, static_cast<int64_t>(*t.visual_hash));
    } else {
      put->BindNull(17);
    }
    put->Bind(18, t.parent).Bind(19, t.stale ? 1 : 0);
    if (auto st = put->Run(); !st.ok()) return Rollback(d, st);
  }
  if (!removed.empty()) {
    auto del = d.Prepare("DELETE FROM targets WHERE sig = ? AND id = ?");
    if (!del.ok()) return Rollback(d, del.error());
    for (const std::string& id : removed) {
      del->Reset();
      del->Bind(1, key).Bind(2, id);
      if (auto st = del->Run(); !st.ok()) return Rollback(d, st);
    }
  }
  // The bound on signatures: the least recently seen go, with their targets.
  if (auto st = d.Exec(
          "DELETE FROM targets WHERE sig IN (SELECT sig FROM apps ORDER BY last_seen_ms DESC "
          "LIMIT -1 OFFSET " +
          std::to_string(kMaxApps) +
          ");"
          "DELETE FROM apps WHERE sig IN (SELECT sig FROM apps ORDER BY last_seen_ms DESC "
          "LIMIT -1 OFFSET " +
          std::to_string(kMaxApps) + ");");
      !st.ok()) {
    return Rollback(d, st);
  }
  return d.Exec("COMMIT");
}

Result<std::vector<AppSummary>> TargetStore::ListApps() {
  std::lock_guard lock(db_->mutex());
  auto stmt = db_->Prepare(
      "SELECT a.app, a.title_pattern, a.toolkit, a.first_seen_ms, a.last_seen_ms, "
      "COUNT(t.id), SUM(t.source = 'taught'), "
      "SUM(LENGTH(t.id) + LENGTH(t.label) + LENGTH(t.parent) + LENGTH(t.sig) + 80) "
      "FROM apps a LEFT JOIN targets t ON t.sig = a.sig GROUP BY a.sig "
      "ORDER BY a.last_seen_ms DESC");
  if (!stmt.ok()) return stmt.error();
  std::vector<AppSummary> out;
  while (true) {
    auto row = stmt->Step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    AppSummary s;
    s.signature = AppSignature{stmt->Text(0), stmt->Text(1), stmt->Text(2)};
    s.first_seen_ms = stmt->Int(3);
    s.last_seen_ms = stmt->Int(4);
    s.targets = static_cast<int>(stmt->Int(5));
    s.taught = static_cast<int>(stmt->Int(6));
    s.bytes = stmt->Int(7);
    out.push_back(std::move(s));
  }
  return out;
}

Result<std::vector<AppSignature>> TargetStore::SignaturesOf(const std::string& app) {
  std::lock_guard lock(db_->mutex());
  auto stmt = db_->Prepare(
      "SELECT app, title_pattern, toolkit FROM apps WHERE app = ? COLLATE NOCASE "
      "ORDER BY last_seen_ms DESC");
  if (!stmt.ok()) return stmt.error();
  stmt->Bind(1, app);
  std::vector<AppSignature> out;
  while (true) {
    auto row = stmt->Step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    out.push_back(AppSignature{stmt->Text(0), stmt->Text(1), stmt->Text(2)});
  }
  return out;
}

Result<std::optional<AppSignature>> TargetStore::Holding(const std::string& id) {
  std::lock_guard lock(db_->mutex());
  auto stmt = db_->Prepare(
      "SELECT a.app, a.title_pattern, a.toolkit FROM targets t JOIN apps a ON a.sig = t.sig "
      "WHERE t.id = ? ORDER BY a.last_seen_ms DESC LIMIT 1");
  if (!stmt.ok()) return stmt.error();
  stmt->Bind(1, id);
  auto row = stmt->Step();
  if (!row.ok()) return row.error();
  if (!*row) return std::optional<AppSignature>();
  return std::optional<AppSignature>(AppSignature{stmt->Text(0), stmt->Text(1), stmt->Text(2)});
}

Status TargetStore::Compact() {
  // VACUUM rewrites the file from its live rows; the checkpoint then empties
  // the WAL, which still held the pages as they were before the delete.
  if (auto st = db_->Exec("VACUUM"); !st.ok()) return st;
  auto cp = db_->Prepare("PRAGMA wal_checkpoint(TRUNCATE)");
  if (!cp.ok()) return cp.error();
  auto row = cp->Step();
  if (!row.ok()) return row.error();
  if (*row && cp->Int(0) != 0) {
    return MakeError(ErrorCode::kUnavailable,
                     "another uiscope process is reading the learned memory " + path() +
                         "; the forgotten rows are deleted, but copies may stay in its "
                         "write-ahead log until that process ends: run the command again then");
  }
  return OkStatus();
}

Result<int> TargetStore::Forget(const std::string& app) {
  std::lock_guard lock(db_->mutex());
  Database& d = *db_;
  if (auto st = d.Exec("BEGIN IMMEDIATE"); !st.ok()) return st.error();
  int targets = 0;
  int apps = 0;
  {
    auto count = d.Prepare(
        "SELECT COUNT(*), (SELECT COUNT(*) FROM apps WHERE app = ?1 COLLATE NOCASE) FROM targets "
        "WHERE sig IN (SELECT sig FROM apps WHERE app = ?1 COLLATE NOCASE)");
    if (!count.ok()) return Rollback(d, count.error()).error();
    count->Bind(1, app);
    auto row = count->Step();
    if (!row.ok()) return Rollback(d, row.error()).error();
    targets = static_cast<int>(count->Int(0));
    apps = static_cast<int>(count->Int(1));
  }
  if (apps == 0) {
    (void)d.Exec("ROLLBACK");
    return MakeError(ErrorCode::kNotFound, "uiscope has learned nothing about \"" + app +
                                               "\" (see `uiscope memory list`)");
  }
  for (const char* sql :
       {"DELETE FROM targets WHERE sig IN (SELECT sig FROM apps WHERE app = ?1 COLLATE NOCASE)",
        "DELETE FROM apps WHERE app = ?1 COLLATE NOCASE"}) {
    auto del = d.Prepare(sql);
    if (!del.ok()) return Rollback(d, del.error()).error();
    del->Bind(1, app);
    if (auto st = del->Run(); !st.ok()) return Rollback(d, st).error();
  }
  if (auto st = d.Exec("COMMIT"); !st.ok()) return st.error();
  if (auto st = Compact(); !st.ok()) return st.error();
  return targets;
}

Result<int> TargetStore::ForgetAll() {
  std::lock_guard lock(db_->mutex());
  Database& d = *db_;
  int targets = 0;
  {
    auto count = d.Prepare("SELECT COUNT(*) FROM targets");
    if (!count.ok()) return count.error();
    auto row = count->Step();
    if (!row.ok()) return row.error();
    targets = static_cast<int>(count->Int(0));
  }
  if (auto st = d.Exec("BEGIN IMMEDIATE; DELETE FROM targets; DELETE FROM apps; COMMIT;");
      !st.ok()) {
    return Rollback(d, st).error();
  }
  if (auto st = Compact(); !st.ok()) return st.error();
  return targets;
}

Result<nlohmann::json> TargetStore::Export(const std::string& app) {
  auto signatures = SignaturesOf(app);
  if (!signatures.ok()) return signatures.error();
  if (signatures->empty()) {
    return MakeError(ErrorCode::kNotFound, "uiscope has learned nothing about \"" + app +
                                               "\" (see `uiscope memory list`)");
  }
  nlohmann::json out = {{"app", signatures->front().app}, {"signatures", nlohmann::json::array()}};
  for (const AppSignature& sig : *signatures) {
    auto targets = Load(sig);
    if (!targets.ok()) return targets.error();
    nlohmann::json list = nlohmann::json::array();
    for (const LearnedTarget& t : *targets) list.push_back(LearnedTargetToJson(t));
    out["signatures"].push_back({{"title_pattern", sig.title_pattern},
                                 {"toolkit", sig.toolkit},
                                 {"targets", std::move(list)}});
  }
  return out;
}

nlohmann::json AppSummaryToJson(const AppSummary& a) {
  return {{"app", a.signature.app},
          {"title_pattern", a.signature.title_pattern},
          {"toolkit", a.signature.toolkit},
          {"targets", a.targets},
          {"taught", a.taught},
          {"bytes", a.bytes},
          {"first_seen_ms", a.first_seen_ms},
          {"last_seen_ms", a.last_seen_ms}};
}

nlohmann::json LearnedTargetToJson(const LearnedTarget& t) {
  nlohmann::json j = {
      {"id", t.id},
      {"role", std::string(RoleName(t.role))},
      {"label", t.label},
      {"bounds", {{"x", t.bounds.x}, {"y", t.bounds.y}, {"w", t.bounds.w}, {"h", t.bounds.h}}},
      {"click", {{"x", t.click.x}, {"y", t.click.y}}},
      {"source", std::string(LearnedSourceName(t.source))},
      {"confidence", t.confidence},
      {"first_seen_ms", t.first_seen_ms},
      {"last_seen_ms", t.last_seen_ms},
      {"hits", t.hits},
      {"misses", t.misses},
      {"parent", t.parent},
      {"stale", t.stale},
      {"reliable", t.Reliable()},
  };
  if (t.visual_hash) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(*t.visual_hash));
    j["visual_hash"] = hex;
  }
  return j;
}

}  // namespace uiscope::memory

namespace uiscope::memory {

Learning OpenLearning(const safety::PolicyConfig& config, bool durable) {
  Learning out;
  if (!config.memory.learning) return out;
  auto store = OpenTargetStore(MemoryDatabasePath(safety::DatabasePath(config)), durable);
  if (!store.ok()) {
    out.error = store.error().message;
    return out;
  }
  out.store = std::move(store).value();
  out.learns = [deny = config.deny_apps, only = config.memory.apps](const std::string& app) {
    if (safety::MatchingPattern(deny, app)) return false;
    return !only || safety::MatchingPattern(*only, app).has_value();
  };
  return out;
}

}  // namespace uiscope::memory
