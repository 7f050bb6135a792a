#include "ocr/layout_memory.h"

#include <xxhash.h>

#include <algorithm>
#include <cstring>

namespace uiscope::ocr {
namespace {

// When more than this share of the rows changed, a band search saves
// nothing: the whole image is searched.
constexpr double kMaxBandShare = 0.6;

uint64_t MasksKey(std::span<const Rect> masks) {
  return masks.empty() ? 0 : XXH3_64bits(masks.data(), masks.size_bytes());
}

bool Intersects(const Rect& r, int y0, int y1) { return r.y < y1 && r.Bottom() > y0; }

void SortReadingOrder(std::vector<TextRegion>& regions) {
  std::sort(regions.begin(), regions.end(), [](const TextRegion& a, const TextRegion& b) {
    if (a.bounds.y != b.bounds.y) return a.bounds.y < b.bounds.y;
    return a.bounds.x < b.bounds.x;
  });
}

}  // namespace

LayoutMemory::LayoutMemory(size_t places, LineFinderOptions options)
    : max_places_(std::max<size_t>(1, places)), options_(options) {}

void LayoutMemory::Clear() {
  std::lock_guard lock(mutex_);
  places_.clear();
}

Layout LayoutMemory::Find(const Image& image, Point origin, std::span<const Rect> masks) {
  Layout layout;
  layout.gray = ToGray(image, masks);
  const GrayImage& gray = layout.gray;
  const uint64_t masks_key = MasksKey(masks);

  std::lock_guard lock(mutex_);
  ++clock_;
  auto place = std::find_if(places_.begin(), places_.end(), [&](const Place& p) {
    return p.width == gray.width && p.height == gray.height && p.origin.x == origin.x &&
           p.origin.y == origin.y && p.masks_key == masks_key;
  });

  int changed0 = 0, changed1 = gray.height;  // rows [changed0, changed1) differ
  if (place != places_.end()) {
    const size_t row_bytes = static_cast<size_t>(gray.width);
    changed0 = gray.height;
    changed1 = 0;
    for (int y = 0; y < gray.height; ++y) {
      if (std::memcmp(gray.Row(y), place->gray.Row(y), row_bytes) != 0) {
        changed0 = y;
        break;
      }
    }
    for (int y = gray.height - 1; y >= changed0; --y) {
      if (std::memcmp(gray.Row(y), place->gray.Row(y), row_bytes) != 0) {
        changed1 = y + 1;
        break;
      }
    }
    if (changed1 <= changed0) {  // nothing changed
      layout.regions = place->regions;
      place->last_use = clock_;
      return layout;
    }
  }

  const int margin = options_.max_glyph_height;
  const int band0 = std::max(0, changed0 - margin);
  const int band1 = std::min(gray.height, changed1 + margin);
  if (place == places_.end() || band1 - band0 > kMaxBandShare * gray.height) {
    layout.regions = FindTextRegions(gray, options_);
    layout.rows_searched = gray.height;
  } else {
    // Lines of the band that touch the changed rows replace the old lines
    // they overlap; old lines elsewhere stay. A line of the band that does
    // not reach the changed rows may be cut by the band's edge: the old one
    // is kept instead.
    const GrayImage band = Crop(gray, Rect{0, band0, gray.width, band1 - band0});
    for (TextRegion r : FindTextRegions(band, options_)) {
      r.bounds = r.bounds.Translated(0, band0);
      if (Intersects(r.bounds, changed0, changed1)) layout.regions.push_back(r);
    }
    const size_t found = layout.regions.size();
    for (const TextRegion& old : place->regions) {
      if (Intersects(old.bounds, changed0, changed1)) continue;
      const bool replaced = std::any_of(
          layout.regions.begin(), layout.regions.begin() + static_cast<std::ptrdiff_t>(found),
          [&](const TextRegion& r) { return !Intersect(r.bounds, old.bounds).Empty(); });
      if (!replaced) layout.regions.push_back(old);
    }
    SortReadingOrder(layout.regions);
    layout.rows_searched = band1 - band0;
  }

  if (place == places_.end()) {
    if (places_.size() >= max_places_) {
      place = std::min_element(places_.begin(), places_.end(), [](const Place& a, const Place& b) {
        return a.last_use < b.last_use;
      });
    } else {
      place = places_.emplace(places_.end());
    }
    place->width = gray.width;
    place->height = gray.height;
    place->origin = origin;
    place->masks_key = masks_key;
  }
  place->gray = gray;
  place->regions = layout.regions;
  place->last_use = clock_;
  return layout;
}

}  // namespace uiscope::ocr
