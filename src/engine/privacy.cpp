#include "engine/privacy.h"

#include <algorithm>

#include "platform/process_name.h"

namespace uiscope {
namespace {

// What a window covers on screen: its frame (title bar and borders, whose
// title may tell as much as the window) when known.
Rect Area(const WindowInfo& w) { return w.Covers(); }

}  // namespace

HiddenWindows HiddenWindows::Of(Observer& observer) {
  HiddenWindows h;
  if (!observer.hides_anything()) return h;
  h.observer_ = &observer;
  h.pids_ = observer.HiddenPids();
  return h;
}

bool HiddenWindows::IsHidden(int pid, const std::string& app_class,
                             const std::string& app_instance) const {
  if (observer_ == nullptr) return false;
  if (pid > 0 && std::find(pids_.begin(), pids_.end(), pid) != pids_.end()) return true;
  if (!app_instance.empty() && observer_->Hides(app_instance)) return true;
  if (!app_class.empty() && observer_->Hides(app_class)) return true;
  const std::string process = ProcessName(pid);
  return !process.empty() && observer_->Hides(process);
}

bool HiddenWindows::IsHidden(const WindowInfo& w) const {
  return IsHidden(w.pid, w.app_class, w.app_instance);
}

std::vector<uint64_t> HiddenWindows::StackingOf(const std::vector<WindowInfo>& windows) {
  std::vector<uint64_t> ids;
  ids.reserve(windows.size());
  for (const WindowInfo& w : windows) ids.push_back(w.id);
  return ids;
}

std::vector<Rect> HiddenWindows::Regions(const std::vector<WindowInfo>& windows,
                                         const std::vector<uint64_t>& stacking) const {
  std::vector<Rect> out;
  if (empty()) return out;
  auto find = [&](uint64_t id) -> const WindowInfo* {
    for (const WindowInfo& w : windows) {
      if (w.id == id) return &w;
    }
    return nullptr;
  };
  for (const WindowInfo& w : windows) {
    if (!IsHidden(w)) continue;
    std::vector<Rect> above;
    const auto at = std::find(stacking.begin(), stacking.end(), w.id);
    if (at != stacking.end()) {
      for (auto it = at + 1; it != stacking.end(); ++it) {
        const WindowInfo* top = find(*it);
        if (top != nullptr && !IsHidden(*top)) above.push_back(Area(*top));
      }
    }
    // A window missing from the stacking order is masked whole: covering
    // too much is the safe mistake.
    for (const Rect& r : Subtract(Area(w), above)) out.push_back(r);
  }
  return out;
}

std::vector<WindowInfo> HiddenWindows::Visible(std::vector<WindowInfo> windows) const {
  if (!empty()) std::erase_if(windows, [&](const WindowInfo& w) { return IsHidden(w); });
  return windows;
}

bool InputReachesHiddenWindow(const HiddenWindows& hidden, const std::vector<WindowInfo>& windows,
                              const std::vector<Point>& points,
                              const std::optional<WindowInfo>& target_window) {
  if (hidden.empty()) return false;
  if (target_window && hidden.IsHidden(*target_window)) return true;
  for (const Point& p : points) {
    for (auto it = windows.rbegin(); it != windows.rend(); ++it) {
      if (!it->visible || !it->bounds.Contains(p)) continue;
      if (hidden.IsHidden(*it)) return true;
      break;  // the topmost window there gets the input
    }
  }
  return false;
}

}  // namespace uiscope
