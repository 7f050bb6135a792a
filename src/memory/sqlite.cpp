#include "memory/sqlite.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
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

// SQLite's words for failure `rc` on `db` (`message`), made into something a
// person can act on when the disk is full. SQLite says "disk I/O error", not
// "database or disk is full", when it cannot grow its -shm file; the
// system's errno, or the file system's free space, tell them apart.
std::string Describe(sqlite3* db, int rc, std::string message) {
  const int primary = rc & 0xff;
  if (primary != SQLITE_FULL && primary != SQLITE_IOERR) return message;
  const char* file = db != nullptr ? sqlite3_db_filename(db, "main") : nullptr;
  const std::string dir =
      file != nullptr && *file != '\0' ? std::filesystem::path(file).parent_path().string() : "";
  const int system_errno = db != nullptr ? sqlite3_system_errno(db) : 0;
  bool full = primary == SQLITE_FULL || system_errno == ENOSPC || system_errno == EDQUOT;
  if (!full && !dir.empty()) {
    // Less than a megabyte left: nothing SQLite writes (a -shm page, a WAL
    // frame) is sure to fit.
    struct statvfs fs {};
    const bool root = ::geteuid() == 0;
    full = ::statvfs(dir.c_str(), &fs) == 0 &&
           static_cast<uint64_t>(root ? fs.f_bfree : fs.f_bavail) * fs.f_frsize < (1u << 20);
  }
  if (!full) return message;
  return "disk full: no space left on the file system holding " +
         (dir.empty() ? std::string("the database") : dir) + " (SQLite: " + message +
         "); free some space there, or move the database (\"database\" in the configuration)";
}

// `path` as an SQLite URI ("file:..."), for the query parameters of a
// read-only open.
std::string FileUri(const std::string& path) {
  std::string uri = "file:";
  for (unsigned char c : path) {
    if (c == '%' || c == '?' || c == '#' || c < 0x21 || c >= 0x7f) {
      static constexpr char kHex[] = "0123456789ABCDEF";
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 15];
    } else {
      uri += static_cast<char>(c);
    }
  }
  return uri;
}

// Moves an empty database file (and its -wal and -shm files) aside to
// PATH.lost-YYYYmmdd-HHMMSS; returns that name, or "" when another process
// moved it first.
Result<std::string> SetAside(const std::string& path) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
  std::string aside = path + ".lost-" + stamp;
  std::error_code exists;
  for (int n = 2; std::filesystem::exists(aside, exists); ++n) {
    aside = path + ".lost-" + stamp + "-" + std::to_string(n);
  }
  if (::rename(path.c_str(), aside.c_str()) != 0) {
    if (errno == ENOENT) return std::string();
    return MakeError(ErrorCode::kUnavailable, "database " + path +
                                                  " is empty (its contents were lost) and cannot "
                                                  "be moved aside: " +
                                                  std::strerror(errno));
  }
  for (const char* suffix : {"-wal", "-shm"}) {
    (void)::rename((path + suffix).c_str(), (aside + suffix).c_str());
  }
  return aside;
}

// Makes a new, empty WAL database at `path` whole: built under a temporary
// name and linked into place, so no process ever sees a 0-byte file there
// (which would read as a lost database). OK when another process made it
// first.
Status CreateWhole(const std::string& path) {
  static std::atomic<int> counter{0};
  const std::string temp =
      path + ".new-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
  // Created here so its mode is 0600 (SQLite would use 0644); the -wal and
  // -shm files SQLite creates next to it take the same mode.
  const int fd = ::open(temp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    return MakeError(ErrorCode::kUnavailable,
                     "cannot create database " + path + ": " + std::strerror(errno));
  }
  ::close(fd);
  struct Remover {
    const std::string& path;
    ~Remover() { ::unlink(path.c_str()); }
  } remover{temp};
  {
    sqlite3* raw = nullptr;
    const int rc =
        sqlite3_open_v2(temp.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
    std::unique_ptr<sqlite3, decltype(&sqlite3_close_v2)> db(raw, &sqlite3_close_v2);
    // Turning it to WAL writes its header; closing it removes its -wal.
    char* message = nullptr;
    if (rc != SQLITE_OK ||
        sqlite3_exec(raw, "PRAGMA journal_mode=WAL", nullptr, nullptr, &message) != SQLITE_OK) {
      std::string why =
          message != nullptr ? message : (raw ? sqlite3_errmsg(raw) : "out of memory");
      why = Describe(raw, raw ? sqlite3_extended_errcode(raw) : rc, why);
      sqlite3_free(message);
      return MakeError(ErrorCode::kUnavailable, "cannot create database " + path + ": " + why);
    }
  }
  if (::link(temp.c_str(), path.c_str()) != 0 && errno != EEXIST) {
    return MakeError(ErrorCode::kUnavailable,
                     "cannot create database " + path + ": " + std::strerror(errno));
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
  return MakeError(code,
                   Describe(db_, sqlite3_extended_errcode(db_),
                            std::string(sqlite3_errmsg(db_)) + " (" + sqlite3_errstr(rc) + ")"));
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
  if (options.read_only) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      return MakeError(errno == ENOENT ? ErrorCode::kNotFound : ErrorCode::kUnavailable,
                       "cannot open database " + path + ": " + std::strerror(errno));
    }
    if (S_ISREG(st.st_mode) && st.st_size == 0) {
      return MakeError(ErrorCode::kUnavailable,
                       "database " + path +
                           " is empty (0 bytes): its contents were lost (the file was truncated "
                           "or replaced); the next uiscope that writes there moves it aside and "
                           "starts a new one");
    }
    // On a read-only file system SQLite cannot make the -shm file a WAL
    // database is read through; nothing can change the file there either,
    // so it is read as immutable (unless a -wal file holds entries that
    // were never checkpointed: then the ordinary read-only way).
    struct statvfs fs {};
    std::error_code error;
    const bool frozen = ::statvfs(std::filesystem::path(path).parent_path().c_str(), &fs) == 0 &&
                        (fs.f_flag & ST_RDONLY) != 0 &&
                        !std::filesystem::exists(path + "-wal", error);
    const std::string uri = FileUri(path) + (frozen ? "?immutable=1" : "?mode=ro");
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(
        uri.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
    std::shared_ptr<Database> db(new Database(path, raw));
    if (rc != SQLITE_OK) return db->LastError("cannot open");
    sqlite3_extended_result_codes(raw, 1);
    sqlite3_busy_timeout(raw, static_cast<int>(options.busy_timeout.count()));
    return db;
  }

  const std::filesystem::path file(path);
  if (auto st = MakeDirectories(file.parent_path()); !st.ok()) return st.error();
  std::string lost;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0) {
    auto aside = SetAside(path);
    if (!aside.ok()) return aside.error();
    lost = *aside;
  }
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) {
      return MakeError(ErrorCode::kUnavailable,
                       "cannot open database " + path + ": " + std::strerror(errno));
    }
    if (auto created = CreateWhole(path); !created.ok()) return created.error();
  }
  if (::access(path.c_str(), R_OK | W_OK) != 0) {
    return MakeError(ErrorCode::kUnavailable,
                     "cannot open database " + path + ": " + std::strerror(errno));
  }

  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
  std::shared_ptr<Database> db(new Database(path, raw));  // closes `raw` even on failure
  db->lost_ = std::move(lost);
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
  std::string why = Describe(db_.get(), sqlite3_extended_errcode(db_.get()),
                             message != nullptr ? message : sqlite3_errstr(rc));
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
  const std::string message =
      db_ ? Describe(db_.get(), sqlite3_extended_errcode(db_.get()), sqlite3_errmsg(db_.get()))
          : "out of memory";
  return MakeError(ErrorCode::kUnavailable,
                   std::string(what) + " database " + path_ + ": " + message);
}

}  // namespace uiscope::memory
