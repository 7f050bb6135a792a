#include "image/image_diff.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

namespace uiscope {

Result<PixelDiff> DiffImages(const Image& before, const Image& after, int threshold) {
  return DiffImagesWithin(before, after, Rect{0, 0, before.width, before.height}, threshold);
}

Result<PixelDiff> DiffImagesWithin(const Image& before, const Image& after, const Rect& within,
                                   int threshold) {
  if (!before.Valid() || !after.Valid()) {
    return MakeError(ErrorCode::kInvalidArgument, "pixel diff of an empty or malformed image");
  }
  if (before.width != after.width || before.height != after.height) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "pixel diff of images of different sizes (" + std::to_string(before.width) +
                         "x" + std::to_string(before.height) + " and " +
                         std::to_string(after.width) + "x" + std::to_string(after.height) + ")");
  }
  PixelDiff out;
  const Rect area = ClampToFrame(within, before.width, before.height);
  if (area.Empty()) return out;
  const size_t row_bytes = static_cast<size_t>(area.w) * 3;
  int min_x = before.width, min_y = before.height, max_x = -1, max_y = -1;
  for (int y = area.y; y < area.Bottom(); ++y) {
    const uint8_t* a = before.Pixel(area.x, y);
    const uint8_t* b = after.Pixel(area.x, y);
    if (std::memcmp(a, b, row_bytes) == 0) continue;
    for (int x = 0; x < area.w; ++x) {
      const uint8_t* pa = a + static_cast<size_t>(x) * 3;
      const uint8_t* pb = b + static_cast<size_t>(x) * 3;
      const int d =
          std::max({std::abs(pa[0] - pb[0]), std::abs(pa[1] - pb[1]), std::abs(pa[2] - pb[2])});
      if (d <= threshold) continue;
      ++out.changed_pixels;
      min_x = std::min(min_x, area.x + x);
      max_x = std::max(max_x, area.x + x);
      min_y = std::min(min_y, y);
      max_y = std::max(max_y, y);
    }
  }
  if (out.changed_pixels > 0) {
    out.bounds = Rect{min_x, min_y, max_x - min_x + 1, max_y - min_y + 1};
    out.score = static_cast<double>(out.changed_pixels) / static_cast<double>(area.Area());
  }
  return out;
}

}  // namespace uiscope
