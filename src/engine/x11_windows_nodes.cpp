#include "engine/x11_windows_nodes.h"

#include "core/app_name.h"
#include "platform/process_name.h"
#include "platform/windows_from_pixels.h"

namespace uiscope {

std::string X11AppName(const WindowInfo& window) {
  if (!window.app_instance.empty()) return window.app_instance;
  if (std::string process = ProcessName(window.pid); !process.empty()) return process;
  return window.title;
}

std::vector<WindowInfo> WindowsNamed(const std::vector<WindowInfo>& windows,
                                     std::string_view wanted) {
  std::vector<WindowInfo> out;
  for (const WindowInfo& w : windows) {
    if (AppNameMatches(wanted, w.app_instance) ||
        AppNameMatches(wanted, w.app_class, ProcessName(w.pid))) {
      out.push_back(w);
    }
  }
  return out;
}

std::vector<WindowInfo> WindowsOfPid(const std::vector<WindowInfo>& windows, int pid) {
  std::vector<WindowInfo> out;
  for (const WindowInfo& w : windows) {
    if (pid > 0 && w.pid == pid) out.push_back(w);
  }
  return out;
}

std::vector<Node> X11AppNodes(const std::vector<WindowInfo>& windows,
                              const std::function<std::string(const WindowInfo&)>& app_name) {
  std::vector<Node> apps;
  for (const WindowInfo& w : windows) {
    const std::string name = app_name ? app_name(w) : X11AppName(w);
    Node* app = nullptr;
    for (Node& a : apps) {
      if (w.pid > 0 ? a.pid == w.pid : (a.pid == 0 && a.name == name)) app = &a;
    }
    if (app == nullptr) {
      Node a;
      a.role = Role::kApplication;
      a.name = name;
      a.app = name;
      a.pid = w.pid;
      a.source = Source::kX11;
      apps.push_back(std::move(a));
      app = &apps.back();
    }
    Node window;
    window.role = Role::kWindow;
    window.name = w.title;
    // A title bar found in pixels may hold the app's own controls: read it.
    window.bounds = AppArea(w);
    window.source = Source::kX11;
    window.app = app->name;
    window.pid = w.pid;
    if (w.visible) {
      window.states.Set(State::kShowing);
      window.states.Set(State::kVisible);
    }
    if (w.focused) window.states.Set(State::kActive);
    app->children.push_back(std::move(window));
  }
  return apps;
}

namespace {

bool Untitled(const Node& n) {
  return IsWindowRole(n.role) && n.name.empty() && n.bounds && n.source == Source::kAx;
}

}  // namespace

bool HasUntitledWindow(const std::vector<Node>& apps) {
  for (const Node& app : apps) {
    for (const Node& w : app.children) {
      if (app.pid > 0 && Untitled(w)) return true;
    }
  }
  return false;
}

int NameUntitledWindows(std::vector<Node>& apps, const std::vector<WindowInfo>& windows) {
  int named = 0;
  for (Node& app : apps) {
    if (app.pid <= 0) continue;
    for (Node& w : app.children) {
      if (!Untitled(w)) continue;
      const WindowInfo* best = nullptr;
      double best_iou = kSameWindowIoU;
      for (const WindowInfo& x : windows) {
        if (x.pid != app.pid || x.title.empty()) continue;
        if (const double iou = IoU(*w.bounds, x.bounds); iou >= best_iou) {
          best = &x;
          best_iou = iou;
        }
      }
      if (best != nullptr) {
        w.name = best->title;
        ++named;
      }
    }
  }
  return named;
}

}  // namespace uiscope
