#include "confirm_command.h"

#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <iostream>

#include "core/clock.h"
#include "core/escape.h"
#include "memory/safety_store.h"
#include "memory/state_db.h"
#include "printers.h"
#include "session/launch_marks.h"

namespace uiscope::cli {
namespace {


// Who decides, as the audit log and the confirmation record it: a person
// only when this process comes from nothing uiscope started for an agent
// (session/launch_marks.h); otherwise the agent, with the process that
// gives it away.
std::string WhoDecides(const std::optional<LaunchOrigin>& origin) {
  std::string user = "uid " + std::to_string(getuid());
  if (const passwd* pw = getpwuid(getuid())) user = pw->pw_name;
  const std::string self = "pid " + std::to_string(getpid());
  if (origin.has_value()) {
    return "the agent: uiscope confirm (user " + user + ", " + self +
           ") in a process uiscope started for it (" + origin->Describe() + ")";
  }
  return "uiscope confirm (user " + user + ", " + self +
         "; a person: no process uiscope started is among its ancestors)";
}

// An agent's decision where the policy leaves it to a person: Denied, and
// nothing decided. A denial stands whoever gives it; a grant is a person's.
std::optional<Error> RefuseAgentDecision(const std::optional<LaunchOrigin>& origin,
                                         const safety::PolicyConfig& config,
                                         const ConfirmFlags& f) {
  if (!origin.has_value() || !f.approve) return std::nullopt;
  const std::string where = " runs in a process uiscope started for the agent (" +
                            origin->Describe() + "), so its approval would be the agent's own";
  if (!config.agent_may_confirm) {
    return MakeError(ErrorCode::kDenied,
                     "this `uiscope confirm`" + where +
                         " and confirmations.agent_may_confirm is false. A person must approve "
                         "it from a terminal of their own: `uiscope confirm " +
                         f.token + " --approve`");
  }
  if (!f.grant.empty()) {
    return MakeError(ErrorCode::kDenied, "this `uiscope confirm`" + where +
                                             "; only a person can grant (--grant). Approve "
                                             "without --grant");
  }
  return std::nullopt;
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
  cmd->add_option("--grant", f.grant,
                  "with --approve: also let the held action's app go ahead without asking, for a "
                  "duration (30m, 2h; at most 24h), a number of actions (20), or both (30m,20: "
                  "whichever ends first). Only for holds by the rate limit or confirm_tools");
  cmd->add_flag("--revoke-grants", f.revoke_grants, "end every grant now");
  cmd->add_flag("--all", f.all, "list decided and expired confirmations of the last day too");
  cmd->add_option("--config", g.config,
                  "safety configuration file (default ~/.config/uiscope/config.json)");
  cmd->add_flag("--json", g.json, "machine-readable output");
  return cmd;
}

int RunConfirmCommand(const GlobalFlags& g, const ConfirmFlags& f) {
  std::optional<safety::GrantScope> grant;
  if (!f.grant.empty()) {
    if (!f.approve) {
      return Fail(g, MakeError(ErrorCode::kInvalidArgument,
                               "--grant goes with --approve (a grant widens an approval)"));
    }
    auto scope = safety::ParseGrantScope(f.grant);
    if (!scope.ok()) return Fail(g, scope.error());
    grant = *scope;
  }
  if (f.revoke_grants && (!f.token.empty() || f.approve || f.deny)) {
    return Fail(g, MakeError(ErrorCode::kInvalidArgument, "--revoke-grants takes no TOKEN"));
  }
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

  if (f.revoke_grants) {
    auto db = memory::OpenStateDatabase(path);
    if (!db.ok()) return Fail(g, db.error());
    memory::SqliteConfirmationStore store(*db);
    auto revoked = store.RevokeGrants(now);
    if (!revoked.ok()) return Fail(g, revoked.error());
    if (g.json) {
      std::cout << nlohmann::json{{"database", path}, {"revoked", *revoked}}.dump() << "\n";
    } else {
      std::cerr << "uiscope: ended " << *revoked << " grant" << (*revoked == 1 ? "" : "s")
                << "\n";
    }
    return kExitOk;
  }

  if (f.token.empty()) {
    std::vector<safety::Confirmation> list;
    std::vector<safety::Grant> grants;
    std::error_code error;
    if (std::filesystem::exists(path, error)) {
      auto db = memory::OpenStateDatabase(path);
      if (!db.ok()) return Fail(g, db.error());
      memory::SqliteConfirmationStore store(*db);
      auto found = store.List(!f.all, f.all ? now - 24 * 3600 * 1000 : 0, now);
      if (!found.ok()) return Fail(g, found.error());
      list = std::move(found).value();
      auto live = store.LiveGrants(now);
      if (!live.ok()) return Fail(g, live.error());
      grants = std::move(live).value();
    }
    if (g.json) {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& c : list) arr.push_back(safety::ConfirmationToJson(c));
      nlohmann::json grant_list = nlohmann::json::array();
      for (const auto& gr : grants) grant_list.push_back(safety::GrantToJson(gr));
      std::cout << nlohmann::json{{"database", path},
                                  {"confirmations", arr},
                                  {"grants", grant_list}}
                       .dump()
                << "\n";
      return kExitOk;
    }
    if (list.empty()) {
      std::cerr << "uiscope: no " << (f.all ? "" : "pending ") << "confirmations in " << path
                << "\n";
    }
    for (const auto& c : list) std::cout << DescribeConfirmation(c, now) << "\n";
    for (const auto& gr : grants) std::cout << DescribeGrant(gr, now) << "\n";
    return kExitOk;
  }

  const std::optional<LaunchOrigin> origin = FindLaunchOrigin(static_cast<int>(getpid()));
  if (auto refused = RefuseAgentDecision(origin, *config, f)) return Fail(g, *refused);
  auto db = memory::OpenStateDatabase(path);
  if (!db.ok()) return Fail(g, db.error());
  memory::SqliteConfirmationStore store(*db);
  memory::AuditLog audit(*db);
  auto decided = safety::DecideConfirmation(store, &audit, f.token, f.approve,
                                            WhoDecides(origin), now, grant);
  if (!decided.ok()) return Fail(g, decided.error());
  if (g.json) {
    std::cout << safety::ConfirmationToJson(*decided).dump() << "\n";
    return kExitOk;
  }
  std::cerr << "uiscope: " << (f.approve ? "approved" : "denied") << " "
            << EscapeForDisplay(f.token) << ": " << EscapeForDisplay(decided->tool)
            << (decided->target.empty() ? "" : " " + EscapeForDisplay(decided->target)) << "\n";
  if (grant) {
    std::cerr << "uiscope: granted " << safety::DescribeGrantScope(*grant) << " for "
              << (decided->app.empty() ? std::string("actions of unknown apps")
                                       : EscapeForDisplay(decided->app))
              << " (rule " << EscapeForDisplay(decided->rule)
              << "); `uiscope confirm --revoke-grants` ends it early\n";
  }
  if (f.approve) {
    std::cerr << "uiscope: the process holding it (pid " << decided->holder_pid
              << ") performs it when it next checks: the agent's `confirm` call, or at once "
                 "when it is waiting\n";
  }
  return kExitOk;
}

}  // namespace uiscope::cli
