// TargetStore: the learned memory of DESIGN §5.6 (seed 002 §6) in its own
// SQLite file, `memory.db` beside the state database (safety::DatabasePath):
// per app signature (core/learned_targets.h) its targets, what `uiscope
// memory` lists, shows, exports and forgets.
//
// A file of its own so that forgetting is complete: `forget` deletes the
// rows with secure_delete on (sqlite.h), then VACUUMs and truncates the WAL,
// so no byte of a forgotten label is left in the files (tests/memory checks
// the bytes). The audit log keeps its own record of actions (DESIGN §8).
//
// Durability: WAL as every state file. Learning writes on every
// observation, so the store is opened with synchronous=NORMAL there (a
// commit survives a killed process; a power cut may lose the last
// observations' learning, never the file's consistency); `teach` and
// `forget` open it with synchronous=FULL (OpenTargetStore's `durable`).
//
// Bounds (core/learned_targets.h): kMaxTargetsPerApp targets per signature,
// kMaxApps signatures; 10 apps x 1,000 targets take about 2 MB
// (tests/memory measures it).
//
// Thread safety: every method may be called from any thread; several
// processes may use the file at once (each write is one IMMEDIATE
// transaction).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/learned_targets.h"
#include "memory/sqlite.h"

namespace uiscope::memory {

// memory.db in the directory of `state_database` (the state database's path).
std::string MemoryDatabasePath(const std::string& state_database);

struct AppSummary {
  AppSignature signature;
  int targets = 0;
  int taught = 0;
  int64_t first_seen_ms = 0;
  int64_t last_seen_ms = 0;
  int64_t bytes = 0;  // about what its rows take
};

class TargetStore final : public LearnedStore {
 public:
  explicit TargetStore(std::shared_ptr<Database> db) : db_(std::move(db)) {}

  Result<std::vector<LearnedTarget>> Load(const AppSignature& signature) override;
  Status Save(const AppSignature& signature, const std::vector<LearnedTarget>& upserted,
              const std::vector<std::string>& removed, int64_t now_ms) override;
  Result<std::optional<AppSignature>> Holding(const std::string& id) override;

  // Every signature, most recently seen first.
  Result<std::vector<AppSummary>> ListApps();
  // The signatures whose app name equals `app` (case-insensitive).
  Result<std::vector<AppSignature>> SignaturesOf(const std::string& app);
  // Deletes every target and signature of app `app` (every title and
  // toolkit), then compacts the file so nothing of them remains. Returns
  // how many targets went; NotFound when the app is not known.
  Result<int> Forget(const std::string& app);
  // Deletes everything, likewise.
  Result<int> ForgetAll();
  // {app, signatures: [{title_pattern, toolkit, first_seen_ms, last_seen_ms,
  // targets: [...]}]}; NotFound when the app is not known.
  Result<nlohmann::json> Export(const std::string& app);

  const std::string& path() const { return db_->path(); }

 private:
  Status Compact();
  std::shared_ptr<Database> db_;
};

// Opens (creating it) the store at `path`. `durable`: synchronous=FULL.
Result<std::shared_ptr<TargetStore>> OpenTargetStore(const std::string& path, bool durable);

// A target as JSON (bounds and click relative to its window) and back.
nlohmann::json LearnedTargetToJson(const LearnedTarget& target);
// One app of ListApps as JSON, as `uiscope memory list --json` and the MCP
// `memory` tool give it.
nlohmann::json AppSummaryToJson(const AppSummary& app);

}  // namespace uiscope::memory

#include <functional>

#include "safety/policy_config.h"

namespace uiscope::memory {

// The learned memory as the configuration asks for it ("memory" key): the
// store beside DatabasePath(config), and which apps are learned about
// (memory.apps, never one on deny_apps). `store` is null when learning is
// off (`error` empty) or the file could not be opened (`error` says why).
struct Learning {
  std::shared_ptr<TargetStore> store;
  std::function<bool(const std::string& app)> learns;
  std::string error;
};
Learning OpenLearning(const safety::PolicyConfig& config, bool durable = false);

}  // namespace uiscope::memory
