// SessionControl: starting, listing and stopping headless desktops, behind
// an interface so the MCP session tools can be fuzzed and tested without
// starting Xvfb. The real implementation is the registry of
// session/headless_desktop.h; sessions it starts are detached and outlive
// the caller, like `uiscope session start`.
#pragma once

#include <memory>
#include <string>
#include <string_view>
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

// `uiscope session attach`: the VNC desktop at `address` (vnc://HOST[:PORT],
// HOST:N for display N, HOST::PORT) as a session of its own. Connects once,
// so that nothing listening, a refused password or a missing password file
// is said now, and records the session with its screen size
// (RegisterRemoteSession). `password_file` ("" = none) is kept as an
// absolute path; the password itself is never stored or logged. The same
// address attached already and alive is that session again.
Result<DesktopInfo> AttachVncSession(std::string_view address, const std::string& password_file);

}  // namespace uiscope
