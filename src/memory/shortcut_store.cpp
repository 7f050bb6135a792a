#include "memory/shortcut_store.h"

namespace uiscope::memory {

Status ShortcutStore::ReplaceSource(const std::string& app, const std::string& source,
                                    const std::vector<Shortcut>& shortcuts, int64_t now_ms) {
  std::lock_guard lock(db_->mutex());
  Database& d = *db_;
  auto rollback = [&d](Status st) {
    (void)d.Exec("ROLLBACK");
    return st;
  };
  if (auto st = d.Exec("BEGIN IMMEDIATE"); !st.ok()) return st;
  auto del = d.Prepare("DELETE FROM shortcuts WHERE app = ? COLLATE NOCASE AND source = ?");
  if (!del.ok()) return rollback(del.error());
  del->Bind(1, app).Bind(2, source);
  if (auto st = del->Run(); !st.ok()) return rollback(st);
  auto put = d.Prepare(
      "INSERT OR REPLACE INTO shortcuts (app, keys, action, category, source, path, updated_ms) "
      "VALUES (?, ?, ?, ?, ?, ?, ?)");
  if (!put.ok()) return rollback(put.error());
  for (const Shortcut& s : shortcuts) {
    put->Reset();
    put->Bind(1, app).Bind(2, s.keys).Bind(3, s.action).Bind(4, s.category);
    put->Bind(5, source).Bind(6, s.path).Bind(7, now_ms);
    if (auto st = put->Run(); !st.ok()) return rollback(st);
  }
  return d.Exec("COMMIT");
}

Status ShortcutStore::Put(const Shortcut& s, int64_t now_ms) {
  std::lock_guard lock(db_->mutex());
  Database& d = *db_;
  auto rollback = [&d](Status st) {
    (void)d.Exec("ROLLBACK");
    return st;
  };
  if (auto st = d.Exec("BEGIN IMMEDIATE"); !st.ok()) return st;
  auto del =
      d.Prepare("DELETE FROM shortcuts WHERE app = ? COLLATE NOCASE AND source = ? AND keys = ?");
  if (!del.ok()) return rollback(del.error());
  del->Bind(1, s.app).Bind(2, s.source).Bind(3, s.keys);
  if (auto st = del->Run(); !st.ok()) return rollback(st);
  auto put = d.Prepare(
      "INSERT INTO shortcuts (app, keys, action, category, source, path, updated_ms) "
      "VALUES (?, ?, ?, ?, ?, ?, ?)");
  if (!put.ok()) return rollback(put.error());
  put->Bind(1, s.app).Bind(2, s.keys).Bind(3, s.action).Bind(4, s.category);
  put->Bind(5, s.source).Bind(6, s.path).Bind(7, now_ms);
  if (auto st = put->Run(); !st.ok()) return rollback(st);
  return d.Exec("COMMIT");
}

Result<int> ShortcutStore::Remove(const std::string& app, const std::vector<std::string>& sources,
                                  const std::string& keys, const std::string& action) {
  std::lock_guard lock(db_->mutex());
  Database& d = *db_;
  auto rollback = [&d](Error e) -> Result<int> {
    (void)d.Exec("ROLLBACK");
    return e;
  };
  if (auto st = d.Exec("BEGIN IMMEDIATE"); !st.ok()) return st.error();
  int removed = 0;
  for (const std::string& source : sources) {
    auto del = d.Prepare(
        "DELETE FROM shortcuts WHERE app = ?1 COLLATE NOCASE AND source = ?2 AND keys = ?3 "
        "AND (?4 = '' OR action = ?4 COLLATE NOCASE)");
    if (!del.ok()) return rollback(del.error());
    del->Bind(1, app).Bind(2, source).Bind(3, keys).Bind(4, action);
    if (auto st = del->Run(); !st.ok()) return rollback(st.error());
    auto changes = d.Prepare("SELECT changes()");
    if (!changes.ok()) return rollback(changes.error());
    auto row = changes->Step();
    if (!row.ok()) return rollback(row.error());
    if (*row) removed += static_cast<int>(changes->Int(0));
  }
  if (auto st = d.Exec("COMMIT"); !st.ok()) return st.error();
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
