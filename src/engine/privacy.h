// What the deny list hides besides trees (DESIGN §8: "apps on a deny list are
// neither indexed nor touched"). The Observer never reads a denied
// application's accessibility tree (Observer::set_hide_app); its windows are
// still on screen, though, so the pixel paths and the input paths ask here:
//   - screenshots fill the screen areas of hidden windows with black before
//     encoding or hashing, and refuse `--window` of a hidden window;
//   - read_text, `observe --sources ocr` and vision blank the same areas
//     before recognition and never take a hidden window as a target of its
//     own (an app without accessibility is otherwise read from its pixels);
//   - the action executor marks input that would land in a hidden window
//     (a point inside one, keys to a focused one), and the safety policy
//     refuses it (PlannedAction::hidden_window).
//
// A top-level window is hidden when its process (_NET_WM_PID) is an
// application the observer hides on the accessibility bus, or its WM_CLASS
// instance or class, or its process's name (/proc/PID/comm), is a name the
// observer hides — the last two cover apps without accessibility.
//
// Not thread-safe: call under the workspace lease.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/geometry.h"
#include "engine/observe.h"
#include "platform/windows.h"

namespace uiscope {

class HiddenWindows {
 public:
  // What `observer` hides, with the processes of the hidden accessible apps
  // listed once now. Hides nothing (and costs nothing) when the observer
  // hides nothing.
  static HiddenWindows Of(Observer& observer);

  bool empty() const { return observer_ == nullptr; }

  // Whether a window of process `pid` (0 = unknown) with this WM_CLASS is
  // hidden.
  bool IsHidden(int pid, const std::string& app_class, const std::string& app_instance) const;
  bool IsHidden(const WindowInfo& window) const;

  // The screen areas showing hidden windows: each hidden window's frame
  // (else bounds) less what windows above it (`stacking`, bottom to top) cover, unless
  // those are hidden too. Areas, not windows, so that an allowed window on
  // top stays visible.
  std::vector<Rect> Regions(const std::vector<WindowInfo>& windows,
                            const std::vector<uint64_t>& stacking) const;
  // The same with `windows` in stacking order (WindowSystem::ListWindows).
  std::vector<Rect> Regions(const std::vector<WindowInfo>& stacked) const {
    return Regions(stacked, StackingOf(stacked));
  }

  // `windows` without the hidden ones.
  std::vector<WindowInfo> Visible(std::vector<WindowInfo> windows) const;

  // The IDs of `windows`, in their order.
  static std::vector<uint64_t> StackingOf(const std::vector<WindowInfo>& windows);

 private:
  Observer* observer_ = nullptr;
  std::vector<int> pids_;
};

// True when input would reach a hidden window: one of `points` lies in a
// window that is hidden and topmost there (`windows` bottom to top), or
// `target_window` (the window keys go to) is hidden.
bool InputReachesHiddenWindow(const HiddenWindows& hidden, const std::vector<WindowInfo>& windows,
                              const std::vector<Point>& points,
                              const std::optional<WindowInfo>& target_window);

}  // namespace uiscope
