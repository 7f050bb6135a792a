#include "find_command.h"

#include <iostream>
#include <memory>

#include "core/escape.h"
#include "engine/find.h"
#include "engine/perceive.h"
#include "detector_flags.h"
#include "engine/workspace.h"
#include "mcp/wire.h"
#include "policy_flags.h"

namespace uiscope::cli {

CLI::App* AddFindCommand(CLI::App& app, GlobalFlags& g, FindFlags& f) {
  auto* cmd = app.add_subcommand(
      "find", "elements whose label matches LABEL (fuzzy: case, accents, typos), best first");
  cmd->add_option("LABEL", f.name,
                  "the element's label: case- and accent-insensitive, words in any order, "
                  "typos in long words forgiven")
      ->required();
  cmd->add_option("--role", f.role, "only this role (button, text_field, ...)");
  cmd->add_flag("--exact", f.exact, "the whole label, exactly as written");
  cmd->add_option("--app", f.app, "only this application");
  cmd->add_option("--sources", f.sources,
                  "where to look, comma-separated: ax (accessibility), ocr (text "
                  "where the tree is blind), vision (elements detected in the pixels); "
                  "default as observe's; vision without ax: the pixels alone");
  AddDetectorOption(cmd, f.detector);
  cmd->add_option("--limit", f.limit, "at most N matches")->check(CLI::Range(1, 100000));
  cmd->add_option("--timeout-ms", f.timeout_ms, "deadline per application")
      ->check(CLI::Range(10, 600000));
  cmd->add_option("--display", g.display, "X display to use (default: $DISPLAY)");
  cmd->add_option(
      "--session", g.session,
      "uiscope session ID, headless or VNC (default: $UISCOPE_SESSION, else the display)");
  cmd->add_option("--config", g.config, "safety policy file (its deny_apps are not searched)");
  cmd->add_flag("--json", g.json, "machine-readable output (the MCP find tool's result)");
  return cmd;
}

int RunFindCommand(const GlobalFlags& g, const FindFlags& f) {
  FindQuery query;
  query.name = f.name;
  query.exact = f.exact;
  query.limit = f.limit;
  if (!f.role.empty()) {
    auto role = ParseRole(f.role);
    if (!role.ok()) return Fail(g, role.error());
    query.role = *role;
  }
  auto sources = ParseSources(CLI::detail::split(f.sources, ','));
  if (!sources.ok()) return Fail(g, sources.error());
  auto detector = CliDetector(f.detector);
  if (!detector.ok()) return Fail(g, detector.error());
  auto policy = LoadPolicy(g);
  if (!policy.ok()) return Fail(g, policy.error());
  WorkspaceOptions where;
  where.display = g.display;
  where.session = g.session;
  where.start_headless = false;  // the CLI names the desktop; it never starts one
  where.hide_app = HiddenApps(*policy);
  where.learner = LearnerFor(*policy);
  Workspace workspace(where);
  auto lease = workspace.Acquire();
  if (!lease.ok()) return Fail(g, lease.error());

  ObserveRequest request;
  request.app = f.app;
  request.timeout = std::chrono::milliseconds(f.timeout_ms);
  std::unique_ptr<TextReader> reader;
  if (sources->ocr || sources->vision) reader = CliTextReader(*policy);
  auto perceived = Perceive(*lease, request, *sources, reader.get(), {}, detector->get());
  if (!perceived.ok()) return Fail(g, perceived.error());
  const Observation& obs = perceived->observation;
  if (lease->learner != nullptr) {
    query.learned_hits = [learner = lease->learner](const Node& n) { return learner->Hits(n.id); };
  }
  auto found = FindNodes(obs.snapshot.roots, query, obs.snapshot.frame);
  if (!found.ok()) return Fail(g, found.error());
  for (const auto& w : obs.warnings) {
    std::cerr << "uiscope: warning: " << EscapeForDisplay(w) << "\n";
  }
  if (g.json) {
    nlohmann::json j = FindResultToJson(*found);
    j["display"] = lease->display;
    j["warnings"] = obs.warnings;
    std::cout << j.dump() << "\n";
  } else {
    for (const FindMatch& m : found->matches) std::cout << FormatFindMatch(m) << "\n";
    if (found->total > static_cast<int>(found->matches.size())) {
      std::cerr << "uiscope: " << found->total - static_cast<int>(found->matches.size())
                << " more matches (--limit)\n";
    }
  }
  if (found->total == 0) {
    // Escaping is idempotent: the names FindNodes escaped stay as they are.
    std::cerr << "uiscope: " << EscapeForDisplay(found->suggestion) << " (" << found->searched
              << " elements searched)\n";
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace uiscope::cli
