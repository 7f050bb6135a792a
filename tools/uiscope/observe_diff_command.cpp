#include "observe_diff_command.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "core/escape.h"
#include "engine/observe_diff.h"
#include "engine/perceive.h"
#include "engine/workspace.h"
#include "mcp/wire.h"
#include "policy_flags.h"
#include "session/headless_desktop.h"

namespace uiscope::cli {

int RunObserveDiffCommand(const GlobalFlags& g, const ObserveDiffFlags& f) {
  auto sources = ParseSources(CLI::detail::split(f.sources, ','));
  if (!sources.ok()) return Fail(g, sources.error());
  auto policy = LoadPolicy(g);
  if (!policy.ok()) return Fail(g, policy.error());
  WorkspaceOptions where;
  where.display = g.display;
  where.session = g.session;
  where.start_headless = false;
  where.hide_app = HiddenApps(*policy);
  where.learner = LearnerFor(*policy);
  Workspace workspace(where);
  auto lease = workspace.Acquire();
  if (!lease.ok()) return Fail(g, lease.error());
  ObserveRequest request;
  request.app = f.app;
  request.pid = f.pid;
  request.include_hidden = f.all;
  request.timeout = std::chrono::milliseconds(f.timeout_ms);
  std::unique_ptr<TextReader> reader;
  if (sources->ocr) reader = CliTextReader(*policy);
  auto perceived = Perceive(*lease, request, *sources, reader.get());
  if (!perceived.ok()) return Fail(g, perceived.error());
  const Snapshot& current = perceived->observation.snapshot;

  std::string runtime_dir;
  if (!lease->session_id.empty()) {
    if (auto info = FindSession(lease->session_id); info.ok()) runtime_dir = info->runtime_dir;
  }
  const std::string scope =
      f.app + "_" + std::to_string(f.pid) + (f.all ? "_all" : "") + "_" + f.sources;
  const std::string path = BaselinePath(lease->display, runtime_dir, scope);
  std::optional<Snapshot> previous = LoadBaseline(path);
  FormatOptions page;
  page.max_nodes = f.max_nodes;
  page.max_chars = f.max_chars;
  auto d = DiffObservations(current, previous ? &*previous : nullptr, page, f.max_nodes);
  if (!d.ok()) return Fail(g, d.error());
  if (auto st = SaveBaseline(path, current); !st.ok()) {
    std::cerr << "uiscope: warning: " << st.error().message
              << " (the next diff compares with an older baseline)\n";
  }
  for (const auto& w : perceived->observation.warnings) {
    std::cerr << "uiscope: warning: " << EscapeForDisplay(w) << "\n";
  }
  if (g.json) {
    nlohmann::json j = DiffObservationToJson(current, *d);
    j["display"] = lease->display;
    j["warnings"] = perceived->observation.warnings;
    std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return kExitOk;
  }
  if (d->baseline) {
    std::cerr << "uiscope: first diff observation of this scope on " << lease->display
              << ": the whole tree; the next `observe --format diff` prints only what changed\n";
  } else if (d->diff.empty()) {
    std::cerr << "uiscope: no change since the previous observation\n";
  }
  std::cout << d->text;
  return kExitOk;
}

}  // namespace uiscope::cli
