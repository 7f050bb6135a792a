#include "platform/vnc/vnc_desktop.h"

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "platform/vnc/vnc_backend.h"

namespace uiscope {
namespace {

// Finding title bars needs the pixels alone.
CaptureOptions WithoutHashes() {
  CaptureOptions options;
  options.hashes = false;
  return options;
}

// The screen as the bottom window, and the windows found from their title
// bars over it (see the header).
class VncWindows final : public WindowSystem {
 public:
  VncWindows(std::shared_ptr<VncConnection> connection, TitleReader read_title)
      : connection_(std::move(connection)),
        capture_(OpenVncCapture(connection_, WithoutHashes())),
        found_(std::move(read_title)) {}

  bool has_window_manager() override { return false; }

  Result<std::vector<WindowInfo>> ListWindows() override {
    if (auto st = connection_->Usable(); !st.ok()) return st.error();
    auto frame = capture_->CaptureScreen();
    if (!frame.ok()) return frame.error();
    // Nothing drawn since the last listing (no update rectangle): the same
    // windows, without looking for them again.
    if (!listed_ || !frame->damage || !frame->damage->empty()) {
      listed_ = found_.List(frame->image);
    }
    const VncHealth health = connection_->Health();
    WindowInfo screen;
    screen.id = kVncScreenWindow;
    screen.title = health.server_name.empty() ? connection_->url() : health.server_name;
    screen.app_class = "VNC";
    screen.app_instance = "vnc";
    screen.bounds = Rect{0, 0, connection_->width(), connection_->height()};
    screen.frame = screen.bounds;
    screen.focused = listed_->empty();
    std::vector<WindowInfo> windows{screen};
    windows.insert(windows.end(), listed_->begin(), listed_->end());
    return windows;
  }

  // The pixels do not say which window has the focus: none when windows
  // were found, else the screen.
  Result<uint64_t> ActiveWindow() override {
    auto windows = ListWindows();
    if (!windows.ok()) return windows.error();
    return windows->size() == 1 ? kVncScreenWindow : 0;
  }

  // A click on the window's title bar, as a user raises a window, then
  // waits until no window found lies over it.
  Status Activate(uint64_t window, std::chrono::milliseconds timeout) override {
    auto windows = ListWindows();
    if (!windows.ok()) return windows.error();
    const WindowInfo* target = Find(*windows, window);
    if (target == nullptr) return Unknown(window, *windows);
    if (target->id == kVncScreenWindow) return OkStatus();
    const Rect band{target->frame.x, target->frame.y, target->frame.w,
                    target->bounds.y - target->frame.y};
    if (!input_) input_ = OpenVncInput(connection_);
    if (auto st = input_->Click(band.Center(), MouseButton::kLeft, 1); !st.ok()) return st;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      auto now = ListWindows();
      if (!now.ok()) return now.error();
      if (OnTop(*now, window)) return OkStatus();
      if (std::chrono::steady_clock::now() >= deadline) {
        return MakeError(ErrorCode::kTimeout,
                         "window \"" + target->title + "\" on " + connection_->url() +
                             " did not come to the top within " + std::to_string(timeout.count()) +
                             " ms of a click on its title bar");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  Status Close(uint64_t window) override {
    auto windows = ListWindows();
    if (!windows.ok()) return windows.error();
    if (Find(*windows, window) == nullptr) return Unknown(window, *windows);
    return MakeError(ErrorCode::kUnsupported,
                     "windows over VNC (" + connection_->url() +
                         ") are seen in pixels only: close one with its own close button (by ID "
                         "from observe) or its keys");
  }

 private:
  static const WindowInfo* Find(const std::vector<WindowInfo>& windows, uint64_t id) {
    for (const WindowInfo& w : windows) {
      if (w.id == id) return &w;
    }
    return nullptr;
  }

  // Whether no window listed after `id` (above it) overlaps it.
  static bool OnTop(const std::vector<WindowInfo>& windows, uint64_t id) {
    for (size_t i = 0; i < windows.size(); ++i) {
      if (windows[i].id != id) continue;
      for (size_t j = i + 1; j < windows.size(); ++j) {
        if (!Intersect(windows[j].Covers(), windows[i].Covers()).Empty()) return false;
      }
      return true;
    }
    return false;
  }

  Error Unknown(uint64_t window, const std::vector<WindowInfo>& windows) const {
    std::string known;
    for (const WindowInfo& w : windows) {
      known += (known.empty() ? "" : ", ") + std::to_string(w.id) + " \"" + w.title + "\"";
    }
    return MakeError(ErrorCode::kNotFound, "no window " + std::to_string(window) + " on " +
                                               connection_->url() + " (its windows now: " + known +
                                               ")");
  }

  std::shared_ptr<VncConnection> connection_;
  std::unique_ptr<ScreenCapture> capture_;
  TitleBarWindows found_;
  std::optional<std::vector<WindowInfo>> listed_;  // by the last listing
  std::unique_ptr<Input> input_;
};

class VncDesktop final : public Desktop {
 public:
  VncDesktop(std::shared_ptr<VncConnection> connection, TitleReader read_title)
      : connection_(std::move(connection)),
        read_title_(std::move(read_title)),
        name_(connection_->url()),
        capture_(OpenVncCapture(connection_)),
        windows_(connection_, read_title_) {}

  const std::string& name() const override { return name_; }
  std::string_view backend() const override { return "vnc"; }
  bool broken() const override { return connection_->Health().state == VncState::kClosed; }
  ScreenCapture& capture() override { return *capture_; }
  WindowSystem& windows() override { return windows_; }

  Result<std::unique_ptr<Input>> OpenInput() override { return OpenVncInput(connection_); }
  Result<std::unique_ptr<WindowSystem>> OpenWindows() override {
    return std::unique_ptr<WindowSystem>(std::make_unique<VncWindows>(connection_, read_title_));
  }
  Result<std::unique_ptr<ScreenCapture>> OpenCapture(const CaptureOptions& options) override {
    return OpenVncCapture(connection_, options);
  }
  Result<std::unique_ptr<Clipboard>> OpenClipboard() override {
    return OpenVncClipboard(connection_);
  }

 private:
  std::shared_ptr<VncConnection> connection_;
  TitleReader read_title_;
  std::string name_;
  std::unique_ptr<ScreenCapture> capture_;
  VncWindows windows_;
};

}  // namespace

Result<std::unique_ptr<Desktop>> OpenVncDesktop(const VncAddress& address,
                                                const VncOptions& options, TitleReader read_title) {
  auto connection = VncConnection::Connect(address, options);
  if (!connection.ok()) return connection.error();
  return std::unique_ptr<Desktop>(
      std::make_unique<VncDesktop>(std::move(connection).value(), std::move(read_title)));
}

}  // namespace uiscope
