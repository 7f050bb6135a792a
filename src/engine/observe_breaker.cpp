// The Observer's circuit breaker and the X11 windows of apps whose tree
// cannot be read (issue 15 §3, §5); see engine/app_health.h and
// engine/x11_windows_nodes.h.
#include <algorithm>

#include "core/app_name.h"
#include "engine/observe.h"
#include "engine/x11_windows_nodes.h"
#include "platform/process_name.h"

namespace uiscope {
namespace {

std::string Label(const AppInfo& app) {
  return (app.name.empty() ? std::string("(no name)") : app.name) + " (pid " +
         std::to_string(app.pid) + ")";
}

bool InScope(const ObserveRequest& request, const AppInfo& app) {
  if (request.pid != 0) return app.pid == request.pid;
  if (!request.app.empty()) return AppNameMatches(request.app, app.name);
  return true;
}

std::string SilentWhy(const AppHealth::Record& r, AppHealth::WallClock::time_point now) {
  return "is not answering " + DescribeSince(r.since, now) + ": no reply to a " +
         std::to_string(AppHealth::kProbeTimeout.count()) +
         " ms probe, so it was not walked. Its windows are shown from X11 (source x11); it is "
         "walked again once it answers. Wait and retry, or close it (app_close)";
}

}  // namespace

Observer::Breaker Observer::OpenBreaker(const ObserveRequest& request) {
  Breaker breaker;
  const auto now = AppHealth::WallClock::now();
  health_.Load(now);
  if (request.app.empty() && request.pid == 0) {
    breaker.deferred = true;
    for (const AppHealth::Record& r : health_.records()) {
      breaker.skip_buses.push_back(r.app.bus_name);
    }
    return breaker;
  }
  breaker.silent = health_.ProbeTripped(accessibility_, now, AppHealth::kProbeTimeout,
                                        [&](const AppInfo& app) { return InScope(request, app); });
  for (const AppHealth::Record& r : breaker.silent) breaker.skip_buses.push_back(r.app.bus_name);
  health_.Save();
  return breaker;
}

void Observer::CloseBreaker(Breaker breaker, const ObserveRequest& request, const TreeRequest& tree,
                            Observation& obs) {
  if (breaker.deferred) {
    // The probe spends what the others left of the deadline, never more.
    auto timeout = AppHealth::kProbeTimeout;
    if (request.deadline) {
      timeout = std::min(timeout, std::chrono::duration_cast<std::chrono::milliseconds>(
                                      *request.deadline - std::chrono::steady_clock::now()));
    }
    std::vector<AppInfo> held;
    for (const AppHealth::Record& r : health_.records()) held.push_back(r.app);
    breaker.silent = health_.ProbeTripped(accessibility_, AppHealth::WallClock::now(), timeout);
    // Those that answered the probe are walked now, after the others.
    for (const AppInfo& app : held) {
      const bool still =
          std::any_of(breaker.silent.begin(), breaker.silent.end(),
                      [&](const AppHealth::Record& r) { return r.app.bus_name == app.bus_name; });
      if (still || app.pid <= 0) continue;
      TreeRequest one = tree;
      one.pid = app.pid;
      one.skip_buses.clear();
      auto walked = accessibility_.Tree(one);
      if (!walked.ok()) {
        if (walked.error().code == ErrorCode::kTimeout) {
          obs.unanswered.push_back(app);
          obs.warnings.push_back(walked.error().message);
        }
        continue;
      }
      obs.requests += walked->requests;
      for (Node& n : walked->apps) {
        if (!Hides(n.name)) obs.snapshot.roots.push_back(std::move(n));
      }
      for (auto& w : walked->warnings) obs.warnings.push_back(std::move(w));
      for (auto& a : walked->unanswered) obs.unanswered.push_back(std::move(a));
      for (auto& a : walked->exited) obs.exited.push_back(std::move(a));
    }
  }
  const auto now = AppHealth::WallClock::now();
  // An app that stopped before this process learnt its name (a new CLI
  // call) is named as X11 names it, so later warnings say which it is.
  std::vector<WindowInfo> listed;
  for (AppInfo& app : obs.unanswered) {
    if (!app.name.empty() || app.pid <= 0) continue;
    if (listed.empty() && windows_ != nullptr) {
      if (auto all = windows_->ListWindows(); all.ok()) listed = std::move(all).value();
    }
    for (const WindowInfo& w : WindowsOfPid(listed, app.pid)) app.name = X11AppName(w);
    if (app.name.empty()) app.name = ProcessName(app.pid);
  }
  for (const AppInfo& app : obs.unanswered) health_.Trip(app, now);
  for (const AppInfo& app : obs.exited) health_.Clear(app.bus_name, app.pid);
  for (const Node& app : obs.snapshot.roots) health_.Clear(app.ref.owner, app.pid);
  health_.Save();
  for (const AppHealth::Record& r : breaker.silent) {
    if (!InScope(request, r.app) || Hides(r.app.name)) continue;
    obs.unanswered.push_back(r.app);
    obs.warnings.push_back("skipped " + Label(r.app) + ": it " + SilentWhy(r, now));
  }
  for (Node& app : WindowNodesOf(obs.unanswered)) obs.snapshot.roots.push_back(std::move(app));
  if (request.app.empty() && request.pid == 0) AddWindowsWithoutTree(obs);
}

void Observer::AddWindowsWithoutTree(Observation& obs) {
  if (windows_ == nullptr) return;
  auto listed = windows_->ListWindows();
  if (!listed.ok()) return;
  // The same listing names the tree's unnamed windows, so that
  // Observer::NameUntitledWindows need not list them again.
  uiscope::NameUntitledWindows(obs.snapshot.roots, *listed);
  std::vector<int> pids;
  std::vector<Rect> shown;
  for (const Node& app : obs.snapshot.roots) {
    pids.push_back(app.pid);
    ForEachNode(app.children, [&](const Node& n, int) {
      if (IsWindowRole(n.role) && n.bounds) shown.push_back(*n.bounds);
    });
  }
  for (const AppInfo& app : obs.exited) pids.push_back(app.pid);
  std::vector<WindowInfo> orphans;
  for (const WindowInfo& w : *listed) {
    if (w.pid > 0 && std::find(pids.begin(), pids.end(), w.pid) != pids.end()) continue;
    // Without _NET_WM_PID (Tk) a window is the tree's when they coincide.
    const bool in_tree = std::any_of(shown.begin(), shown.end(), [&](const Rect& r) {
      return IoU(r, w.bounds) >= kSameWindowIoU;
    });
    if (in_tree || HidesWindow(w) || Hides(X11AppName(w))) continue;
    orphans.push_back(w);
  }
  for (Node& app : X11AppNodes(orphans)) obs.snapshot.roots.push_back(std::move(app));
}

bool Observer::HidesWindow(const WindowInfo& w) const {
  if (!hide_app_) return false;
  return (!w.app_instance.empty() && hide_app_(w.app_instance)) ||
         (!w.app_class.empty() && hide_app_(w.app_class)) || hide_app_(ProcessName(w.pid));
}

std::vector<Node> Observer::WindowNodesOf(const std::vector<AppInfo>& apps) {
  if (windows_ == nullptr || apps.empty()) return {};
  auto listed = windows_->ListWindows();
  if (!listed.ok()) return {};
  std::vector<WindowInfo> shown;
  for (const WindowInfo& w : *listed) {
    const bool of_app = std::any_of(apps.begin(), apps.end(), [&](const AppInfo& a) {
      return a.pid > 0 && a.pid == w.pid && !Hides(a.name);
    });
    if (of_app && !HidesWindow(w)) shown.push_back(w);
  }
  return X11AppNodes(shown, [&](const WindowInfo& w) {
    for (const AppInfo& a : apps) {
      if (a.pid == w.pid && !a.name.empty()) return a.name;
    }
    return X11AppName(w);
  });
}

std::vector<Node> Observer::X11WindowsOfPid(int pid) {
  AppInfo app;
  app.pid = pid;
  for (const Node& root : previous_roots_) {
    if (root.pid == pid) app.name = root.name;
  }
  return WindowNodesOf({app});
}

Result<Observation> Observer::X11Only(const ObserveRequest& request, const Error& why,
                                      const Breaker& breaker) {
  const bool scoped = request.pid != 0 || !request.app.empty();
  if (windows_ == nullptr || !scoped ||
      (why.code != ErrorCode::kNotFound && why.code != ErrorCode::kTimeout)) {
    return why;
  }
  const auto now = AppHealth::WallClock::now();
  const AppHealth::Record* silent = nullptr;
  for (const AppHealth::Record& r : breaker.silent) {
    if (InScope(request, r.app) && !Hides(r.app.name)) silent = &r;
  }
  auto listed = windows_->ListWindows();
  if (!listed.ok()) return why;
  std::vector<WindowInfo> mine =
      request.pid != 0 ? WindowsOfPid(*listed, request.pid) : WindowsNamed(*listed, request.app);
  if (silent != nullptr && request.pid == 0) {
    // The accessible name may not be the WM_CLASS ("org.gnome.Foo" / "foo").
    for (const WindowInfo& w : WindowsOfPid(*listed, silent->app.pid)) {
      if (std::none_of(mine.begin(), mine.end(), [&](const WindowInfo& m) { return m.id == w.id; }))
        mine.push_back(w);
    }
  }
  std::erase_if(mine, [&](const WindowInfo& w) { return HidesWindow(w); });
  if (mine.empty()) {
    if (silent != nullptr) {
      return MakeError(ErrorCode::kTimeout,
                       "application " + Label(silent->app) + " " + SilentWhy(*silent, now));
    }
    return why;
  }
  Observation obs;
  obs.snapshot.roots = X11AppNodes(mine, [&](const WindowInfo& w) {
    if (silent != nullptr && w.pid == silent->app.pid && !silent->app.name.empty())
      return silent->app.name;
    return X11AppName(w);
  });
  const std::string count =
      std::to_string(mine.size()) + (mine.size() == 1 ? " window is" : " windows are");
  if (silent != nullptr) {
    obs.unanswered.push_back(silent->app);
    obs.warnings.push_back("application " + Label(silent->app) + " " + SilentWhy(*silent, now));
  } else if (why.code == ErrorCode::kTimeout) {
    AppInfo app;
    app.pid = mine.front().pid;
    app.name = obs.snapshot.roots.front().name;
    obs.unanswered.push_back(app);
    obs.warnings.push_back(why.message + ". Its " + count + " shown from X11 (source x11)");
  } else {
    const std::string what =
        request.pid != 0 ? "process " + std::to_string(request.pid) : "\"" + request.app + "\"";
    obs.warnings.push_back(what +
                           " has no accessibility tree (it is not on the accessibility "
                           "bus): its " +
                           count +
                           " shown from X11 (source x11). Their content is read from pixels "
                           "by OCR and vision, by default or with --sources ax,ocr,vision "
                           "(not with --sources ax); act on them by ID or point (input goes "
                           "through XTest)");
  }
  return obs;
}

}  // namespace uiscope
