#include "memory/shortcut_store.h"

#include <functional>

namespace uiscope::memory {

namespace {

// Runs `body` in one write transaction: committed when it succeeds, rolled
// back when it fails (its error returned). The caller holds the mutex.
Status InTransaction(Database& d, const std::function<Status()>& body) {
  if (auto st = d.Exec("BEGIN IMMEDIATE"); !st.ok()) return st;
  if (auto st = body(); !st.ok()) {
    (void)d.Exec("ROLLBACK");
    return st;
  }
  return d.Exec("COMMIT");
}

// Deletes the rows of `app` from `source` (with `keys`, when not empty) and
// inserts `rows` under that source.
Status Replace(Database& d, const std::string& app, const std::string& source,
               const std::string& keys, const std::vector<Shortcut>& rows, int64_t now_ms) {
  auto del = d.Prepare(
      "DELETE FROM shortcuts WHERE app = ?1 COLLATE NOCASE AND source = ?2 "
      "AND (?3 = '' OR keys = ?3)");
  if (!del.ok()) return del.error();
  del->Bind(1, app).Bind(2, source).Bind(3, keys);
  if (auto st = del->Run(); !st.ok()) return st;
  auto put = d.Prepare(
      "INSERT OR REPLACE INTO shortcuts (app, keys, action, category, source, path, updated_ms) "
      "VALUES (?, ?, ?, ?, ?, ?, ?)");
  if (!put.ok()) return put.error();
  for (const Shortcut& s : rows) {
    put->Reset();
    put->Bind(1, app).Bind(2, s.keys).Bind(3, s.action).Bind(4, s.category);
    put->Bind(5, source).Bind(6, s.path).Bind(7, now_ms);
    if (auto st = put->Run(); !st.ok()) return st;
  }
  return OkStatus();
}

}  // namespace

Status ShortcutStore::ReplaceSource(const std::string& app, const std::string& source,
                                    const std::vector<Shortcut>& shortcuts, int64_t now_ms) {
  std::lock_guard lock(db_->mutex());
  Database& d = *db_;
  return InTransaction(d, [&] { return Replace(d, app, source, "", shortcuts, now_ms); });
}

Status ShortcutStore::Put(const Shortcut& s, int64_t now_ms) {
  if (s.keys.empty()) return MakeError(ErrorCode::kInvalidArgument, "a shortcut needs its keys");
  std::lock_guard lock(db_->mutex());
  Database& d = *db_;
  return InTransaction(d, [&] { return Replace(d, s.app, s.source, s.keys, {s}, now_ms); });
}

Result<int> ShortcutStore::Remove(const std::string& app, const std::vector<std::string>& sources,
                                  const std::string& keys, const std::string& action) {
  std::lock_guard lock(db_->mutex());
  Database& d = *db_;
  int removed = 0;
  const Status done = InTransaction(d, [&]() -> Status {
    for (const std::string& source : sources) {
      auto del = d.Prepare(
          "DELETE FROM shortcuts WHERE app = ?1 COLLATE NOCASE AND source = ?2 AND keys = ?3 "
          "AND (?4 = '' OR action = ?4 COLLATE NOCASE)");
      if (!del.ok()) return del.error();
      del->Bind(1, app).Bind(2, source).Bind(3, keys).Bind(4, action);
      if (auto st = del->Run(); !st.ok()) return st;
      removed += d.Changes();
    }
    return OkStatus();
  });
  if (!done.ok()) return done.error();
  return removed;
}

Result<std::vector<Shortcut>> ShortcutStore::List(const std::string& app,
                                                  const std::string& category) {
  std::lock_guard lock(db_->mutex());
  auto stmt = db_->Prepare(
      "SELECT app, keys, action, category, source, path FROM shortcuts "
      "WHERE (?1 = '' OR app = ?1 COLLATE NOCASE) AND (?2 = '' OR category = ?2 COLLATE NOCASE) "
      "ORDER BY app, CASE source WHEN 'user' THEN 0 WHEN 'schema' THEN 1 WHEN 'menu' THEN 2 "
      "ELSE 3 END, category, action");
  if (!stmt.ok()) return stmt.error();
  stmt->Bind(1, app).Bind(2, category);
  std::vector<Shortcut> out;
  while (true) {
    auto row = stmt->Step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    out.push_back(Shortcut{stmt->Text(0), stmt->Text(1), stmt->Text(2), stmt->Text(3),
                           stmt->Text(4), stmt->Text(5)});
  }
  return out;
}

}  // namespace uiscope::memory
