#include "engine/sessions.h"

#include <filesystem>

#include "platform/vnc/vnc_address.h"
#include "platform/vnc/vnc_connection.h"

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

Result<DesktopInfo> AttachVncSession(std::string_view address, const std::string& password_file) {
  auto parsed = ParseVncAddress(address);
  if (!parsed.ok()) return parsed.error();
  VncOptions options;
  if (!password_file.empty()) {
    std::error_code error;
    options.password_file = std::filesystem::absolute(password_file, error).string();
    if (error) options.password_file = password_file;
  }
  const std::string url = parsed->Url();
  if (auto sessions = ListSessions(); sessions.ok()) {
    for (const DesktopInfo& s : *sessions) {
      if (s.backend == "vnc" && s.url == url && s.alive) return s;
    }
  }
  auto connection = VncConnection::Connect(*parsed, options);
  if (!connection.ok()) return connection.error();
  DesktopInfo info;
  info.backend = "vnc";
  info.url = url;
  info.password_file = options.password_file;
  info.width = (*connection)->width();
  info.height = (*connection)->height();
  if (auto st = RegisterRemoteSession(&info); !st.ok()) return st.error();
  return info;
}

}  // namespace uiscope
