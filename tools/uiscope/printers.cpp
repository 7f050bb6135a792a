#include "printers.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/escape.h"

namespace uiscope::cli {
namespace {

std::string Short(const std::string& hash) { return hash.size() > 8 ? hash.substr(0, 8) : hash; }

}  // namespace

// What the person approves is described by the app (its target's name, its
// own name) and the agent (arguments, reason): every such field goes through
// the one escaping printer, so no entry can rewrite another's line or the
// terminal's title, clipboard or screen.
std::string DescribeConfirmation(const safety::Confirmation& c, int64_t now_ms) {
  std::string line = EscapeForDisplay(c.token) + "  " +
                     std::string(safety::ConfirmationStatusName(c.status)) + "  " +
                     EscapeForDisplay(c.tool);
  if (!c.target.empty()) line += " " + EscapeForDisplay(c.target);
  if (!c.app.empty()) line += " in " + EscapeForDisplay(c.app);
  if (!c.session.empty()) line += " [" + EscapeForDisplay(c.session) + "]";
  const std::string args =
      c.arguments.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (args != "{}") line += " " + EscapeForDisplay(args);
  if (c.status == safety::ConfirmationStatus::kPending) {
    line += "  (expires in " +
            std::to_string(std::max<int64_t>(0, (c.expires_ms - now_ms) / 1000)) + " s)";
  } else if (!c.decided_by.empty()) {
    line += "  (by " + EscapeForDisplay(c.decided_by) + ")";
  }
  line += "\n    " + EscapeForDisplay(c.rule) + ": " + EscapeForDisplay(c.reason);
  return line;
}

std::string DescribeGrant(const safety::Grant& g, int64_t now_ms) {
  std::string line =
      "grant " + std::to_string(g.id) + "  " +
      (g.app.empty() ? std::string("(actions of unknown apps)") : EscapeForDisplay(g.app));
  if (!g.display.empty()) line += " on " + EscapeForDisplay(g.display);
  if (!g.session.empty()) line += " [" + EscapeForDisplay(g.session) + "]";
  line += "  rule " + EscapeForDisplay(g.rule) +
          (g.tool.empty() ? "" : " for " + EscapeForDisplay(g.tool));
  if (g.max_actions > 0) {
    line += "  " + std::to_string(g.max_actions - g.used) + " of " + std::to_string(g.max_actions) +
            " actions left";
  }
  line += "  ends in " + std::to_string(std::max<int64_t>(0, (g.expires_ms - now_ms) / 1000)) +
          " s  (by " + EscapeForDisplay(g.decided_by) + ", with " + EscapeForDisplay(g.token) + ")";
  return line;
}

std::string AuditLine(const safety::AuditEntry& e, const std::string& local_time,
                      bool writer_alive) {
  std::string line = local_time + "  ";
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
    line += writer_alive
                ? "\n    in flight: process " + std::to_string(e.pid) + " is performing it now"
                : "\n    no outcome: process " + std::to_string(e.pid) +
                      " ended before recording one; the action may have happened";
  }
  return line;
}

}  // namespace uiscope::cli
