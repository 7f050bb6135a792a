#include "platform/vnc/vnc_desktop.h"

#include <string>
#include <utility>

#include "platform/vnc/vnc_backend.h"

namespace uiscope {
namespace {

// The screen as the one window there is (see the header).
class ScreenWindow final : public WindowSystem {
 public:
  explicit ScreenWindow(std::shared_ptr<VncConnection> connection)
      : connection_(std::move(connection)) {}

  bool has_window_manager() override { return false; }

  Result<std::vector<WindowInfo>> ListWindows() override {
    if (auto st = connection_->Usable(); !st.ok()) return st.error();
    const VncHealth health = connection_->Health();
    WindowInfo screen;
    screen.id = kVncScreenWindow;
    screen.title = health.server_name.empty() ? connection_->url() : health.server_name;
    screen.app_class = "VNC";
    screen.app_instance = "vnc";
    screen.bounds = Rect{0, 0, connection_->width(), connection_->height()};
    screen.frame = screen.bounds;
    screen.focused = true;
    return std::vector<WindowInfo>{screen};
  }

  Result<uint64_t> ActiveWindow() override { return kVncScreenWindow; }

  Status Activate(uint64_t window, std::chrono::milliseconds) override {
    if (window != kVncScreenWindow) return Unknown(window);
    return connection_->Usable();
  }

  Status Close(uint64_t window) override {
    if (window != kVncScreenWindow) return Unknown(window);
    return MakeError(ErrorCode::kUnsupported,
                     "windows are not known over VNC (" + connection_->url() +
                         "): close an app with its own close button or keys");
  }

 private:
  Error Unknown(uint64_t window) const {
    return MakeError(ErrorCode::kNotFound, "no window " + std::to_string(window) + " on " +
                                               connection_->url() +
                                               ": a VNC desktop has one window, the screen (" +
                                               std::to_string(kVncScreenWindow) + ")");
  }

  std::shared_ptr<VncConnection> connection_;
};

class VncDesktop final : public Desktop {
 public:
  explicit VncDesktop(std::shared_ptr<VncConnection> connection)
      : connection_(std::move(connection)),
        name_(connection_->url()),
        capture_(OpenVncCapture(connection_)),
        windows_(connection_) {}

  const std::string& name() const override { return name_; }
  std::string_view backend() const override { return "vnc"; }
  bool broken() const override { return connection_->Health().state == VncState::kClosed; }
  ScreenCapture& capture() override { return *capture_; }
  WindowSystem& windows() override { return windows_; }

  Result<std::unique_ptr<Input>> OpenInput() override { return OpenVncInput(connection_); }
  Result<std::unique_ptr<WindowSystem>> OpenWindows() override {
    return std::unique_ptr<WindowSystem>(std::make_unique<ScreenWindow>(connection_));
  }
  Result<std::unique_ptr<ScreenCapture>> OpenCapture(const CaptureOptions& options) override {
    return OpenVncCapture(connection_, options);
  }
  Result<std::unique_ptr<Clipboard>> OpenClipboard() override {
    return OpenVncClipboard(connection_);
  }

 private:
  std::shared_ptr<VncConnection> connection_;
  std::string name_;
  std::unique_ptr<ScreenCapture> capture_;
  ScreenWindow windows_;
};

}  // namespace

Result<std::unique_ptr<Desktop>> OpenVncDesktop(const VncAddress& address,
                                                const VncOptions& options) {
  auto connection = VncConnection::Connect(address, options);
  if (!connection.ok()) return connection.error();
  return std::unique_ptr<Desktop>(std::make_unique<VncDesktop>(std::move(connection).value()));
}

}  // namespace uiscope
