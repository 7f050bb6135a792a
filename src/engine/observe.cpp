#include "engine/observe.h"

#include "core/ids.h"

namespace uiscope {
namespace {

std::string ScopeKey(const std::string& app, int pid) { return app + "\x1f" + std::to_string(pid); }

}  // namespace

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
  std::string scope = ScopeKey(request.app, request.pid);
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

namespace uiscope {

bool Observer::last_was_full() const { return previous_scope_ == ScopeKey("", 0); }

Result<Observation> Observer::RefreshApp(int pid, std::chrono::milliseconds timeout,
                                         bool include_hidden) {
  if (!last_was_full() || previous_roots_.empty() || pid <= 0) {
    ObserveRequest all;
    all.timeout = timeout;
    all.include_hidden = include_hidden;
    return Observe(all);
  }
  auto start = std::chrono::steady_clock::now();
  TreeRequest tree;
  tree.pid = pid;
  tree.include_hidden = include_hidden;
  tree.timeout = timeout;
  tree.skip_app = hide_app_;
  auto result = accessibility_.Tree(tree);
  Observation obs;
  std::vector<Node> fresh;
  if (result.ok()) {
    fresh = std::move(result->apps);
    if (hide_app_) std::erase_if(fresh, [&](const Node& app) { return hide_app_(app.name); });
    obs.warnings = std::move(result->warnings);
    obs.requests = result->requests;
  } else if (result.error().code != ErrorCode::kNotFound &&
             result.error().code != ErrorCode::kStale) {
    return result.error();
  }  // else: the app has gone (or is not there yet): it is removed below

  // The new tree takes the place of the old one, so the roots keep their
  // order (and their duplicate ranks) as in a full observation.
  std::vector<Node> roots;
  roots.reserve(previous_roots_.size() + fresh.size());
  bool placed = false;
  for (const Node& old : previous_roots_) {
    if (old.pid == pid) {
      if (!placed) {
        for (Node& n : fresh) roots.push_back(std::move(n));
        placed = true;
      }
      continue;
    }
    roots.push_back(old);
  }
  if (!placed) {
    for (Node& n : fresh) roots.push_back(std::move(n));
  }
  AssignIds(roots, &previous_roots_);
  previous_roots_ = roots;

  obs.snapshot.frame = frame_;
  obs.snapshot.roots = std::move(roots);
  obs.snapshot.stats.ax_nodes = static_cast<int>(CountNodes(obs.snapshot.roots));
  obs.snapshot.stats.latency_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return obs;
}

}  // namespace uiscope

namespace uiscope {

std::vector<int> Observer::HiddenPids() {
  std::vector<int> pids;
  if (!hide_app_) return pids;
  auto apps = accessibility_.ListApps();
  if (!apps.ok()) return pids;
  for (const AppInfo& app : *apps) {
    if (app.pid > 0 && hide_app_(app.name)) pids.push_back(app.pid);
  }
  return pids;
}

}  // namespace uiscope
