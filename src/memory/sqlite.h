// A thin SQLite wrapper: the sqlite3* and sqlite3_stmt* handles in
// unique_ptr with their deleters, errors as Result with SQLite's message,
// and the connection settings uiscope's state database relies on.
//
// Thread safety: a Database may be used from several threads, one at a time:
// callers hold mutex() around every statement sequence (the connection is
// opened with SQLITE_OPEN_NOMUTEX; this lock is the only one). Several
// processes may open the same file at once (WAL).
#pragma once

#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace uiscope::memory {

class Statement {
 public:
  Statement() = default;

  // Binds parameter `index` (1-based).
  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, std::string_view value);
  Statement& BindNull(int index);

  // Runs one step: true when a row is ready, false when done. Errors carry
  // SQLite's message.
  Result<bool> Step();
  // Steps to the end (for statements without rows).
  Status Run();
  // Ready for new bindings (the bindings are cleared too).
  void Reset();

  int64_t Int(int column) const;
  std::string Text(int column) const;
  bool IsNull(int column) const;

 private:
  friend class Database;
  struct Finalizer {
    void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
  };
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}

  sqlite3* db_ = nullptr;
  std::unique_ptr<sqlite3_stmt, Finalizer> stmt_;
  Status bind_status_ = OkStatus();
};

struct DatabaseOptions {
  // WAL journal with synchronous=FULL: a commit is on disk when it returns,
  // so neither a killed process nor a power cut loses a committed entry
  // (NORMAL would survive a kill, but may lose the last commits on a power
  // cut). The cost is one fsync per commit: actions are paced by the
  // desktop, not by the log (see memory_test's measurement).
  bool synchronous_full = true;
  std::chrono::milliseconds busy_timeout{5000};  // waiting for another writer
  // Reading only (`uiscope audit`): the file must exist, and nothing is
  // created or changed, so a database on a read-only file system (a backup,
  // a mounted image) can be read. There it is opened immutable: SQLite then
  // needs neither the -wal nor the -shm file it could not create.
  bool read_only = false;
};

class Database {
 public:
  // Opens (creating it and its directory, owner-only permissions) the
  // database at `path`, in WAL mode. Unavailable with the reason when the
  // file cannot be opened or is not a database.
  //
  // A new database is made under another name and linked into place whole,
  // so the file at `path` is never empty while uiscope creates it. An empty
  // (0-byte) file there was a database whose contents were lost (truncated,
  // or replaced): it is moved aside, with its -wal file, and a new one made;
  // lost() says where it went, for the caller to tell the person. Read-only,
  // an empty file is an error saying so.
  static Result<std::shared_ptr<Database>> Open(const std::string& path,
                                                const DatabaseOptions& options = {});

  Status Exec(std::string_view sql);
  Result<Statement> Prepare(std::string_view sql);
  int64_t LastInsertId() const;
  int Changes() const;

  std::mutex& mutex() { return mutex_; }
  const std::string& path() const { return path_; }
  sqlite3* raw() { return db_.get(); }

  // SQLite's message for the last error, with the database path.
  Error LastError(std::string_view what) const;
  // Where an empty file found at path() was moved ("" when none was).
  const std::string& lost() const { return lost_; }

 private:
  struct Closer {
    void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
  };
  Database(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}

  std::string path_;
  std::string lost_;
  std::unique_ptr<sqlite3, Closer> db_;
  std::mutex mutex_;
};

}  // namespace uiscope::memory
