// FakeCapture (tests only): a ScreenCapture over an in-memory screen the test
// paints on (screen()), so pixel verification is tested without X.
#pragma once

#include <functional>
#include <string_view>

#include "image/image.h"
#include "image/image_hash.h"
#include "platform/capture.h"

namespace uiscope::test {

class FakeCapture final : public ScreenCapture {
 public:
  FakeCapture(int width, int height) : screen_(MakeImage(width, height)) {}

  Image& screen() { return screen_; }
  // Paints a rectangle of the screen with one colour (an app repainting).
  void Fill(const Rect& r, uint8_t red, uint8_t green, uint8_t blue) {
    for (int y = std::max(0, r.y); y < std::min(screen_.height, r.Bottom()); ++y) {
      for (int x = std::max(0, r.x); x < std::min(screen_.width, r.Right()); ++x) {
        uint8_t* p = screen_.Pixel(x, y);
        p[0] = red;
        p[1] = green;
        p[2] = blue;
      }
    }
  }
  int captures() const { return captures_; }
  // Runs at the start of every capture, before the pixels are copied: an
  // app that repaints some time after an action.
  std::function<void(FakeCapture&)> before_capture;

  int screen_width() const override { return screen_.width; }
  int screen_height() const override { return screen_.height; }
  std::string_view method() const override { return "fake"; }
  Result<CapturedFrame> CaptureScreen() override {
    return CaptureRegion(Rect{0, 0, screen_.width, screen_.height});
  }
  Result<CapturedFrame> CaptureRegion(const Rect& region) override {
    Rect r = ClampToFrame(region, screen_.width, screen_.height);
    if (r.Empty()) return MakeError(ErrorCode::kInvalidArgument, "region outside the screen");
    if (before_capture) before_capture(*this);
    ++captures_;
    CapturedFrame f;
    f.region = r;
    f.screen_width = screen_.width;
    f.screen_height = screen_.height;
    f.image = MakeImage(r.w, r.h);
    for (int y = 0; y < r.h; ++y) {
      std::copy_n(screen_.Pixel(r.x, r.y + y), static_cast<size_t>(r.w) * 3, f.image.Pixel(0, y));
    }
    f.tiles = HashTiles(f.image);
    f.frame_hash = FrameHash(f.tiles);
    f.method = "fake";
    return f;
  }
  Result<CapturedFrame> CaptureWindow(uint64_t) override {
    return MakeError(ErrorCode::kUnsupported, "the fake screen has no windows");
  }

 private:
  Image screen_;
  int captures_ = 0;
};

}  // namespace uiscope::test
