#include "platform/vnc/vnc_desktop.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
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

  // A click on the window's title bar where nothing is drawn on it
  // (FindPlainPoint: a header bar's centre may be a control), as a user
  // raises a window, then waits until no window found lies over it and its
  // title bar has the active look (see TookActiveLook).
  Status Activate(uint64_t window, std::chrono::milliseconds timeout) override {
    auto windows = ListWindows();
    if (!windows.ok()) return windows.error();
    const WindowInfo* target = Find(*windows, window);
    if (target == nullptr) return Unknown(window, *windows);
    if (target->id == kVncScreenWindow) return OkStatus();
    const std::string title = target->title;
    auto before = Looks(*windows);
    if (!before.ok()) return before.error();
    const Point spot =
        FindPlainPoint(before->second, Band(*target)).value_or(Band(*target).Center());
    if (!input_) input_ = OpenVncInput(connection_);
    if (auto st = input_->Click(spot, MouseButton::kLeft, 1); !st.ok()) return st;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string missing = "come to the top";
    for (;;) {
      auto now = ListWindows();
      if (!now.ok()) return now.error();
      if (OnTop(*now, window)) {
        auto after = Looks(*now);
        if (!after.ok()) return after.error();
        if (TookActiveLook(before->first, after->first, window)) return OkStatus();
        missing = "take the active look (its title bar still looks as another window's)";
      }
      if (std::chrono::steady_clock::now() >= deadline) {
        return MakeError(ErrorCode::kTimeout, "window \"" + title + "\" on " + connection_->url() +
                                                  " did not " + missing + " within " +
                                                  std::to_string(timeout.count()) +
                                                  " ms of a click on its title bar");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  // A click on the close button found in the window's title bar by its
  // shape (FindCloseButton); returns once clicked, as a close request does
  // (the app may ask to save first).
  Status Close(uint64_t window) override {
    auto windows = ListWindows();
    if (!windows.ok()) return windows.error();
    const WindowInfo* target = Find(*windows, window);
    if (target == nullptr) return Unknown(window, *windows);
    if (target->id == kVncScreenWindow) {
      return MakeError(ErrorCode::kUnsupported,
                       "the screen of " + connection_->url() + " is no window to close");
    }
    auto frame = capture_->CaptureScreen();
    if (!frame.ok()) return frame.error();
    const std::optional<Rect> button = FindCloseButton(frame->image, Band(*target));
    if (!button) {
      return MakeError(ErrorCode::kUnsupported,
                       "no close button (an X-shaped glyph at an end of the title bar) found for "
                       "window \"" +
                           target->title + "\" on " + connection_->url() +
                           ": close it with its own keys or menu");
    }
    if (!input_) input_ = OpenVncInput(connection_);
    return input_->Click(button->Center(), MouseButton::kLeft, 1);
  }

 private:
  // The look of every window found (not the screen), by ID, and the frame
  // it was taken from, from a capture of its own (the listing's capture
  // keeps its damage).
  Result<std::pair<std::map<uint64_t, BarLook>, Image>> Looks(
      const std::vector<WindowInfo>& windows) {
    if (!look_capture_) look_capture_ = OpenVncCapture(connection_, WithoutHashes());
    auto frame = look_capture_->CaptureScreen();
    if (!frame.ok()) return frame.error();
    std::map<uint64_t, BarLook> looks;
    for (const WindowInfo& w : windows) {
      if (w.id == kVncScreenWindow) continue;
      if (auto look = LookOfBar(frame->image, Band(w))) looks[w.id] = *look;
    }
    return std::pair{std::move(looks), std::move(frame->image)};
  }

  // The title bar of a window found from one: above its client area.
  static Rect Band(const WindowInfo& w) {
    return Rect{w.frame.x, w.frame.y, w.frame.w, w.bounds.y - w.frame.y};
  }

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
  std::unique_ptr<ScreenCapture> look_capture_;  // for Looks, on first need
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
