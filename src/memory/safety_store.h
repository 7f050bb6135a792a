// The safety policy with its storage: opens the state database named by the
// configuration and builds the PolicyGate on it (the audit log and the
// shared confirmation store). What `uiscope mcp` and the CLI verbs that act
// call at start-up.
#pragma once

#include <memory>
#include <string>

#include "memory/audit_log.h"
#include "memory/confirmation_store.h"
#include "safety/policy_gate.h"

namespace uiscope::memory {

struct SafetyStores {
  std::string path;                                          // the database file
  std::shared_ptr<Database> db;                              // null when it could not be opened
  std::shared_ptr<AuditLog> audit;                           // null with db
  std::shared_ptr<safety::ConfirmationStore> confirmations;  // in memory when db is null
  std::string error;                                         // why db is null
  // Not empty when the database was found empty (its audit log lost) and a
  // new one started: what was said about it (logged as an error).
  std::string lost;
};

// Opens DatabasePath(config) and applies the audit retention. Never fails:
// a database that cannot be opened leaves `db` null and says why in
// `error`, so read-only work goes on while every action is refused.
SafetyStores OpenSafetyStores(const safety::PolicyConfig& config);

// The policy gate of `config` on `stores` (fail-closed when stores.db is
// null).
std::shared_ptr<safety::PolicyGate> MakePolicyGate(const safety::PolicyConfig& config,
                                                   const SafetyStores& stores);

}  // namespace uiscope::memory
