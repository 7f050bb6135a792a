#include "audit_command.h"

#include <signal.h>

#include <cerrno>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "core/clock.h"
#include "memory/audit_log.h"
#include "memory/state_db.h"
#include "printers.h"
#include "safety/policy_config.h"

namespace uiscope::cli {
namespace {

std::string LocalTime(int64_t ms) {
  const time_t t = static_cast<time_t>(ms / 1000);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof(out), "%s.%03d", buf, static_cast<int>(ms % 1000));
  return out;
}

// An in-flight entry whose writer is gone was cut off between the decision
// and the outcome (killed, crashed): the action may or may not have
// happened. kill(pid, 0) is enough here: a reused pid only delays that
// verdict, it never hides an entry.
bool WriterAlive(const safety::AuditEntry& e) {
  return e.pid > 0 && (kill(e.pid, 0) == 0 || errno == EPERM);
}

}  // namespace

CLI::App* AddAuditCommand(CLI::App& app, GlobalFlags& g, AuditFlags& f) {
  auto* cmd = app.add_subcommand(
      "audit", "print the audit log: every action, what the safety policy decided, what happened");
  cmd->add_option("--since", f.since,
                  "only entries since WHEN: 10m, 2h, 7d, 2025-11-22, 2025-11-22T16:15 (local; "
                  "add Z for UTC) or @UNIX_SECONDS");
  cmd->add_option("--limit", f.limit, "the most recent N entries (default 100, 0 = all)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--tool", f.tool, "only this tool (click, type_text, session_stop, ...)");
  cmd->add_option("--decision", f.decision,
                  "only this decision: in_flight (performing, or cut off before its outcome "
                  "was recorded), done, failed, dropped, denied, awaiting_confirmation, "
                  "approved, rejected")
      ->check(CLI::IsMember({"in_flight", "done", "failed", "dropped", "denied",
                             "awaiting_confirmation", "approved", "rejected"}));
  cmd->add_option("--config", g.config,
                  "safety configuration file (default ~/.config/uiscope/config.json); its "
                  "\"database\" names the log");
  cmd->add_flag("--json", g.json, "print {\"database\", \"entries\": [...]}");
  return cmd;
}

int RunAuditCommand(const GlobalFlags& g, const AuditFlags& f) {
  auto config = safety::LoadPolicyConfig(g.config);
  if (!config.ok()) return Fail(g, config.error());
  memory::AuditQuery query;
  query.limit = f.limit;
  query.tool = f.tool;
  query.decision = f.decision;
  if (!f.since.empty()) {
    auto since = memory::ParseSince(f.since, UnixNowMs());
    if (!since.ok()) return Fail(g, since.error());
    query.since_ms = *since;
  }
  const std::string path = safety::DatabasePath(*config);
  std::vector<safety::AuditEntry> entries;
  std::error_code error;
  // Reading never creates the database: no log yet is an empty log.
  if (std::filesystem::exists(path, error)) {
    auto db = memory::OpenStateDatabase(path, {.read_only = true});
    if (!db.ok()) return Fail(g, db.error());
    memory::AuditLog log(*db);
    auto found = log.Query(query);
    if (!found.ok()) return Fail(g, found.error());
    entries = std::move(found).value();
  }
  if (g.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& e : entries) {
      nlohmann::json j = safety::AuditEntryToJson(e);
      if (e.decision == safety::decision::kInFlight) j["writer_alive"] = WriterAlive(e);
      list.push_back(std::move(j));
    }
    std::cout << nlohmann::json{{"database", path}, {"entries", list}}.dump(
                     -1, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";
    return kExitOk;
  }
  for (const auto& e : entries) {
    std::cout << AuditLine(e, LocalTime(e.time_ms), WriterAlive(e)) << "\n";
  }
  if (entries.empty())
    std::cerr << "uiscope: no audit entries" << (f.since.empty() ? "" : " since " + f.since)
              << " in " << path << "\n";
  return kExitOk;
}

}  // namespace uiscope::cli
