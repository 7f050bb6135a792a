// Factory of the window backend, so the engine never includes backend headers.
#include "platform/windows.h"

#include "platform/x11/x11_windows.h"

namespace uiscope {

Status WindowSystem::KillClient(uint64_t window) {
  return MakeError(ErrorCode::kUnsupported,
                   "this window system cannot end the client of window " + std::to_string(window));
}

Result<std::unique_ptr<WindowSystem>> OpenX11Windows(const std::string& display) {
  auto windows = x11::X11Windows::Open(display);
  if (!windows.ok()) return windows.error();
  return std::unique_ptr<WindowSystem>(std::move(windows).value());
}

}  // namespace uiscope
