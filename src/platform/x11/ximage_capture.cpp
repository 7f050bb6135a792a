#include "platform/x11/ximage_capture.h"

#include <X11/Xlib.h>
#include <X11/Xutil.h>

#include <bit>
#include <memory>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// Xlib #defines Status as int; below, Status is uiscope::Status.
#undef Status

namespace uiscope::x11 {
namespace {

struct XImageDeleter {
  void operator()(XImage* image) const { XDestroyImage(image); }
};

// Byte order B, G, R, X (little-endian 0x00RRGGBB) to R, G, B.
void BgrxRowToRgbScalar(const uint8_t* in, uint8_t* out, int n) {
  for (int i = 0; i < n; ++i, in += 4, out += 3) {
    out[0] = in[2];
    out[1] = in[1];
    out[2] = in[0];
  }
}

#if defined(__x86_64__)
// Four pixels per shuffle. Each 16-byte store writes 4 bytes beyond the 12
// it owns; the loop stops while at least two pixels of the row remain, so
// those bytes are always rewritten by the next store or the scalar tail and
// never land past the row.
__attribute__((target("ssse3"))) void BgrxRowToRgbSsse3(const uint8_t* in, uint8_t* out, int n) {
  const __m128i shuffle = _mm_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
  int i = 0;
  for (; i + 6 <= n; i += 4, in += 16, out += 12) {
    __m128i px = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_shuffle_epi8(px, shuffle));
  }
  BgrxRowToRgbScalar(in, out, n - i);
}
#endif

using RowConverter = void (*)(const uint8_t*, uint8_t*, int);

RowConverter BgrxConverter() {
#if defined(__x86_64__)
  static const RowConverter converter =
      __builtin_cpu_supports("ssse3") ? BgrxRowToRgbSsse3 : BgrxRowToRgbScalar;
  return converter;
#else
  return BgrxRowToRgbScalar;
#endif
}

// A channel mask as shift + scale to 8 bits.
struct Channel {
  int shift = 0;
  uint32_t max = 0;  // mask >> shift
  uint8_t Of(uint32_t px, uint32_t mask) const {
    uint32_t v = (px & mask) >> shift;
    return static_cast<uint8_t>(max == 255 ? v : (v * 255 + max / 2) / max);
  }
};

Channel ChannelOf(unsigned long mask) {
  Channel c;
  if (mask == 0) return c;
  c.shift = std::countr_zero(mask);
  c.max = static_cast<uint32_t>(mask >> c.shift);
  return c;
}

}  // namespace

Status XImageToRgb(const _XImage& ximage_ref, Image* out) {
  const XImage& xi = ximage_ref;
  const int bpp = xi.bits_per_pixel;
  if (xi.format != ZPixmap || (bpp != 16 && bpp != 24 && bpp != 32) || xi.byte_order != LSBFirst ||
      xi.red_mask == 0 || xi.green_mask == 0 || xi.blue_mask == 0) {
    return MakeError(ErrorCode::kUnsupported,
                     "unsupported X visual: " + std::to_string(bpp) +
                         " bits per pixel, byte order " +
                         (xi.byte_order == LSBFirst ? "LSB" : "MSB") +
                         " first (capture needs a 16/24/32-bit TrueColor LSB-first screen)");
  }
  const int w = xi.width, h = xi.height;
  if (out->width != w || out->height != h) {
    out->width = w;
    out->height = h;
    out->rgb.resize(static_cast<size_t>(w) * h * 3);
  }
  const auto* base = reinterpret_cast<const uint8_t*>(xi.data);
  uint8_t* dst = out->rgb.data();
  const size_t dst_stride = static_cast<size_t>(w) * 3;

  if (bpp == 32 && xi.red_mask == 0xff0000 && xi.green_mask == 0xff00 && xi.blue_mask == 0xff) {
    const RowConverter convert = BgrxConverter();
    for (int y = 0; y < h; ++y) {
      convert(base + static_cast<size_t>(y) * xi.bytes_per_line, dst + y * dst_stride, w);
    }
    return OkStatus();
  }
  const Channel r = ChannelOf(xi.red_mask), g = ChannelOf(xi.green_mask),
                b = ChannelOf(xi.blue_mask);
  const int bytes = bpp / 8;
  for (int y = 0; y < h; ++y) {
    const uint8_t* row = base + static_cast<size_t>(y) * xi.bytes_per_line;
    uint8_t* o = dst + y * dst_stride;
    for (int x = 0; x < w; ++x, row += bytes, o += 3) {
      uint32_t px = row[0] | (row[1] << 8);
      if (bytes >= 3) px |= static_cast<uint32_t>(row[2]) << 16;
      if (bytes == 4) px |= static_cast<uint32_t>(row[3]) << 24;
      o[0] = r.Of(px, static_cast<uint32_t>(xi.red_mask));
      o[1] = g.Of(px, static_cast<uint32_t>(xi.green_mask));
      o[2] = b.Of(px, static_cast<uint32_t>(xi.blue_mask));
    }
  }
  return OkStatus();
}

Result<Image> CaptureRegion(const X11Display& display, const Rect& region) {
  Rect r = ClampToFrame(region, display.width(), display.height());
  if (r.Empty()) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        "the capture region " + std::to_string(region.x) + "," + std::to_string(region.y) + "," +
            std::to_string(region.w) + "," + std::to_string(region.h) + " lies outside the " +
            std::to_string(display.width()) + "x" + std::to_string(display.height()) + " screen");
  }
  Display* d = display.raw();
  std::unique_ptr<XImage, XImageDeleter> ximage(
      XGetImage(d, DefaultRootWindow(d), r.x, r.y, r.w, r.h, AllPlanes, ZPixmap));
  if (!ximage) return MakeError(ErrorCode::kInternal, "XGetImage failed on " + display.name());
  Image image;
  if (auto st = XImageToRgb(*ximage, &image); !st.ok()) return st.error();
  return image;
}

}  // namespace uiscope::x11
