#include "platform/vnc/vnc_backend.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "platform/vnc/vnc_events.h"

namespace uiscope {
namespace {

std::string RectText(const Rect& r) {
  return std::to_string(r.w) + "x" + std::to_string(r.h) + "+" + std::to_string(r.x) + "+" +
         std::to_string(r.y);
}

class VncCapture final : public ScreenCapture {
 public:
  VncCapture(std::shared_ptr<VncConnection> connection, const CaptureOptions& options)
      : connection_(std::move(connection)), options_(options) {}

  int screen_width() const override { return connection_->width(); }
  int screen_height() const override { return connection_->height(); }
  std::string_view method() const override { return "vnc"; }

  Result<CapturedFrame> CaptureScreen() override {
    if (Status fresh = connection_->WaitFresh(); !fresh.ok()) return fresh.error();
    return Grab(Rect{0, 0, connection_->width(), connection_->height()});
  }

  Result<CapturedFrame> CaptureRegion(const Rect& region) override {
    if (region.Empty()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "the capture region " + RectText(region) + " is empty: w and h must be > 0");
    }
    if (Status fresh = connection_->WaitFresh(); !fresh.ok()) return fresh.error();
    const int w = connection_->width();
    const int h = connection_->height();
    const Rect r = Intersect(region, Rect{0, 0, w, h});
    if (r.Empty()) {
      return MakeError(ErrorCode::kInvalidArgument, "the capture region " + RectText(region) +
                                                        " lies outside the " + std::to_string(w) +
                                                        "x" + std::to_string(h) + " screen of " +
                                                        connection_->url());
    }
    return Grab(r);
  }

  Result<CapturedFrame> CaptureWindow(uint64_t window_id) override {
    return MakeError(ErrorCode::kUnsupported,
                     "windows are not known over VNC (" + connection_->url() + "): no window " +
                         std::to_string(window_id) + "; capture the screen or a region instead");
  }

 private:
  Result<CapturedFrame> Grab(const Rect& r) {
    CapturedFrame frame;
    auto image = connection_->Copy(r, &frame.damage, &damage_);
    if (!image.ok()) return image.error();
    frame.image = std::move(*image);
    frame.region = Rect{r.x, r.y, frame.image.width, frame.image.height};
    frame.screen_width = connection_->width();
    frame.screen_height = connection_->height();
    frame.method = method();
    if (options_.hashes) {
      frame.tiles = HashTiles(frame.image, options_.tile_size);
      frame.frame_hash = FrameHash(frame.tiles);
    }
    return frame;
  }

  std::shared_ptr<VncConnection> connection_;
  CaptureOptions options_;
  VncConnection::DamageCursor damage_;  // this capture's own
};

class VncInput final : public Input {
 public:
  explicit VncInput(std::shared_ptr<VncConnection> connection)
      : connection_(std::move(connection)) {}
  ~VncInput() override {
    if (buttons_ != 0 && position_) (void)connection_->SendPointer(*position_, 0);
  }

  std::string_view kind() const override { return "vnc"; }

  Status MovePointer(Point to) override {
    position_ = to;
    connection_->NoteInput();
    return connection_->SendPointer(to, buttons_);
  }

  Result<Point> PointerPosition() override {
    if (!position_) {
      if (auto reported = connection_->ServerPointer()) return *reported;
      return MakeError(ErrorCode::kUnavailable,
                       "the pointer position on " + connection_->url() +
                           " is not known until uiscope moves it (this server does not "
                           "report it)");
    }
    return *position_;
  }

  Status PressButton(MouseButton button) override {
    if (Status st = NeedPosition(); !st.ok()) return st;
    buttons_ |= VncButtonBit(button);
    connection_->NoteInput();
    return connection_->SendPointer(*position_, buttons_);
  }

  Status ReleaseButton(MouseButton button) override {
    if (Status st = NeedPosition(); !st.ok()) return st;
    buttons_ &= static_cast<uint8_t>(~VncButtonBit(button));
    connection_->NoteInput();
    return connection_->SendPointer(*position_, buttons_);
  }

  Status Click(Point at, MouseButton button, int count) override {
    if (count < 1) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "a click count must be at least 1, not " + std::to_string(count));
    }
    if (Status st = MovePointer(at); !st.ok()) return st;
    for (int i = 0; i < count; ++i) {
      Status pressed = PressButton(button);
      Status released = ReleaseButton(button);
      if (!pressed.ok()) return pressed;
      if (!released.ok()) return released;
    }
    return OkStatus();
  }

  Status Scroll(Point at, int dx, int dy) override {
    if (Status st = MovePointer(at); !st.ok()) return st;
    auto steps = [&](int n, bool vertical) -> Status {
      for (int i = 0; i < std::abs(n); ++i) {
        const uint8_t bit = vertical ? VncWheelBit(0, n) : VncWheelBit(n, 0);
        if (Status st = connection_->SendPointer(at, buttons_ | bit); !st.ok()) return st;
        if (Status st = connection_->SendPointer(at, buttons_); !st.ok()) return st;
      }
      return OkStatus();
    };
    connection_->NoteInput();
    if (Status st = steps(dy, true); !st.ok()) return st;
    return steps(dx, false);
  }

  Status Drag(Point from, Point to, MouseButton button) override {
    if (Status st = MovePointer(from); !st.ok()) return st;
    if (Status st = PressButton(button); !st.ok()) {
      (void)ReleaseButton(button);
      return st;
    }
    const double distance = std::hypot(to.x - from.x, to.y - from.y);
    const int steps = std::clamp(static_cast<int>(distance / 10), 8, 50);
    Status moved = OkStatus();
    for (int i = 1; i <= steps && moved.ok(); ++i) {
      const Point p{from.x + (to.x - from.x) * i / steps, from.y + (to.y - from.y) * i / steps};
      moved = MovePointer(p);
    }
    Status released = ReleaseButton(button);
    if (!moved.ok()) return moved;
    return released;
  }

  Status PressChord(const KeyChord& chord) override {
    connection_->NoteInput();
    return SendKeys(VncChordEvents(chord));
  }

  Status TypeText(std::string_view utf8, const TypeOptions& /*options*/) override {
    auto events = VncTextEvents(utf8);
    if (!events.ok()) return events.error();
    connection_->NoteInput();
    return SendKeys(*events);
  }

 private:
  Status NeedPosition() {
    if (position_) return OkStatus();
    return MakeError(ErrorCode::kUnavailable, "move the pointer on " + connection_->url() +
                                                  " before pressing a button: its position is "
                                                  "not known over VNC");
  }

  // Sends `events` in order; on a failure, releases every key still down.
  Status SendKeys(const std::vector<VncKeyEvent>& events) {
    std::vector<Keysym> down;
    for (const VncKeyEvent& e : events) {
      Status st = connection_->SendKey(e.keysym, e.down);
      if (!st.ok()) {
        for (auto it = down.rbegin(); it != down.rend(); ++it)
          (void)connection_->SendKey(*it, false);
        return st;
      }
      if (e.down) {
        down.push_back(e.keysym);
      } else if (auto it = std::find(down.begin(), down.end(), e.keysym); it != down.end()) {
        down.erase(it);
      }
    }
    return OkStatus();
  }

  std::shared_ptr<VncConnection> connection_;
  std::optional<Point> position_;
  uint8_t buttons_ = 0;
};

class VncClipboard final : public Clipboard {
 public:
  explicit VncClipboard(std::shared_ptr<VncConnection> connection)
      : connection_(std::move(connection)) {}

  Result<ClipboardOwner> Owner(Selection selection) override {
    if (Status st = connection_->Usable(); !st.ok()) return st.error();
    if (!connection_->ServerCutText(nullptr)) return Nothing(selection);
    return ClipboardOwner{};  // RFB names no window and no process
  }

  Result<std::vector<std::string>> Targets(Selection selection,
                                           std::chrono::milliseconds /*timeout*/) override {
    if (Status st = connection_->Usable(); !st.ok()) return st.error();
    if (!connection_->ServerCutText(nullptr)) return Nothing(selection);
    return std::vector<std::string>{std::string(kTextMime)};
  }

  Result<ClipboardData> Get(Selection selection, std::string_view mime,
                            std::chrono::milliseconds /*timeout*/, size_t max_bytes) override {
    if (Status st = connection_->Usable(); !st.ok()) return st.error();
    if (!IsTextMime(mime)) {
      return MakeError(ErrorCode::kUnsupported, "VNC cut text carries text only (" +
                                                    std::string(kTextMime) + "), not " +
                                                    std::string(mime));
    }
    auto text = connection_->ServerCutText(nullptr);
    if (!text) return Nothing(selection);
    ClipboardData data;
    data.bytes = Latin1ToUtf8(*text);
    if (data.bytes.size() > max_bytes) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "the VNC cut text is " + std::to_string(data.bytes.size()) +
                           " bytes, more than the " + std::to_string(max_bytes) + " asked for");
    }
    return data;
  }

  Status Own(Selection /*selection*/, ClipboardData data) override {
    if (!IsTextMime(data.mime)) {
      return MakeError(ErrorCode::kUnsupported, "VNC cut text carries text only, not " + data.mime);
    }
    auto latin1 = Utf8ToLatin1(data.bytes);
    if (!latin1.ok()) return latin1.error();
    connection_->ServerCutText(&owned_serial_);
    if (Status st = connection_->SendCutText(*latin1); !st.ok()) return st;
    owned_ = true;
    owned_text_ = std::move(*latin1);
    return OkStatus();
  }

  Result<ServeEnd> Serve(std::chrono::steady_clock::time_point until) override {
    if (!owned_) {
      return MakeError(ErrorCode::kUnavailable, "nothing to serve: Own() the clipboard first");
    }
    // The server holds the text for its apps; what ends it is new cut text
    // from the server (someone copied) other than an echo of ours.
    for (;;) {
      const bool got = connection_->WaitForCutText(owned_serial_, until);
      if (!connection_->Usable().ok()) return ServeEnd::kDisplayGone;
      if (!got) return ServeEnd::kExpired;
      auto text = connection_->ServerCutText(&owned_serial_);
      if (text && *text != owned_text_) {
        owned_ = false;
        return ServeEnd::kLost;
      }
    }
  }

 private:
  Error Nothing(Selection selection) const {
    return MakeError(ErrorCode::kNotFound,
                     "the VNC server at " + connection_->url() + " has sent no " +
                         std::string(SelectionName(selection)) +
                         " text since uiscope connected (servers send it when it changes)");
  }

  std::shared_ptr<VncConnection> connection_;
  bool owned_ = false;
  uint64_t owned_serial_ = 0;
  std::string owned_text_;
};

}  // namespace

std::unique_ptr<ScreenCapture> OpenVncCapture(std::shared_ptr<VncConnection> connection,
                                              const CaptureOptions& options) {
  return std::make_unique<VncCapture>(std::move(connection), options);
}

std::unique_ptr<Input> OpenVncInput(std::shared_ptr<VncConnection> connection) {
  return std::make_unique<VncInput>(std::move(connection));
}

std::unique_ptr<Clipboard> OpenVncClipboard(std::shared_ptr<VncConnection> connection) {
  return std::make_unique<VncClipboard>(std::move(connection));
}

}  // namespace uiscope
