#include "core/geometry.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace uiscope {
namespace {

// Bounds come from accessibility data, which is untrusted: a widget may claim
// x = INT_MAX - 1 with w = 100. Edges are therefore computed in 64 bits and
// sizes clamped back into int, so no caller ever sees signed overflow.
int64_t Right64(const Rect& r) { return int64_t{r.x} + r.w; }
int64_t Bottom64(const Rect& r) { return int64_t{r.y} + r.h; }

int ClampToInt(int64_t v) {
  return static_cast<int>(
      std::clamp<int64_t>(v, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}

}  // namespace

Rect Intersect(const Rect& a, const Rect& b) {
  if (a.Empty() || b.Empty()) return Rect{};
  const int64_t left = std::max(a.x, b.x);
  const int64_t top = std::max(a.y, b.y);
  const int64_t right = std::min(Right64(a), Right64(b));
  const int64_t bottom = std::min(Bottom64(a), Bottom64(b));
  if (right <= left || bottom <= top) return Rect{};
  return Rect{static_cast<int>(left), static_cast<int>(top), ClampToInt(right - left),
              ClampToInt(bottom - top)};
}

Rect Union(const Rect& a, const Rect& b) {
  if (a.Empty()) return b.Empty() ? Rect{} : b;
  if (b.Empty()) return a;
  const int64_t left = std::min(a.x, b.x);
  const int64_t top = std::min(a.y, b.y);
  const int64_t right = std::max(Right64(a), Right64(b));
  const int64_t bottom = std::max(Bottom64(a), Bottom64(b));
  return Rect{static_cast<int>(left), static_cast<int>(top), ClampToInt(right - left),
              ClampToInt(bottom - top)};
}

double IoU(const Rect& a, const Rect& b) {
  const int64_t inter = Intersect(a, b).Area();
  if (inter == 0) return 0.0;
  const int64_t uni = a.Area() + b.Area() - inter;
  return static_cast<double>(inter) / static_cast<double>(uni);
}

bool SharesHalfOfTheSmaller(const Rect& a, const Rect& b) {
  const int64_t shared = Intersect(a, b).Area();
  return shared > 0 && 2 * shared >= std::min(a.Area(), b.Area());
}

Rect ClampToFrame(const Rect& r, int width, int height) {
  return Intersect(r, Rect{0, 0, width, height});
}

std::vector<Rect> Subtract(const Rect& a, const std::vector<Rect>& holes) {
  std::vector<Rect> parts;
  if (a.Empty()) return parts;
  parts.push_back(a);
  for (const Rect& hole : holes) {
    std::vector<Rect> next;
    for (const Rect& p : parts) {
      const Rect cut = Intersect(p, hole);
      if (cut.Empty()) {
        next.push_back(p);
        continue;
      }
      // Up to four bands around the cut: above, below, left, right of it.
      const Rect bands[] = {{p.x, p.y, p.w, cut.y - p.y},
                            {p.x, cut.Bottom(), p.w, p.Bottom() - cut.Bottom()},
                            {p.x, cut.y, cut.x - p.x, cut.h},
                            {cut.Right(), cut.y, p.Right() - cut.Right(), cut.h}};
      for (const Rect& b : bands) {
        if (!b.Empty()) next.push_back(b);
      }
    }
    parts = std::move(next);
  }
  return parts;
}

Rect BoundingBox(const std::vector<Rect>& rects) {
  Rect box;
  for (const Rect& r : rects) box = Union(box, r);
  return box;
}

std::vector<Rect> DisjointUnion(const std::vector<Rect>& rects) {
  std::vector<Rect> out;
  for (const Rect& r : rects) {
    std::vector<Rect> fresh = Subtract(r, out);
    out.insert(out.end(), fresh.begin(), fresh.end());
  }
  return out;
}

int64_t TotalArea(const std::vector<Rect>& disjoint) {
  int64_t area = 0;
  for (const Rect& r : disjoint) area += r.Area();
  return area;
}

std::vector<Rect> UncoveredParts(const Rect& r, const std::vector<Rect>& stack, size_t layer) {
  if (layer >= stack.size()) return r.Empty() ? std::vector<Rect>{} : std::vector<Rect>{r};
  return Subtract(
      r, std::vector<Rect>(stack.begin() + static_cast<std::ptrdiff_t>(layer) + 1, stack.end()));
}

}  // namespace uiscope
