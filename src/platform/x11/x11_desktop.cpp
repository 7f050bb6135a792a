// The X11 Desktop (platform/desktop.h): one X connection kept for the
// screen capture (XShm, XGetImage as its fallback) and the server's health,
// another for the windows observing reads; acting opens its own.
#include <utility>

#include "platform/desktop.h"
#include "platform/x11/x11_display.h"
#include "platform/x11/xshm_capture.h"

namespace uiscope {
namespace {

class X11Desktop final : public Desktop {
 public:
  X11Desktop(std::unique_ptr<x11::X11Display> display, std::unique_ptr<WindowSystem> windows)
      : display_(std::move(display)), windows_(std::move(windows)) {
    // Observing reads pixels only: no damage tracking, no tile hashes.
    CaptureOptions options;
    options.use_damage = false;
    options.hashes = false;
    capture_ = x11::XShmCapture::Create(*display_, options);
  }

  const std::string& name() const override { return display_->name(); }
  std::string_view backend() const override { return "x11"; }
  bool broken() const override { return display_->broken(); }
  ScreenCapture& capture() override { return *capture_; }
  WindowSystem& windows() override { return *windows_; }

  Result<std::unique_ptr<Input>> OpenInput() override { return OpenXTestInput(name()); }
  Result<std::unique_ptr<WindowSystem>> OpenWindows() override { return OpenX11Windows(name()); }
  Result<std::unique_ptr<ScreenCapture>> OpenCapture(const CaptureOptions& options) override {
    return OpenScreenCapture(name(), options);
  }
  Result<std::unique_ptr<Clipboard>> OpenClipboard() override { return OpenX11Clipboard(name()); }

 private:
  std::unique_ptr<x11::X11Display> display_;
  std::unique_ptr<WindowSystem> windows_;
  std::unique_ptr<ScreenCapture> capture_;  // on display_: destroyed before it
};

}  // namespace

Result<std::unique_ptr<Desktop>> OpenX11Desktop(const std::string& display) {
  auto connection = x11::X11Display::Open(display);
  if (!connection.ok()) return connection.error();
  auto windows = OpenX11Windows((*connection)->name());
  if (!windows.ok()) return windows.error();
  return std::unique_ptr<Desktop>(
      new X11Desktop(std::move(connection).value(), std::move(windows).value()));
}

}  // namespace uiscope
