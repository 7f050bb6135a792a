#include "ocr/ocr_cache.h"

#include <xxhash.h>

#include <algorithm>
#include <memory>

namespace uiscope::ocr {

OcrCache::OcrCache(OcrCacheOptions options) : options_(options) {}

template <typename V>
const V* OcrCache::Get(Lru<V>& lru, uint64_t key) {
  auto it = lru.index.find(key);
  if (it == lru.index.end()) return nullptr;
  lru.order.splice(lru.order.begin(), lru.order, it->second);
  return &it->second->second;
}

template <typename V>
void OcrCache::Put(Lru<V>& lru, uint64_t key, V value, size_t max) {
  if (max == 0) return;
  if (auto it = lru.index.find(key); it != lru.index.end()) {
    it->second->second = std::move(value);
    lru.order.splice(lru.order.begin(), lru.order, it->second);
    return;
  }
  lru.order.emplace_front(key, std::move(value));
  lru.index[key] = lru.order.begin();
  while (lru.order.size() > max) {
    lru.index.erase(lru.order.back().first);
    lru.order.pop_back();
  }
}

std::optional<std::vector<OcrWord>> OcrCache::FindRegion(uint64_t key) {
  std::lock_guard lock(mutex_);
  const auto* words = Get(regions_, key);
  if (!words) {
    ++stats_.region_misses;
    return std::nullopt;
  }
  ++stats_.region_hits;
  return *words;
}

void OcrCache::PutRegion(uint64_t key, std::vector<OcrWord> words) {
  std::lock_guard lock(mutex_);
  Put(regions_, key, std::move(words), options_.max_regions);
}

std::optional<OcrResult> OcrCache::FindFrame(uint64_t key) {
  std::lock_guard lock(mutex_);
  const auto* result = Get(frames_, key);
  if (!result) {
    ++stats_.frame_misses;
    return std::nullopt;
  }
  ++stats_.frame_hits;
  return *result;
}

void OcrCache::PutFrame(uint64_t key, OcrResult result) {
  std::lock_guard lock(mutex_);
  Put(frames_, key, std::move(result), options_.max_frames);
}

void OcrCache::Clear() {
  std::lock_guard lock(mutex_);
  regions_ = {};
  frames_ = {};
}

OcrCache::Stats OcrCache::stats() const {
  std::lock_guard lock(mutex_);
  Stats s = stats_;
  s.regions = regions_.order.size();
  s.frames = frames_.order.size();
  return s;
}

namespace {

struct StateDeleter {
  void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
};
using HashState = std::unique_ptr<XXH3_state_t, StateDeleter>;

template <typename T>
void Feed(XXH3_state_t* state, const T& value) {
  XXH3_64bits_update(state, &value, sizeof(value));
}

}  // namespace

uint64_t HashRegion(const GrayImage& image, const Rect& rect, uint64_t seed) {
  const Rect r = ClampToFrame(rect, image.width, image.height);
  const uint64_t size[2] = {static_cast<uint64_t>(r.w), static_cast<uint64_t>(r.h)};
  uint64_t h = XXH3_64bits_withSeed(size, sizeof(size), seed);
  if (r.Empty()) return h;
  // Rows of a line region are short; hashing them into one buffer-sized
  // stream costs less than one call per row.
  HashState state(XXH3_createState());
  XXH3_64bits_reset_withSeed(state.get(), h);
  for (int y = r.y; y < r.Bottom(); ++y) {
    XXH3_64bits_update(state.get(), image.Row(y) + r.x, static_cast<size_t>(r.w));
  }
  return XXH3_64bits_digest(state.get());
}

uint64_t HashImageMasked(const Image& image, std::span<const Rect> masks, uint64_t seed) {
  HashState state(XXH3_createState());
  XXH3_64bits_reset_withSeed(state.get(), seed);
  Feed(state.get(), image.width);
  Feed(state.get(), image.height);
  std::vector<Rect> clipped;
  for (const Rect& m : masks) {
    Rect c = ClampToFrame(m, image.width, image.height);
    if (c.Empty()) continue;
    clipped.push_back(c);
    Feed(state.get(), c.x);
    Feed(state.get(), c.y);
    Feed(state.get(), c.w);
    Feed(state.get(), c.h);
  }
  const size_t stride = static_cast<size_t>(image.width) * 3;
  if (clipped.empty()) {
    XXH3_64bits_update(state.get(), image.rgb.data(), stride * image.height);
    return XXH3_64bits_digest(state.get());
  }
  std::vector<std::pair<int, int>> spans;
  for (int y = 0; y < image.height; ++y) {
    const uint8_t* row = image.rgb.data() + stride * y;
    spans.clear();
    for (const Rect& m : clipped) {
      if (y >= m.y && y < m.Bottom()) spans.emplace_back(m.x, m.Right());
    }
    std::sort(spans.begin(), spans.end());
    int x = 0;
    for (const auto& [from, to] : spans) {
      if (from > x) XXH3_64bits_update(state.get(), row + x * 3, static_cast<size_t>(from - x) * 3);
      x = std::max(x, to);
    }
    if (x < image.width) {
      XXH3_64bits_update(state.get(), row + x * 3, static_cast<size_t>(image.width - x) * 3);
    }
  }
  return XXH3_64bits_digest(state.get());
}

}  // namespace uiscope::ocr
