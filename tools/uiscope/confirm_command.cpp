#include "confirm_command.h"

#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "core/clock.h"
#include "memory/safety_store.h"
#include "memory/state_db.h"

namespace uiscope::cli {
namespace {

std::string Describe(const safety::Confirmation& c, int64_t now_ms) {
  std::string line =
      c.token + "  " + std::string(safety::ConfirmationStatusName(c.status)) + "  " + c.tool;
  if (!c.target.empty()) line += " " + c.target;
  if (!c.app.empty()) line += " in " + c.app;
  if (!c.session.empty()) line += " [" + c.session + "]";
  const std::string args =
      c.arguments.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (args != "{}") line += " " + args;
  if (c.status == safety::ConfirmationStatus::kPending) {
    line += "  (expires in " +
            std::to_string(std::max<int64_t>(0, (c.expires_ms - now_ms) / 1000)) + " s)";
  } else if (!c.decided_by.empty()) {
    line += "  (by " + c.decided_by + ")";
  }
  line += "\n    " + c.rule + ": " + c.reason;
  return line;
}

std::string WhoDecides() {
  std::string user = "uid " + std::to_string(getuid());
  if (const passwd* pw = getpwuid(getuid())) user = pw->pw_name;
  return "uiscope confirm (user " + user + ", pid " + std::to_string(getpid()) + ")";
}

}  // namespace

CLI::App* AddConfirmCommand(CLI::App& app, GlobalFlags& g, ConfirmFlags& f) {
  auto* cmd = app.add_subcommand(
      "confirm",
      "approve or deny an action the safety policy holds (without TOKEN: list pending ones)");
  cmd->add_option("TOKEN", f.token, "the token printed with confirmation_required");
  auto* approve = cmd->add_flag("--approve", f.approve, "perform the held action");
  auto* deny = cmd->add_flag("--deny", f.deny, "refuse the held action");
  approve->excludes(deny);
  cmd->add_flag("--all", f.all, "list decided and expired confirmations of the last day too");
  cmd->add_option("--config", g.config,
                  "safety configuration file (default ~/.config/uiscope/config.json)");
  cmd->add_flag("--json", g.json, "machine-readable output");
  return cmd;
}

int RunConfirmCommand(const GlobalFlags& g, const ConfirmFlags& f) {
  if (f.token.empty() && (f.approve || f.deny)) {
    return Fail(g, MakeError(ErrorCode::kInvalidArgument,
                             "--approve and --deny need a TOKEN; `uiscope confirm` lists them"));
  }
  if (!f.token.empty() && !f.approve && !f.deny) {
    return Fail(g, MakeError(ErrorCode::kInvalidArgument,
                             "say what to do with " + f.token + ": --approve or --deny"));
  }
  auto config = safety::LoadPolicyConfig(g.config);
  if (!config.ok()) return Fail(g, config.error());
  const std::string path = safety::DatabasePath(*config);
  const int64_t now = UnixNowMs();

  if (f.token.empty()) {
    std::vector<safety::Confirmation> list;
    std::error_code error;
    if (std::filesystem::exists(path, error)) {
      auto db = memory::OpenStateDatabase(path);
      if (!db.ok()) return Fail(g, db.error());
      memory::SqliteConfirmationStore store(*db);
      auto found = store.List(!f.all, f.all ? now - 24 * 3600 * 1000 : 0, now);
      if (!found.ok()) return Fail(g, found.error());
      list = std::move(found).value();
    }
    if (g.json) {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& c : list) arr.push_back(safety::ConfirmationToJson(c));
      std::cout << nlohmann::json{{"database", path}, {"confirmations", arr}}.dump() << "\n";
      return kExitOk;
    }
    if (list.empty()) {
      std::cerr << "uiscope: no " << (f.all ? "" : "pending ") << "confirmations in " << path
                << "\n";
    }
    for (const auto& c : list) std::cout << Describe(c, now) << "\n";
    return kExitOk;
  }

  auto db = memory::OpenStateDatabase(path);
  if (!db.ok()) return Fail(g, db.error());
  memory::SqliteConfirmationStore store(*db);
  memory::AuditLog audit(*db);
  auto decided = safety::DecideConfirmation(store, &audit, f.token, f.approve, WhoDecides(), now);
  if (!decided.ok()) return Fail(g, decided.error());
  if (g.json) {
    std::cout << safety::ConfirmationToJson(*decided).dump() << "\n";
    return kExitOk;
  }
  std::cerr << "uiscope: " << (f.approve ? "approved" : "denied") << " " << f.token << ": "
            << decided->tool << (decided->target.empty() ? "" : " " + decided->target) << "\n";
  if (f.approve) {
    std::cerr << "uiscope: the process holding it (pid " << decided->holder_pid
              << ") performs it when it next checks: the agent's `confirm` call, or at once "
                 "when it is waiting\n";
  }
  return kExitOk;
}

}  // namespace uiscope::cli
