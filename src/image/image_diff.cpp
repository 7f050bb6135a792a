#include "image/image_diff.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

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

std::vector<Rect> ChangedAreas(const Image& before, const Image& after, int tile,
                               size_t max_areas) {
  std::vector<Rect> areas;
  if (!before.Valid() || !after.Valid() || before.width != after.width ||
      before.height != after.height || tile <= 0 || max_areas == 0) {
    return areas;
  }
  const int cols = (before.width + tile - 1) / tile;
  const int rows = (before.height + tile - 1) / tile;
  // Per tile: the tight box of its changed pixels (empty: unchanged).
  std::vector<Rect> boxes(static_cast<size_t>(cols) * rows);
  for (int y = 0; y < before.height; ++y) {
    const uint8_t* a = before.Pixel(0, y);
    const uint8_t* b = after.Pixel(0, y);
    if (std::memcmp(a, b, static_cast<size_t>(before.width) * 3) == 0) continue;
    for (int x = 0; x < before.width; ++x) {
      if (std::memcmp(a + static_cast<size_t>(x) * 3, b + static_cast<size_t>(x) * 3, 3) == 0)
        continue;
      Rect& box = boxes[static_cast<size_t>(y / tile) * cols + x / tile];
      box = Union(box, Rect{x, y, 1, 1});
    }
  }
  // Connected groups of changed tiles, by flood fill.
  std::vector<bool> seen(boxes.size(), false);
  std::vector<size_t> stack;
  for (size_t start = 0; start < boxes.size(); ++start) {
    if (seen[start] || boxes[start].Empty()) continue;
    Rect area;
    stack.push_back(start);
    seen[start] = true;
    while (!stack.empty()) {
      const size_t i = stack.back();
      stack.pop_back();
      area = Union(area, boxes[i]);
      const int cx = static_cast<int>(i % cols), cy = static_cast<int>(i / cols);
      for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
          const int nx = cx + dx, ny = cy + dy;
          if (nx < 0 || ny < 0 || nx >= cols || ny >= rows) continue;
          const size_t j = static_cast<size_t>(ny) * cols + nx;
          if (seen[j] || boxes[j].Empty()) continue;
          seen[j] = true;
          stack.push_back(j);
        }
      }
    }
    areas.push_back(area);
  }
  std::stable_sort(areas.begin(), areas.end(),
                   [](const Rect& a, const Rect& b) { return a.Area() > b.Area(); });
  if (areas.size() > max_areas) {
    Rect rest;
    for (size_t i = max_areas - 1; i < areas.size(); ++i) rest = Union(rest, areas[i]);
    areas.resize(max_areas - 1);
    areas.push_back(rest);
  }
  return areas;
}

Image CropImage(const Image& image, const Rect& area) {
  const Rect r = ClampToFrame(area, image.width, image.height);
  if (r.Empty() || !image.Valid()) return Image{};
  Image out = MakeImage(r.w, r.h);
  for (int y = 0; y < r.h; ++y) {
    std::memcpy(out.Pixel(0, y), image.Pixel(r.x, r.y + y), static_cast<size_t>(r.w) * 3);
  }
  return out;
}

}  // namespace uiscope
