// FakeWindows (tests only): a WindowSystem over a list of windows the test
// sets up; records activations and close requests.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "platform/windows.h"

namespace uiscope::test {

class FakeWindows final : public WindowSystem {
 public:
  explicit FakeWindows(std::vector<WindowInfo> windows = {}) : windows_(std::move(windows)) {}

  std::vector<WindowInfo>& windows() { return windows_; }
  // "activate 0x..." / "close 0x..." in call order.
  const std::vector<std::string>& calls() const { return calls_; }
  // Close removes the window (an app that obeys) unless this is false.
  bool close_removes = true;
  // Close refuses with this (a VNC window whose close button is not found).
  std::string close_refusal;
  bool window_manager = true;

  bool has_window_manager() override { return window_manager; }
  Result<std::vector<WindowInfo>> ListWindows() override { return windows_; }
  Result<uint64_t> ActiveWindow() override {
    for (const WindowInfo& w : windows_) {
      if (w.focused) return w.id;
    }
    return uint64_t{0};
  }
  Status Activate(uint64_t window, std::chrono::milliseconds) override {
    calls_.push_back("activate " + std::to_string(window));
    auto it = Find(window);
    if (it == windows_.end()) return MakeError(ErrorCode::kNotFound, "no such window");
    for (WindowInfo& w : windows_) w.focused = w.id == window;
    // Raised: the top of the stacking order is the end of the list.
    WindowInfo raised = *it;
    windows_.erase(it);
    windows_.push_back(raised);
    return OkStatus();
  }
  Status Close(uint64_t window) override {
    calls_.push_back("close " + std::to_string(window));
    if (!close_refusal.empty()) return MakeError(ErrorCode::kUnsupported, close_refusal);
    auto it = Find(window);
    if (it == windows_.end()) return MakeError(ErrorCode::kNotFound, "no such window");
    if (close_removes) windows_.erase(it);
    return OkStatus();
  }

 private:
  std::vector<WindowInfo>::iterator Find(uint64_t id) {
    return std::find_if(windows_.begin(), windows_.end(),
                        [&](const WindowInfo& w) { return w.id == id; });
  }
  std::vector<WindowInfo> windows_;
  std::vector<std::string> calls_;
};

}  // namespace uiscope::test
