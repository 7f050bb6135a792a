#include "image/perceptual_hash.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <vector>

namespace uiscope {
namespace {

// Summed-area table of grey levels over `area` (image pixels), so that any
// cell's mean costs four reads.
class Integral {
 public:
  Integral(const Image& image, const Rect& area) : area_(area), stride_(area.w + 1) {
    sums_.assign(static_cast<size_t>(area.w + 1) * (area.h + 1), 0);
    for (int y = 0; y < area.h; ++y) {
      uint64_t row = 0;
      for (int x = 0; x < area.w; ++x) {
        const uint8_t* p = image.Pixel(area.x + x, area.y + y);
        row += (uint32_t{p[0]} * 77 + uint32_t{p[1]} * 150 + uint32_t{p[2]} * 29) >> 8;
        sums_[static_cast<size_t>(y + 1) * stride_ + x + 1] =
            sums_[static_cast<size_t>(y) * stride_ + x + 1] + row;
      }
    }
  }
  // Mean grey of [x0, x1) x [y0, y1) in image pixels (inside the area).
  uint64_t Mean(int x0, int y0, int x1, int y1) const {
    x0 -= area_.x, x1 -= area_.x, y0 -= area_.y, y1 -= area_.y;
    if (x1 <= x0) x1 = x0 + 1;
    if (y1 <= y0) y1 = y0 + 1;
    const uint64_t s = At(x1, y1) - At(x0, y1) - At(x1, y0) + At(x0, y0);
    return s * 16 / (static_cast<uint64_t>(x1 - x0) * (y1 - y0));
  }

 private:
  uint64_t At(int x, int y) const { return sums_[static_cast<size_t>(y) * stride_ + x]; }
  Rect area_;
  int stride_;
  std::vector<uint64_t> sums_;
};

uint64_t Hash(const Integral& sums, const Rect& r) {
  uint64_t bits = 0;
  int bit = 0;
  for (int row = 0; row < 8; ++row) {
    const int y0 = r.y + r.h * row / 8;
    const int y1 = r.y + r.h * (row + 1) / 8;
    uint64_t prev = 0;
    for (int col = 0; col < 9; ++col) {
      const int x0 = r.x + r.w * col / 9;
      const int x1 = r.x + r.w * (col + 1) / 9;
      const uint64_t mean = sums.Mean(x0, y0, std::min(x1, r.Right()), std::min(y1, r.Bottom()));
      if (col > 0) {
        if (prev < mean) bits |= uint64_t{1} << bit;
        ++bit;
      }
      prev = mean;
    }
  }
  return bits;
}

}  // namespace

uint64_t DHash64(const Image& image, const Rect& rect) {
  if (!image.Valid()) return 0;
  const Rect r = Intersect(rect, Rect{0, 0, image.width, image.height});
  if (r.Empty()) return 0;
  return Hash(Integral(image, r), r);
}

int HammingDistance(uint64_t a, uint64_t b) { return std::popcount(a ^ b); }

std::optional<HashMatch> FindByHash(const Image& image, uint64_t hash, const Rect& expected,
                                    int radius, int step, int max_distance) {
  if (!image.Valid() || expected.Empty() || step < 1) return std::nullopt;
  const Rect frame{0, 0, image.width, image.height};
  const Rect area = Intersect(Rect{expected.x - radius, expected.y - radius,
                                   expected.w + 2 * radius, expected.h + 2 * radius},
                              frame);
  if (area.w < expected.w || area.h < expected.h) return std::nullopt;
  const Integral sums(image, area);
  std::optional<HashMatch> best;
  int best_offset = 0;
  for (int dy = -radius; dy <= radius; dy += step) {
    for (int dx = -radius; dx <= radius; dx += step) {
      const Rect r = expected.Translated(dx, dy);
      if (!area.Contains(r)) continue;
      const int distance = HammingDistance(Hash(sums, r), hash);
      const int offset = std::abs(dx) + std::abs(dy);
      if (distance > max_distance) continue;
      if (!best || distance < best->distance ||
          (distance == best->distance && offset < best_offset)) {
        best = HashMatch{r, distance};
        best_offset = offset;
      }
    }
  }
  return best;
}

}  // namespace uiscope
