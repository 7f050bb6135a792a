#include "memory/sqlite.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

namespace uiscope::memory {
namespace {

// Creates the missing directories of `dir`, owner-only: the audit log says
// what was done on the desktop, which is nobody else's business.
Status MakeDirectories(const std::filesystem::path& dir) {
  if (dir.empty()) return OkStatus();
  std::error_code error;
  if (std::filesystem::is_directory(dir, error)) return OkStatus();
  if (auto st = MakeDirectories(dir.parent_path()); !st.ok()) return st;
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return MakeError(ErrorCode::kUnavailable,
                     "cannot create directory " + dir.string() + ": " + std::strerror(errno));
  }
  return OkStatus();
}

}  // namespace

Statement& Statement::Bind(int index, int64_t value) {
  if (bind_status_.ok() && sqlite3_bind_int64(stmt_.get(), index, value) != SQLITE_OK)
    bind_status_ = MakeError(ErrorCode::kInternal, sqlite3_errmsg(db_));
  return *this;
}

Statement& Statement::Bind(int index, std::string_view value) {
  if (bind_status_.ok() &&
      sqlite3_bind_text(stmt_.get(), index, value.data(), static_cast<int>(value.size()),
                        SQLITE_TRANSIENT) != SQLITE_OK)
    bind_status_ = MakeError(ErrorCode::kInternal, sqlite3_errmsg(db_));
  return *this;
}

Statement& Statement::BindNull(int index) {
  if (bind_status_.ok() && sqlite3_bind_null(stmt_.get(), index) != SQLITE_OK)
    bind_status_ = MakeError(ErrorCode::kInternal, sqlite3_errmsg(db_));
  return *this;
}

Result<bool> Statement::Step() {
  if (!bind_status_.ok()) return bind_status_.error();
  const int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  const ErrorCode code =
      rc == SQLITE_BUSY || rc == SQLITE_LOCKED ? ErrorCode::kTimeout : ErrorCode::kUnavailable;
  return MakeError(code, std::string(sqlite3_errmsg(db_)) + " (" + sqlite3_errstr(rc) + ")");
}

Status Statement::Run() {
  for (;;) {
    auto row = Step();
    if (!row.ok()) return row.error();
    if (!*row) return OkStatus();
  }
}

void Statement::Reset() {
  sqlite3_reset(stmt_.get());
  sqlite3_clear_bindings(stmt_.get());
  bind_status_ = OkStatus();
}

int64_t Statement::Int(int column) const { return sqlite3_column_int64(stmt_.get(), column); }

std::string Statement::Text(int column) const {
  const auto* text = sqlite3_column_text(stmt_.get(), column);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_.get(), column)));
}

bool Statement::IsNull(int column) const {
  return sqlite3_column_type(stmt_.get(), column) == SQLITE_NULL;
}

Result<std::shared_ptr<Database>> Database::Open(const std::string& path,
                                                 const DatabaseOptions& options) {
  const std::filesystem::path file(path);
  if (auto st = MakeDirectories(file.parent_path()); !st.ok()) return st.error();
  // Created here so its mode is 0600 (SQLite would use 0644); the -wal and
  // -shm files SQLite creates next to it take the same mode.
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return MakeError(ErrorCode::kUnavailable,
                     "cannot open database " + path + ": " + std::strerror(errno));
  }
  ::close(fd);

  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  std::shared_ptr<Database> db(new Database(path, raw));  // closes `raw` even on failure
  if (rc != SQLITE_OK) return db->LastError("cannot open");
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, static_cast<int>(options.busy_timeout.count()));

  // Turning a new file to WAL needs its exclusive lock, and SQLite answers
  // "database is locked" at once, without the busy handler, while another
  // process opening it holds that lock: try again until the busy timeout.
  const auto give_up = std::chrono::steady_clock::now() + options.busy_timeout;
  auto mode = db->Prepare("PRAGMA journal_mode=WAL");
  if (!mode.ok()) return mode.error();
  auto row = mode->Step();
  while (!row.ok() && row.error().code == ErrorCode::kTimeout &&
         std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    mode->Reset();
    row = mode->Step();
  }
  if (!row.ok()) {
    return MakeError(ErrorCode::kUnavailable,
                     "database " + path + " cannot be used: " + row.error().message);
  }
  if (!*row || mode->Text(0) != "wal") {
    return MakeError(ErrorCode::kUnavailable,
                     "database " + path +
                         " cannot use write-ahead logging (a network file system?); put it on a "
                         "local disk (\"database\" in the configuration)");
  }
  const std::string pragmas = std::string("PRAGMA synchronous=") +
                              (options.synchronous_full ? "FULL" : "NORMAL") +
                              "; PRAGMA secure_delete=ON;";
  if (auto st = db->Exec(pragmas); !st.ok()) return st.error();
  return db;
}

Status Database::Exec(std::string_view sql) {
  char* message = nullptr;
  const std::string text(sql);
  const int rc = sqlite3_exec(db_.get(), text.c_str(), nullptr, nullptr, &message);
  if (rc == SQLITE_OK) return OkStatus();
  std::string why = message != nullptr ? message : sqlite3_errstr(rc);
  sqlite3_free(message);
  return MakeError(rc == SQLITE_BUSY ? ErrorCode::kTimeout : ErrorCode::kUnavailable,
                   "database " + path_ + ": " + why);
}

Result<Statement> Database::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  const int rc =
      sqlite3_prepare_v2(db_.get(), sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  Statement s(db_.get(), stmt);
  if (rc != SQLITE_OK) return LastError("cannot prepare a statement on");
  return s;
}

int64_t Database::LastInsertId() const { return sqlite3_last_insert_rowid(db_.get()); }

int Database::Changes() const { return sqlite3_changes(db_.get()); }

Error Database::LastError(std::string_view what) const {
  const char* message = db_ ? sqlite3_errmsg(db_.get()) : "out of memory";
  return MakeError(ErrorCode::kUnavailable,
                   std::string(what) + " database " + path_ + ": " + message);
}

}  // namespace uiscope::memory
