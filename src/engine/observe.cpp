#include "engine/observe.h"

#include <algorithm>
#include <set>

#include "core/ids.h"
#include "engine/cdp_pages.h"
#include "engine/x11_windows_nodes.h"

namespace uiscope {
namespace {

std::string ScopeKey(const std::string& app, int pid) { return app + "\x1f" + std::to_string(pid); }

}  // namespace

Observer::Observer(Accessibility& accessibility, Frame frame)
    : accessibility_(accessibility), frame_(frame), pages_(std::make_unique<CdpPages>()) {}

Observer::~Observer() = default;

void Observer::set_page_protocol(bool on) {
  pages_ = on ? std::make_unique<CdpPages>() : nullptr;
}

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
  tree.deadline = request.deadline;
  tree.fresh = request.fresh;
  tree.skip_app = hide_app_;
  // An app that does not answer is recorded by the breaker, also when it
  // is the one asked for, so that the next call probes it instead of
  // waiting its whole timeout again.
  tree.unanswered_is_error = false;
  Breaker breaker = OpenBreaker(request);
  tree.skip_buses = breaker.skip_buses;
  auto result = accessibility_.Tree(tree);
  Observation obs;
  if (!result.ok()) {
    // An app known only to X11 (no accessibility, or not answering).
    auto x11 = X11Only(request, result.error(), breaker);
    if (!x11.ok()) return x11.error();
    obs = std::move(x11).value();
  } else {
    if (hide_app_) {
      // Also when a backend ignored skip_app: a denied app never leaves here.
      std::erase_if(result->apps, [&](const Node& app) { return hide_app_(app.name); });
    }
    obs.snapshot.roots = std::move(result->apps);
    obs.warnings = std::move(result->warnings);
    obs.requests = result->requests;
    obs.snapshot.stats.cache = result->cache;
    obs.unanswered = std::move(result->unanswered);
    obs.exited = std::move(result->exited);
    CloseBreaker(std::move(breaker), request, tree, obs);
  }
  // Only an observation of everything says which apps are missing; one of
  // a single app that answered clears that app's record.
  if (request.app.empty() && request.pid == 0) {
    NoteAbsent(obs.unanswered, obs.exited, 0);
  } else {
    for (const Node& app : obs.snapshot.roots) {
      if (app.source != Source::kX11) NoteAbsent({}, {}, app.pid);
    }
    for (const AppInfo& app : obs.unanswered) {
      if (app.pid > 0) NoteAbsent({app}, {}, app.pid);
    }
  }
  if (pages_) {
    pages_->Apply(obs.snapshot.roots,
                  CdpPagesOptions{request.include_hidden, request.max_fetch_nodes, request.timeout},
                  obs.warnings);
  }
  obs.snapshot.frame = frame_;

  // Reconcile only against an observation of the same scope: IDs of another
  // app's tree say nothing about this one.
  std::string scope = ScopeKey(request.app, request.pid);
  bool same_scope = scope == previous_scope_ && !previous_roots_.empty();
  NameUntitledWindows(obs.snapshot.roots);
  LoadAnchors(obs.snapshot.roots, obs.warnings);
  AssignIds(obs.snapshot.roots, same_scope ? &previous_roots_ : nullptr, &anchors_);
  const bool full = request.app.empty() && request.pid == 0;
  KeepAnchors(obs.snapshot.roots, 0, full ? &obs.unanswered : nullptr, obs.warnings);
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
  ObserveRequest scope;
  scope.pid = pid;
  Breaker breaker = OpenBreaker(scope);
  Observation obs;
  std::vector<Node> fresh;
  const auto silent = std::find_if(breaker.silent.begin(), breaker.silent.end(),
                                   [&](const AppHealth::Record& r) { return r.app.pid == pid; });
  Result<TreeResult> result = TreeResult{};
  if (silent != breaker.silent.end()) {
    // Still not answering: not walked; its windows come from X11 again.
    CloseBreaker(breaker, scope, TreeRequest{}, obs);
    fresh = std::move(obs.snapshot.roots);
    NoteAbsent(obs.unanswered, {}, pid);
  } else {
    TreeRequest tree;
    tree.pid = pid;
    tree.include_hidden = include_hidden;
    tree.timeout = timeout;
    tree.skip_app = hide_app_;
    result = accessibility_.Tree(tree);
  }
  if (silent != breaker.silent.end()) {
    // Handled above.
  } else if (result.ok()) {
    for (const AppInfo& app : result->unanswered) {
      health_.Trip(app, AppHealth::WallClock::now());
    }
    for (const Node& app : result->apps) health_.Clear(app.ref.owner, app.pid);
    health_.Save();
    fresh = std::move(result->apps);
    if (hide_app_) std::erase_if(fresh, [&](const Node& app) { return hide_app_(app.name); });
    obs.warnings = std::move(result->warnings);
    if (pages_) pages_->Apply(fresh, CdpPagesOptions{include_hidden, 20000, timeout}, obs.warnings);
    obs.requests = result->requests;
    obs.snapshot.stats.cache = result->cache;
    NoteAbsent(result->unanswered, result->exited, pid);
  } else if (result.error().code != ErrorCode::kNotFound &&
             result.error().code != ErrorCode::kStale) {
    // Not answering: the app's last tree stays, so its IDs stay known (and
    // an action on one is told the app is not answering, not that it is gone).
    return result.error();
  } else if (fresh = X11WindowsOfPid(pid); !fresh.empty()) {
    // No accessibility, but windows (xterm, Tk): known from X11, as in a
    // full observation.
  } else {
    // The app has gone (or is not there yet): it is removed below, and its
    // elements are known to have gone with it.
    obs.warnings.push_back(result.error().message);
    std::vector<AppInfo> gone;
    for (const Node& old : previous_roots_) {
      if (old.pid == pid) gone.push_back(AppInfo{old.name, pid, "", "", ""});
    }
    NoteAbsent({}, gone, pid);
    obs.exited = std::move(gone);
  }

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
  NameUntitledWindows(roots);
  LoadAnchors(roots, obs.warnings);
  AssignIds(roots, &previous_roots_, &anchors_);
  KeepAnchors(roots, pid, nullptr, obs.warnings);
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

namespace uiscope {

void Observer::NoteAbsent(const std::vector<AppInfo>& unanswered,
                          const std::vector<AppInfo>& exited, int only_pid) {
  std::vector<Absent> next;
  auto record = [&](const AppInfo& app, bool has_exited) {
    if (only_pid != 0 && app.pid != only_pid) return;
    Absent a;
    a.app = app;
    a.exited = has_exited;
    for (const Node& root : previous_roots_) {
      if (app.pid <= 0 || root.pid != app.pid) continue;
      if (a.app.name.empty()) a.app.name = root.name;
      a.ids.insert(root.id);
      ForEachNode(root.children, [&](const Node& n, int) { a.ids.insert(n.id); });
    }
    // Still missing since an earlier observation: its elements are the same.
    for (const Absent& before : absent_) {
      if (before.app.pid == app.pid) a.ids.insert(before.ids.begin(), before.ids.end());
    }
    next.push_back(std::move(a));
  };
  for (const AppInfo& app : unanswered) record(app, false);
  for (const AppInfo& app : exited) record(app, true);
  if (only_pid != 0) {
    std::erase_if(absent_, [&](const Absent& a) { return a.app.pid == only_pid; });
    for (Absent& a : next) absent_.push_back(std::move(a));
  } else {
    absent_ = std::move(next);
  }
}

std::optional<Error> Observer::WhyMissing(std::string_view id) const {
  auto label = [](const AppInfo& app) {
    return (app.name.empty() ? std::string("(no name)") : app.name) + " (pid " +
           std::to_string(app.pid) + ")";
  };
  const std::string element(id);
  for (const Absent& a : absent_) {
    if (!a.ids.count(element)) continue;
    if (a.exited) {
      return MakeError(ErrorCode::kStale, "element " + element + " belonged to application " +
                                              label(a.app) +
                                              ", which has exited: its elements are gone. "
                                              "Launch it again (app_launch) or observe again");
    }
    return MakeError(ErrorCode::kTimeout, "element " + element + " belongs to application " +
                                              label(a.app) +
                                              ", which is not answering: it is busy or hung. "
                                              "Wait and retry, or close it (app_close)");
  }
  std::string hung;
  for (const Absent& a : absent_) {
    if (a.exited) continue;
    hung += (hung.empty() ? "" : ", ") + label(a.app);
  }
  if (hung.empty()) return std::nullopt;
  return MakeError(ErrorCode::kTimeout,
                   "no element " + element + " among the applications that answered; " + hung +
                       " did not answer (busy or hung), so its elements could not be read. "
                       "Wait and retry, or close it (app_close)");
}

}  // namespace uiscope

namespace uiscope {

// Anchors are per app; an app root without a bus name (a backend without
// references) has none.
void Observer::LoadAnchors(const std::vector<Node>& roots, std::vector<std::string>& warnings) {
  if (!anchor_store_) return;
  for (const Node& app : roots) {
    if (app.ref.owner.empty()) continue;
    anchor_store_->Load(AnchoredApp{app.ref.owner, app.name, app.pid}, anchors_, warnings);
  }
}

void Observer::KeepAnchors(const std::vector<Node>& roots, int only_pid,
                           const std::vector<AppInfo>* unanswered,
                           std::vector<std::string>& warnings) {
  std::set<std::string> alive;
  for (const Node& app : roots) {
    if (app.ref.owner.empty()) continue;
    alive.insert(app.ref.owner);
    if (!anchor_store_ || (only_pid != 0 && app.pid != only_pid)) continue;
    auto it = anchors_.apps.find(app.ref.owner);
    if (it == anchors_.apps.end()) continue;
    if (auto st = anchor_store_->Save(AnchoredApp{app.ref.owner, app.name, app.pid}, it->second);
        !st.ok()) {
      warnings.push_back(st.error().message + ": IDs of " + app.name +
                         " will not be shared with other uiscope processes");
    }
  }
  if (unanswered == nullptr) return;
  for (const AppInfo& app : *unanswered) alive.insert(app.bus_name);
  const bool others = std::any_of(anchors_.apps.begin(), anchors_.apps.end(),
                                  [&](const auto& kv) { return !alive.contains(kv.first); }) ||
                      (anchor_store_ && anchor_store_->HoldsOthers(alive));
  if (!others) return;
  // An app can be missing from an observation and still run (too slow to
  // walk this time): only the bus says which have gone.
  auto listed = accessibility_.ListApps();
  if (!listed.ok()) return;
  for (const AppInfo& app : *listed) alive.insert(app.bus_name);
  std::erase_if(anchors_.apps, [&](const auto& kv) { return !alive.contains(kv.first); });
  if (anchor_store_) anchor_store_->Forget(alive);
}

void Observer::NameUntitledWindows(std::vector<Node>& roots) {
  if (windows_ == nullptr || !HasUntitledWindow(roots)) return;
  auto listed = windows_->ListWindows();
  if (listed.ok()) uiscope::NameUntitledWindows(roots, *listed);
}

}  // namespace uiscope
