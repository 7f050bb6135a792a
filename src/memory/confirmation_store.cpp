#include "memory/confirmation_store.h"

namespace uiscope::memory {
namespace {

using nlohmann::json;
using safety::Confirmation;
using safety::ConfirmationStatus;

constexpr const char* kColumns =
    "token, created_ms, expires_ms, status, tool, target, app, display, session, rule, reason, "
    "candidates, arguments, decided_ms, decided_by, holder_pid, binding";

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json ParseOr(const std::string& text, json fallback) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? fallback : j;
}

// Expiry is applied when reading, so a read never writes: pollers waiting
// for a decision take no write lock.
Confirmation FromRow(const Statement& s, int64_t now_ms) {
  Confirmation c;
  c.token = s.Text(0);
  c.created_ms = s.Int(1);
  c.expires_ms = s.Int(2);
  c.status = safety::ParseConfirmationStatus(s.Text(3)).value_or(ConfirmationStatus::kExpired);
  c.tool = s.Text(4);
  c.target = s.Text(5);
  c.app = s.Text(6);
  c.display = s.Text(7);
  c.session = s.Text(8);
  c.rule = s.Text(9);
  c.reason = s.Text(10);
  c.candidates = ParseOr(s.Text(11), json::array());
  c.arguments = ParseOr(s.Text(12), json::object());
  c.decided_ms = s.Int(13);
  c.decided_by = s.Text(14);
  c.holder_pid = static_cast<int>(s.Int(15));
  c.binding = s.Text(16);
  if ((c.status == ConfirmationStatus::kPending || c.status == ConfirmationStatus::kApproved) &&
      now_ms > c.expires_ms) {
    c.status = ConfirmationStatus::kExpired;
  }
  return c;
}

constexpr const char* kGrantColumns =
    "id, token, created_ms, expires_ms, max_actions, used, app, display, session, rule, tool, "
    "decided_by";

safety::Grant GrantFromRow(const Statement& s) {
  safety::Grant g;
  g.id = s.Int(0);
  g.token = s.Text(1);
  g.created_ms = s.Int(2);
  g.expires_ms = s.Int(3);
  g.max_actions = static_cast<int>(s.Int(4));
  g.used = static_cast<int>(s.Int(5));
  g.app = s.Text(6);
  g.display = s.Text(7);
  g.session = s.Text(8);
  g.rule = s.Text(9);
  g.tool = s.Text(10);
  g.decided_by = s.Text(11);
  return g;
}

// The SQL form of safety::IsLive.
constexpr const char* kLive = "expires_ms > ?1 AND (max_actions = 0 OR used < max_actions)";

}  // namespace

Result<int64_t> SqliteConfirmationStore::AddGrant(const safety::Grant& g) {
  std::lock_guard lock(db_->mutex());
  auto stmt = db_->Prepare(
      "INSERT INTO grants (token, created_ms, expires_ms, max_actions, used, app, display, "
      "session, rule, tool, decided_by) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
  if (!stmt.ok()) return stmt.error();
  stmt->Bind(1, g.token)
      .Bind(2, g.created_ms)
      .Bind(3, g.expires_ms)
      .Bind(4, int64_t{g.max_actions})
      .Bind(5, int64_t{g.used})
      .Bind(6, g.app)
      .Bind(7, g.display)
      .Bind(8, g.session)
      .Bind(9, g.rule)
      .Bind(10, g.tool)
      .Bind(11, g.decided_by);
  if (auto st = stmt->Run(); !st.ok()) return st.error();
  return db_->LastInsertId();
}

Result<std::optional<safety::Grant>> SqliteConfirmationStore::UseGrant(
    const safety::GrantQuery& q, int64_t now_ms) {
  std::lock_guard lock(db_->mutex());
  // One statement: the check and the count are a single atomic step, so
  // two processes racing for a grant's last use cannot both get it.
  auto stmt = db_->Prepare(
      std::string("UPDATE grants SET used = used + 1 WHERE id = (SELECT id FROM grants WHERE ") +
      kLive +
      " AND app = ?2 AND display = ?3 AND session = ?4 AND rule = ?5 AND (tool = '' OR tool = "
      "?6) ORDER BY id LIMIT 1) RETURNING " +
      kGrantColumns);
  if (!stmt.ok()) return stmt.error();
  stmt->Bind(1, now_ms).Bind(2, q.app).Bind(3, q.display).Bind(4, q.session).Bind(5, q.rule).Bind(
      6, q.tool);
  auto row = stmt->Step();
  if (!row.ok()) return row.error();
  if (!*row) return std::optional<safety::Grant>();
  safety::Grant g = GrantFromRow(*stmt);
  // The update commits when the statement runs to its end.
  if (auto st = stmt->Run(); !st.ok()) return st.error();
  return std::optional<safety::Grant>(std::move(g));
}

Result<std::vector<safety::Grant>> SqliteConfirmationStore::LiveGrants(int64_t now_ms) {
  std::lock_guard lock(db_->mutex());
  auto stmt = db_->Prepare(std::string("SELECT ") + kGrantColumns + " FROM grants WHERE " + kLive +
                           " ORDER BY id");
  if (!stmt.ok()) return stmt.error();
  stmt->Bind(1, now_ms);
  std::vector<safety::Grant> out;
  for (;;) {
    auto row = stmt->Step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    out.push_back(GrantFromRow(*stmt));
  }
  return out;
}

Result<int> SqliteConfirmationStore::RevokeGrants(int64_t now_ms) {
  std::lock_guard lock(db_->mutex());
  auto stmt = db_->Prepare(std::string("UPDATE grants SET expires_ms = ?1 WHERE ") + kLive);
  if (!stmt.ok()) return stmt.error();
  stmt->Bind(1, now_ms);
  if (auto st = stmt->Run(); !st.ok()) return st.error();
  return db_->Changes();
}

Result<Confirmation> SqliteConfirmationStore::GetLocked(const std::string& token, int64_t now_ms) {
  auto stmt =
      db_->Prepare(std::string("SELECT ") + kColumns + " FROM confirmations WHERE token = ?1");
  if (!stmt.ok()) return stmt.error();
  stmt->Bind(1, token);
  auto row = stmt->Step();
  if (!row.ok()) return row.error();
  if (!*row) {
    return MakeError(ErrorCode::kNotFound,
                     "no confirmation " + token +
                         " (tokens are printed by the action that needs them; `uiscope confirm` "
                         "lists the pending ones)");
  }
  return FromRow(*stmt, now_ms);
}

Status SqliteConfirmationStore::Create(const Confirmation& c) {
  std::lock_guard lock(db_->mutex());
  auto stmt = db_->Prepare(std::string("INSERT INTO confirmations (") + kColumns +
                           ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
                           "?14, ?15, ?16, ?17)");
  if (!stmt.ok()) return stmt.error();
  stmt->Bind(1, c.token)
      .Bind(2, c.created_ms)
      .Bind(3, c.expires_ms)
      .Bind(4, safety::ConfirmationStatusName(c.status))
      .Bind(5, c.tool)
      .Bind(6, c.target)
      .Bind(7, c.app)
      .Bind(8, c.display)
      .Bind(9, c.session)
      .Bind(10, c.rule)
      .Bind(11, c.reason)
      .Bind(12, Dump(c.candidates))
      .Bind(13, Dump(c.arguments))
      .Bind(14, c.decided_ms)
      .Bind(15, c.decided_by)
      .Bind(16, int64_t{c.holder_pid})
      .Bind(17, c.binding);
  if (auto st = stmt->Run(); !st.ok()) {
    if (sqlite3_extended_errcode(db_->raw()) == SQLITE_CONSTRAINT_PRIMARYKEY) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "confirmation token " + c.token + " is already in use");
    }
    return st.error();
  }
  return OkStatus();
}

Result<Confirmation> SqliteConfirmationStore::Get(const std::string& token, int64_t now_ms) {
  std::lock_guard lock(db_->mutex());
  return GetLocked(token, now_ms);
}

Result<Confirmation> SqliteConfirmationStore::Decide(const std::string& token, bool approve,
                                                     const std::string& decided_by,
                                                     int64_t now_ms) {
  std::lock_guard lock(db_->mutex());
  auto stmt = db_->Prepare(
      "UPDATE confirmations SET status = ?1, decided_ms = ?2, decided_by = ?3 WHERE token = ?4 "
      "AND status = 'pending' AND expires_ms >= ?2");
  if (!stmt.ok()) return stmt.error();
  stmt->Bind(1, approve ? "approved" : "denied").Bind(2, now_ms).Bind(3, decided_by).Bind(4, token);
  if (auto st = stmt->Run(); !st.ok()) return st.error();
  const bool won = db_->Changes() == 1;
  auto c = GetLocked(token, now_ms);
  if (!c.ok()) return c;
  if (!won) return safety::NotDecidable(*c);
  return c;
}

Result<Confirmation> SqliteConfirmationStore::Consume(const std::string& token, int64_t now_ms) {
  std::lock_guard lock(db_->mutex());
  auto stmt = db_->Prepare(
      "UPDATE confirmations SET status = 'used' WHERE token = ?1 AND status = 'approved' AND "
      "expires_ms >= ?2");
  if (!stmt.ok()) return stmt.error();
  stmt->Bind(1, token).Bind(2, now_ms);
  if (auto st = stmt->Run(); !st.ok()) return st.error();
  const bool won = db_->Changes() == 1;
  auto c = GetLocked(token, now_ms);
  if (!c.ok()) return c;
  if (!won) return safety::NotDecidable(*c);
  return c;
}

Result<std::vector<Confirmation>> SqliteConfirmationStore::List(bool pending_only, int64_t since_ms,
                                                                int64_t now_ms) {
  std::lock_guard lock(db_->mutex());
  auto stmt = db_->Prepare(std::string("SELECT ") + kColumns +
                           " FROM confirmations WHERE created_ms >= ?1 AND (?2 = 0 OR (status = "
                           "'pending' AND expires_ms >= ?3)) ORDER BY created_ms, token");
  if (!stmt.ok()) return stmt.error();
  stmt->Bind(1, since_ms).Bind(2, int64_t{pending_only ? 1 : 0}).Bind(3, now_ms);
  std::vector<Confirmation> out;
  for (;;) {
    auto row = stmt->Step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    out.push_back(FromRow(*stmt, now_ms));
  }
  return out;
}

}  // namespace uiscope::memory
