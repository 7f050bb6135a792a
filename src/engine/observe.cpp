#include "engine/observe.h"

#include "core/ids.h"

namespace uiscope {

Result<Observation> Observer::Observe(const ObserveRequest& request) {
  auto start = std::chrono::steady_clock::now();
  if (hide_app_ && !request.app.empty() && hide_app_(request.app)) {
    return MakeError(ErrorCode::kDenied, "application \"" + request.app +
                                             "\" is on the safety policy's deny list "
                                             "(deny_apps): uiscope does not observe it");
  }
  TreeRequest tree;
  tree.app_name = request.app;
  tree.pid = request.pid;
  tree.include_hidden = request.include_hidden;
  tree.max_depth = request.max_depth;
  tree.max_nodes = request.max_fetch_nodes;
  tree.timeout = request.timeout;
  tree.skip_app = hide_app_;
  auto result = accessibility_.Tree(tree);
  if (!result.ok()) return result.error();
  if (hide_app_) {
    // Also when a backend ignored skip_app: a denied app never leaves here.
    std::erase_if(result->apps, [&](const Node& app) { return hide_app_(app.name); });
  }

  Observation obs;
  obs.snapshot.frame = frame_;
  obs.snapshot.roots = std::move(result->apps);
  obs.warnings = std::move(result->warnings);
  obs.requests = result->requests;

  // Reconcile only against an observation of the same scope: IDs of another
  // app's tree say nothing about this one.
  std::string scope = request.app + "\x1f" + std::to_string(request.pid);
  bool same_scope = scope == previous_scope_ && !previous_roots_.empty();
  AssignIds(obs.snapshot.roots, same_scope ? &previous_roots_ : nullptr);
  previous_scope_ = scope;
  previous_roots_ = obs.snapshot.roots;

  obs.snapshot.stats.ax_nodes = static_cast<int>(CountNodes(obs.snapshot.roots));
  obs.snapshot.stats.latency_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return obs;
}

}  // namespace uiscope
