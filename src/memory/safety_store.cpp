#include "memory/safety_store.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "memory/state_db.h"

namespace uiscope::memory {

SafetyStores OpenSafetyStores(const safety::PolicyConfig& config) {
  SafetyStores stores;
  stores.path = safety::DatabasePath(config);
  auto db = OpenStateDatabase(stores.path);
  if (!db.ok()) {
    stores.error = db.error().message;
    stores.confirmations = std::make_shared<safety::MemoryConfirmationStore>();
    spdlog::error("{}; actions will be refused until it can be opened", stores.error);
    return stores;
  }
  stores.db = std::move(db).value();
  if (!stores.db->lost().empty()) {
    stores.lost = "the audit log " + stores.path +
                  " was empty (0 bytes): its entries were lost (the file was truncated or "
                  "replaced). The empty file was kept as " +
                  stores.db->lost() + "; a new audit log starts now";
    spdlog::error("{}", stores.lost);
  }
  stores.audit = std::make_shared<AuditLog>(stores.db);
  stores.confirmations = std::make_shared<SqliteConfirmationStore>(stores.db);
  if (config.audit_retention_days > 0) {
    const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    const int64_t before = now - int64_t{config.audit_retention_days} * 24 * 3600 * 1000;
    if (auto pruned = stores.audit->Prune(before); !pruned.ok()) {
      spdlog::warn("audit retention: {}", pruned.error().message);
    }
  }
  return stores;
}

std::shared_ptr<safety::PolicyGate> MakePolicyGate(const safety::PolicyConfig& config,
                                                   const SafetyStores& stores) {
  return std::make_shared<safety::PolicyGate>(
      config, stores.audit, stores.confirmations,
      stores.db ? std::string() : stores.path + ": " + stores.error);
}

}  // namespace uiscope::memory
