// ShortcutStore: the shortcut registry (seed 004 §3.4, issue 19) in the
// state database (state_db.h, table `shortcuts`, schema version 4): per app,
// each chord, the action it runs, its category and where it came from
// ("menu", "schema", "learned", "user"). Reading an app's tree replaces its
// "menu" rows (ReplaceSource); what a person or a schema added stays.
//
// Thread safety: every method may be called from any thread; several
// processes may use the file at once (each write is one IMMEDIATE
// transaction).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/shortcuts.h"
#include "memory/sqlite.h"

namespace uiscope::memory {

class ShortcutStore final : public ShortcutRegistryStore {
 public:
  explicit ShortcutStore(std::shared_ptr<Database> db) : db_(std::move(db)) {}

  // Replaces every row of `app` (case-insensitive) from `source` with
  // `shortcuts` (their app and source fields are ignored).
  Status ReplaceSource(const std::string& app, const std::string& source,
                       const std::vector<Shortcut>& shortcuts, int64_t now_ms) override;
  // The rows of `app` ("" = every app), of `category` ("" = all), in the
  // order user, schema, menu, learned, then by category and action.
  Result<std::vector<Shortcut>> List(const std::string& app,
                                     const std::string& category = "") override;
  // One row: replaces the row of the same app (case-insensitive), source
  // and keys.
  Status Put(const Shortcut& shortcut, int64_t now_ms) override;
  Result<int> Remove(const std::string& app, const std::vector<std::string>& sources,
                     const std::string& keys, const std::string& action) override;

 private:
  std::shared_ptr<Database> db_;
};

}  // namespace uiscope::memory
