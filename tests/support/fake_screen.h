// WorkspaceShowing (tests only): a fake desktop whose in-memory screen
// (FakeCapture) shows `image` inside one listed window (FakeWindows) that no
// accessibility tree holds, so OCR and vision read pixels without X.
#pragma once

#include <algorithm>
#include <memory>
#include <vector>

#include "engine/workspace.h"
#include "support/fake_accessibility.h"
#include "support/fake_capture.h"
#include "support/fake_windows.h"

namespace uiscope::test {

// `image` is painted at `window.bounds` (its size) on a dark `width` x
// `height` screen.
inline std::unique_ptr<Workspace> WorkspaceShowing(const Image& image, const WindowInfo& window,
                                                   int width = 1280, int height = 800) {
  auto capture = std::make_unique<FakeCapture>(width, height);
  capture->Fill(Rect{0, 0, width, height}, 40, 40, 40);
  const Rect at = window.bounds;
  for (int y = 0; y < std::min(image.height, at.h); ++y) {
    std::copy_n(image.Pixel(0, y), static_cast<size_t>(std::min(image.width, at.w)) * 3,
                capture->screen().Pixel(at.x, at.y + y));
  }
  FakeDesktopParts parts;
  parts.accessibility = std::make_unique<FakeAccessibility>(std::vector<Node>{});
  parts.frame = Frame{width, height, 1.0};
  parts.windows = std::make_unique<FakeWindows>(std::vector<WindowInfo>{window});
  parts.capture = std::move(capture);
  return std::make_unique<Workspace>(std::move(parts));
}

}  // namespace uiscope::test
