#include "platform/x11/ximage_capture.h"

#include <X11/Xlib.h>
#include <X11/Xutil.h>

#include <memory>

namespace uiscope::x11 {
namespace {

struct XImageDeleter {
  void operator()(XImage* image) const { XDestroyImage(image); }
};

int ShiftOf(unsigned long mask) {
  int shift = 0;
  while (mask != 0 && (mask & 1) == 0) {
    mask >>= 1;
    ++shift;
  }
  return shift;
}

}  // namespace

Result<Image> CaptureRegion(const X11Display& display, const Rect& region) {
  Rect r = ClampToFrame(region, display.width(), display.height());
  if (r.Empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "the capture region lies outside the screen");
  }
  Display* d = display.raw();
  std::unique_ptr<XImage, XImageDeleter> ximage(
      XGetImage(d, DefaultRootWindow(d), r.x, r.y, r.w, r.h, AllPlanes, ZPixmap));
  if (!ximage) return MakeError(ErrorCode::kInternal, "XGetImage failed on " + display.name());
  if (ximage->bits_per_pixel != 32 && ximage->bits_per_pixel != 24) {
    return MakeError(ErrorCode::kUnsupported,
                     "unsupported X visual: " + std::to_string(ximage->bits_per_pixel) + " bpp");
  }
  Image image;
  image.width = r.w;
  image.height = r.h;
  image.rgb.resize(static_cast<size_t>(r.w) * r.h * 3);
  int rs = ShiftOf(ximage->red_mask), gs = ShiftOf(ximage->green_mask),
      bs = ShiftOf(ximage->blue_mask);
  int bpp = ximage->bits_per_pixel / 8;
  uint8_t* out = image.rgb.data();
  for (int y = 0; y < r.h; ++y) {
    const auto* row = reinterpret_cast<const uint8_t*>(ximage->data) +
                      static_cast<size_t>(y) * ximage->bytes_per_line;
    for (int x = 0; x < r.w; ++x) {
      uint32_t px = row[x * bpp] | (row[x * bpp + 1] << 8) | (row[x * bpp + 2] << 16);
      if (bpp == 4) px |= static_cast<uint32_t>(row[x * bpp + 3]) << 24;
      *out++ = static_cast<uint8_t>((px & ximage->red_mask) >> rs);
      *out++ = static_cast<uint8_t>((px & ximage->green_mask) >> gs);
      *out++ = static_cast<uint8_t>((px & ximage->blue_mask) >> bs);
    }
  }
  return image;
}

}  // namespace uiscope::x11
