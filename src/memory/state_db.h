// The state database: one SQLite file per user (DESIGN §5.6, §8) holding
// the audit log, the pending confirmations and the shortcut registry, shared by every uiscope
// process (the MCP server, CLI commands, the web page). Learned targets will
// live here too.
//
// Schema versions are tracked with PRAGMA user_version; opening a database
// creates or upgrades its tables in one transaction, so processes starting
// at once agree. A database from a newer uiscope is refused rather than
// misread.
#pragma once

#include <memory>
#include <string>

#include "core/result.h"
#include "memory/sqlite.h"

namespace uiscope::memory {

inline constexpr int kStateSchemaVersion = 4;

// Opens the database at `path` (created if missing) with its tables.
// With options.read_only, opens an existing one of this schema version for
// reading, changing nothing. A database found empty and started anew says
// so in lost() (sqlite.h).
Result<std::shared_ptr<Database>> OpenStateDatabase(const std::string& path,
                                                    const DatabaseOptions& options = {});

}  // namespace uiscope::memory
