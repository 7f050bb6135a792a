#include "engine/sessions.h"

namespace uiscope {
namespace {

class RegistrySessions final : public SessionControl {
 public:
  Result<DesktopInfo> Start(const DesktopOptions& options) override {
    auto desktop = HeadlessDesktop::Start(options);
    if (!desktop.ok()) return desktop.error();
    (*desktop)->Detach();
    return (*desktop)->info();
  }
  Result<std::vector<DesktopInfo>> List() override { return ListSessions(); }
  Status Stop(const std::string& id) override { return StopSession(id); }
};

}  // namespace

std::unique_ptr<SessionControl> MakeSessionControl() {
  return std::make_unique<RegistrySessions>();
}

}  // namespace uiscope
