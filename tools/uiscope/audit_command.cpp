#include "audit_command.h"

#include <signal.h>

#include <cerrno>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "core/clock.h"
#include "core/escape.h"
#include "memory/audit_log.h"
#include "memory/state_db.h"
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

std::string Short(const std::string& hash) { return hash.size() > 8 ? hash.substr(0, 8) : hash; }

// An in-flight entry whose writer is gone was cut off between the decision
// and the outcome (killed, crashed): the action may or may not have
// happened. kill(pid, 0) is enough here: a reused pid only delays that
// verdict, it never hides an entry.
bool WriterAlive(const safety::AuditEntry& e) {
  return e.pid > 0 && (kill(e.pid, 0) == 0 || errno == EPERM);
}

std::string Line(const safety::AuditEntry& e) {
  std::string line = LocalTime(e.time_ms) + "  ";
  // Targets, app names, arguments, reasons and errors quote what apps and
  // agents wrote: each goes through the one escaping printer, so none can
  // rewrite another line of the terminal.
  std::string decision = EscapeForDisplay(e.decision);
  decision.resize(std::max<size_t>(decision.size(), 21), ' ');
  std::string tool = EscapeForDisplay(e.tool);
  tool.resize(std::max<size_t>(tool.size(), 13), ' ');
  line += decision + " " + tool;
  if (!e.target_desc.empty()) {
    line += " " + EscapeForDisplay(e.target_desc);
  } else if (!e.target.empty()) {
    line += " " + EscapeForDisplay(e.target);
  }
  if (!e.app.empty()) line += " in " + EscapeForDisplay(e.app);
  if (!e.session.empty()) line += " [" + EscapeForDisplay(e.session) + "]";
  const std::string args =
      e.arguments.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (args != "{}") line += " " + EscapeForDisplay(args, 120);
  if (!e.via.empty()) line += " via=" + EscapeForDisplay(e.via);
  if (e.confirmed) line += " confirmed";
  if (!e.token.empty()) line += " token=" + EscapeForDisplay(e.token);
  if (!e.screen_before.empty() || !e.screen_after.empty()) {
    line += " screen=" + EscapeForDisplay(Short(e.screen_before)) + "->" +
            EscapeForDisplay(Short(e.screen_after));
  }
  if (!e.rule.empty()) {
    line += "\n    " + EscapeForDisplay(e.rule) + ": " + EscapeForDisplay(e.reason);
  }
  if (!e.error.empty()) line += "\n    error: " + EscapeForDisplay(e.error);
  if (e.decision == safety::decision::kInFlight) {
    line += WriterAlive(e) ? "\n    in flight: process " + std::to_string(e.pid) +
                                 " is performing it now"
                           : "\n    no outcome: process " + std::to_string(e.pid) +
                                 " ended before recording one; the action may have happened";
  }
  return line;
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
  for (const auto& e : entries) std::cout << Line(e) << "\n";
  if (entries.empty())
    std::cerr << "uiscope: no audit entries" << (f.since.empty() ? "" : " since " + f.since)
              << " in " << path << "\n";
  return kExitOk;
}

}  // namespace uiscope::cli
