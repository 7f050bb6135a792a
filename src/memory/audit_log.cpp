#include "memory/audit_log.h"

#include <ctime>

namespace uiscope::memory {
namespace {

using nlohmann::json;

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json ParseOr(const std::string& text, json fallback) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? fallback : j;
}

bool AllDigits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

Result<int64_t> ParseSince(std::string_view text, int64_t now_ms) {
  auto bad = [&] {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--since \"" + std::string(text) +
                         "\" is not a time: use a duration ago (90s, 10m, 2h, 7d), a local date or "
                         "time (2025-11-22, 2025-11-22T16:15, 2025-11-22 16:15:30; add Z for UTC) "
                         "or Unix seconds (@1763820000)");
  };
  if (text.empty()) return bad();
  if (text.front() == '@') {
    const std::string_view digits = text.substr(1);
    if (!AllDigits(digits) || digits.size() > 12) return bad();
    return std::stoll(std::string(digits)) * 1000;
  }
  const char unit = text.back();
  const std::string_view amount = text.substr(0, text.size() - 1);
  if (AllDigits(amount) && amount.size() <= 9) {
    const int64_t n = std::stoll(std::string(amount));
    int64_t seconds = 0;
    switch (unit) {
      case 's':
        seconds = n;
        break;
      case 'm':
        seconds = n * 60;
        break;
      case 'h':
        seconds = n * 3600;
        break;
      case 'd':
        seconds = n * 86400;
        break;
      default:
        return bad();
    }
    return now_ms - seconds * 1000;
  }
  std::string s(text);
  const bool utc = s.back() == 'Z';
  if (utc) s.pop_back();
  for (char& c : s) {
    if (c == 'T') c = ' ';
  }
  std::tm tm{};
  const char* end = nullptr;
  for (const char* format : {"%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d"}) {
    tm = std::tm{};
    end = strptime(s.c_str(), format, &tm);
    if (end != nullptr && *end == '\0') break;
    end = nullptr;
  }
  if (end == nullptr) return bad();
  tm.tm_isdst = -1;
  const time_t t = utc ? timegm(&tm) : mktime(&tm);
  if (t == static_cast<time_t>(-1)) return bad();
  return static_cast<int64_t>(t) * 1000;
}

namespace {

constexpr const char* kAuditColumns =
    "time_ms, pid, session, display, tool, target, target_desc, app, arguments, decision, rule, "
    "reason, token, confirmed, via, verification, error, screen_before, screen_after, "
    "finished_ms";
constexpr const char* kAuditValues =
    "?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20";

void BindEntry(Statement& stmt, const safety::AuditEntry& e) {
  stmt.Bind(1, e.time_ms)
      .Bind(2, int64_t{e.pid})
      .Bind(3, e.session)
      .Bind(4, e.display)
      .Bind(5, e.tool)
      .Bind(6, e.target)
      .Bind(7, e.target_desc)
      .Bind(8, e.app)
      .Bind(9, Dump(e.arguments))
      .Bind(10, e.decision)
      .Bind(11, e.rule)
      .Bind(12, e.reason)
      .Bind(13, e.token)
      .Bind(14, int64_t{e.confirmed ? 1 : 0})
      .Bind(15, e.via)
      .Bind(16, Dump(e.verification))
      .Bind(17, e.error)
      .Bind(18, e.screen_before)
      .Bind(19, e.screen_after)
      .Bind(20, e.decision == safety::decision::kInFlight ? int64_t{0}
                : e.finished_ms != 0                      ? e.finished_ms
                                                          : e.time_ms);
}

// What the rate limit counts: actions performed, or in flight, without a
// confirmation.
constexpr const char* kUnconfirmedActions = "decision IN ('done', 'in_flight') AND confirmed = 0";

// The times of those actions since `since_ms`, ascending. The caller holds
// db.mutex().
Result<std::vector<int64_t>> UnconfirmedTimesLocked(Database& db, int64_t since_ms) {
  auto stmt = db.Prepare(std::string("SELECT time_ms FROM audit WHERE time_ms >= ?1 AND ") +
                         kUnconfirmedActions + " ORDER BY time_ms");
  if (!stmt.ok()) return stmt.error();
  stmt->Bind(1, since_ms);
  std::vector<int64_t> times;
  for (;;) {
    auto row = stmt->Step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    times.push_back(stmt->Int(0));
  }
  return times;
}

Error AppendError(const Database& db, const Error& error) {
  return MakeError(error.code,
                   "cannot append to the audit log " + db.path() + ": " + error.message);
}

}  // namespace

Result<int64_t> AuditLog::Append(const safety::AuditEntry& e) {
  std::lock_guard lock(db_->mutex());
  auto stmt = db_->Prepare(std::string("INSERT INTO audit (") + kAuditColumns + ") VALUES (" +
                           kAuditValues + ")");
  if (!stmt.ok()) return stmt.error();
  BindEntry(*stmt, e);
  if (auto st = stmt->Run(); !st.ok()) return AppendError(*db_, st.error());
  return db_->LastInsertId();
}

Result<safety::AuditSink::RateSlot> AuditLog::AppendWithinRate(const safety::AuditEntry& e,
                                                               int64_t after_ms, int max_actions) {
  std::lock_guard lock(db_->mutex());
  // One statement, so one write transaction: SQLite takes the write lock
  // before the count is read, and every process on this file counts the
  // rows the others committed.
  auto stmt =
      db_->Prepare(std::string("INSERT INTO audit (") + kAuditColumns + ") SELECT " + kAuditValues +
                   " WHERE (SELECT COUNT(*) FROM audit WHERE time_ms > ?21 AND " +
                   kUnconfirmedActions + ") < ?22 RETURNING id");
  if (!stmt.ok()) return stmt.error();
  BindEntry(*stmt, e);
  stmt->Bind(21, after_ms).Bind(22, int64_t{max_actions});
  auto row = stmt->Step();
  if (!row.ok()) return AppendError(*db_, row.error());
  RateSlot slot;
  if (*row) {
    slot.id = stmt->Int(0);
    // Stepped to its end, the statement commits.
    if (auto st = stmt->Run(); !st.ok()) return AppendError(*db_, st.error());
    return slot;
  }
  // Refused: what was counted, for the caller's message (when a slot frees).
  auto times = UnconfirmedTimesLocked(*db_, after_ms + 1);
  if (!times.ok()) return times.error();
  slot.times = std::move(times).value();
  return slot;
}

Status AuditLog::Complete(int64_t id, const safety::AuditEntry& e) {
  std::lock_guard lock(db_->mutex());
  auto stmt = db_->Prepare(
      "UPDATE audit SET decision = ?2, via = ?3, verification = ?4, error = ?5, "
      "screen_after = ?6, finished_ms = ?7, reason = ?8 WHERE id = ?1 AND decision = ?9");
  if (!stmt.ok()) return stmt.error();
  stmt->Bind(1, id)
      .Bind(2, e.decision)
      .Bind(3, e.via)
      .Bind(4, Dump(e.verification))
      .Bind(5, e.error)
      .Bind(6, e.screen_after)
      .Bind(7, e.finished_ms != 0 ? e.finished_ms : e.time_ms)
      .Bind(8, e.reason)
      .Bind(9, std::string(safety::decision::kInFlight));
  if (auto st = stmt->Run(); !st.ok()) {
    return MakeError(st.error().code, "cannot complete audit entry " + std::to_string(id) + " in " +
                                          db_->path() + ": " + st.error().message);
  }
  if (db_->Changes() == 0) {
    return MakeError(ErrorCode::kNotFound,
                     "audit entry " + std::to_string(id) + " is not in flight in " + db_->path());
  }
  return OkStatus();
}

Result<std::vector<int64_t>> AuditLog::UnconfirmedActionTimes(int64_t since_ms) {
  std::lock_guard lock(db_->mutex());
  return UnconfirmedTimesLocked(*db_, since_ms);
}

Result<std::vector<safety::AuditEntry>> AuditLog::Query(const AuditQuery& q) {
  std::lock_guard lock(db_->mutex());
  // The most recent `limit` rows, returned oldest first.
  std::string sql =
      "SELECT * FROM (SELECT id, time_ms, pid, session, display, tool, target, target_desc, app, "
      "arguments, decision, rule, reason, token, confirmed, via, verification, error, "
      "screen_before, screen_after, finished_ms FROM audit WHERE time_ms >= ?1 AND id > ?2 "
      "AND (?3 = '' OR tool = ?3) AND (?4 = '' OR decision = ?4) ORDER BY id DESC";
  if (q.limit > 0) sql += " LIMIT ?5";
  sql += ") ORDER BY id";
  auto stmt = db_->Prepare(sql);
  if (!stmt.ok()) return stmt.error();
  stmt->Bind(1, q.since_ms).Bind(2, q.after_id).Bind(3, q.tool).Bind(4, q.decision);
  if (q.limit > 0) stmt->Bind(5, int64_t{q.limit});
  std::vector<safety::AuditEntry> out;
  for (;;) {
    auto row = stmt->Step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    safety::AuditEntry e;
    e.id = stmt->Int(0);
    e.time_ms = stmt->Int(1);
    e.pid = static_cast<int>(stmt->Int(2));
    e.session = stmt->Text(3);
    e.display = stmt->Text(4);
    e.tool = stmt->Text(5);
    e.target = stmt->Text(6);
    e.target_desc = stmt->Text(7);
    e.app = stmt->Text(8);
    e.arguments = ParseOr(stmt->Text(9), json::object());
    e.decision = stmt->Text(10);
    e.rule = stmt->Text(11);
    e.reason = stmt->Text(12);
    e.token = stmt->Text(13);
    e.confirmed = stmt->Int(14) != 0;
    e.via = stmt->Text(15);
    e.verification = ParseOr(stmt->Text(16), json::object());
    e.error = stmt->Text(17);
    e.screen_before = stmt->Text(18);
    e.screen_after = stmt->Text(19);
    e.finished_ms = stmt->Int(20);
    out.push_back(std::move(e));
  }
  return out;
}

Result<int> AuditLog::Prune(int64_t before_ms) {
  std::lock_guard lock(db_->mutex());
  auto stmt = db_->Prepare("DELETE FROM audit WHERE time_ms < ?1");
  if (!stmt.ok()) return stmt.error();
  stmt->Bind(1, before_ms);
  if (auto st = stmt->Run(); !st.ok()) return st.error();
  return db_->Changes();
}

}  // namespace uiscope::memory
