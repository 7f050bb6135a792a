// SessionControl: starting, listing and stopping headless desktops, behind
// an interface so the MCP session tools can be fuzzed and tested without
// starting Xvfb. The real implementation is the registry of
// session/headless_desktop.h; sessions it starts are detached and outlive
// the caller, like `uiscope session start`.
#pragma once

#include <memory>
#include <vector>

#include "core/result.h"
#include "session/headless_desktop.h"

namespace uiscope {

class SessionControl {
 public:
  virtual ~SessionControl() = default;
  virtual Result<DesktopInfo> Start(const DesktopOptions& options) = 0;
  virtual Result<std::vector<DesktopInfo>> List() = 0;
  virtual Status Stop(const std::string& id) = 0;
};

std::unique_ptr<SessionControl> MakeSessionControl();

}  // namespace uiscope
