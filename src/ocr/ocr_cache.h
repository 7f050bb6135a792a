// OcrCache: what OCR already read, keyed by the content hash (XXH3) of the
// pixels it read, so that reading them again costs a hash.
//
// Two levels:
// - regions: the words of one text line region, in coordinates relative to
//   the region, keyed by the hash of the region's grey pixels and the
//   options that change the reading (language, scale). Content, not place:
//   a terminal that scrolled by one line finds every old line again, and a
//   list of identical "Open" buttons is read once.
// - frames: the whole result of a read, keyed by the hash of the input image
//   (masked pixels left out) and the options, so an unchanged screen or
//   window is answered without even finding its lines.
// Both are LRU-bounded.
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "core/geometry.h"
#include "core/result.h"
#include "image/image.h"
#include "ocr/gray_image.h"
#include "ocr/ocr_types.h"

namespace uiscope::ocr {

struct OcrCacheOptions {
  size_t max_regions = 16384;  // text line regions kept
  size_t max_frames = 32;      // whole results kept
};

class OcrCache {
 public:
  explicit OcrCache(OcrCacheOptions options = {});

  // Words relative to the region's top-left corner; nullopt when absent.
  std::optional<std::vector<OcrWord>> FindRegion(uint64_t key);
  void PutRegion(uint64_t key, std::vector<OcrWord> words);

  // A whole result in image coordinates (origin 0, 0); nullopt when absent.
  std::optional<OcrResult> FindFrame(uint64_t key);
  void PutFrame(uint64_t key, OcrResult result);

  void Clear();

  // The text line regions kept beyond one process (a CLI call reads again
  // what the previous call read: a hash, not a recognition). `identity`
  // names the recognizer (Recognizer::Identity): a file written by another
  // is ignored. Save writes the `max` most recent regions whole to a
  // temporary file renamed over `path` (mode 0600); Load adds the file's
  // regions as least recent, and a missing, foreign or damaged file is no
  // cache (never an error to the caller, which reads the pixels instead).
  // Regions added since construction or the last Load/Save: dirty().
  Status SaveRegions(const std::string& path, const std::string& identity, size_t max) const;
  void LoadRegions(const std::string& path, const std::string& identity);
  bool dirty() const;

  struct Stats {
    size_t regions = 0;  // entries held
    size_t frames = 0;
    uint64_t region_hits = 0;
    uint64_t region_misses = 0;
    uint64_t frame_hits = 0;
    uint64_t frame_misses = 0;
  };
  Stats stats() const;

 private:
  template <typename V>
  struct Lru {
    using Entry = std::pair<uint64_t, V>;
    std::list<Entry> order;  // most recent first
    std::unordered_map<uint64_t, typename std::list<Entry>::iterator> index;
  };
  template <typename V>
  static const V* Get(Lru<V>& lru, uint64_t key);
  template <typename V>
  static void Put(Lru<V>& lru, uint64_t key, V value, size_t max);

  const OcrCacheOptions options_;
  mutable std::mutex mutex_;
  Lru<std::vector<OcrWord>> regions_;
  Lru<OcrResult> frames_;
  Stats stats_;
  mutable bool dirty_ = false;
};

// Hash of the grey pixels of `rect` (inside the image), its size and `seed`.
uint64_t HashRegion(const GrayImage& image, const Rect& rect, uint64_t seed);

// Hash of `image` without the pixels inside `masks` (image coordinates): its
// size, every unmasked pixel, the masks and `seed`. Masked pixels are never
// read.
uint64_t HashImageMasked(const Image& image, std::span<const Rect> masks, uint64_t seed);

}  // namespace uiscope::ocr
