#include "ocr/gray_image.h"

#include <algorithm>
#include <cstring>

namespace uiscope::ocr {

GrayImage ToGray(const Image& image, std::span<const Rect> masks) {
  GrayImage gray;
  gray.width = image.width;
  gray.height = image.height;
  gray.pixels.resize(static_cast<size_t>(image.width) * image.height);
  std::vector<Rect> clipped;
  for (const Rect& m : masks) {
    Rect c = ClampToFrame(m, image.width, image.height);
    if (!c.Empty()) clipped.push_back(c);
  }
  for (int y = 0; y < image.height; ++y) {
    uint8_t* out = gray.Row(y);
    // Masked spans of this row are filled first and skipped below, so their
    // RGB bytes are never read.
    std::vector<std::pair<int, int>> spans;
    for (const Rect& m : clipped) {
      if (y >= m.y && y < m.Bottom()) spans.emplace_back(m.x, m.Right());
    }
    std::sort(spans.begin(), spans.end());
    int x = 0;
    auto convert = [&](int from, int to) {
      const uint8_t* p = image.rgb.data() + (static_cast<size_t>(y) * image.width + from) * 3;
      for (int i = from; i < to; ++i, p += 3) {
        out[i] = static_cast<uint8_t>((p[0] * 77 + p[1] * 150 + p[2] * 29) >> 8);
      }
    };
    for (const auto& [from, to] : spans) {
      if (from > x) convert(x, from);
      if (to > x) {
        std::memset(out + std::max(x, from), kMaskFill,
                    static_cast<size_t>(to - std::max(x, from)));
        x = to;
      }
    }
    if (x < image.width) convert(x, image.width);
  }
  return gray;
}

GrayImage Crop(const GrayImage& image, const Rect& rect) {
  Rect r = ClampToFrame(rect, image.width, image.height);
  GrayImage out;
  if (r.Empty()) return out;
  out.width = r.w;
  out.height = r.h;
  out.pixels.resize(static_cast<size_t>(r.w) * r.h);
  for (int y = 0; y < r.h; ++y) {
    std::memcpy(out.Row(y), image.Row(r.y + y) + r.x, static_cast<size_t>(r.w));
  }
  return out;
}

}  // namespace uiscope::ocr
