#include "image/image_hash.h"

#include <xxhash.h>

#include <algorithm>

namespace uiscope {
namespace {

uint64_t SizeSeed(int width, int height) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(width)) << 32) |
         static_cast<uint32_t>(height);
}

}  // namespace

uint64_t HashImage(const Image& image) {
  return XXH3_64bits_withSeed(image.rgb.data(), image.rgb.size(),
                              SizeSeed(image.width, image.height));
}

uint64_t HashRegion(const Image& image, const Rect& rect) {
  Rect r = ClampToFrame(rect, image.width, image.height);
  if (r.Empty() || !image.Valid()) return SizeSeed(0, 0);
  // Each row is hashed with the previous row's hash as seed: one chained
  // hash over non-contiguous rows, without copying them.
  uint64_t h = SizeSeed(r.w, r.h);
  const size_t row_bytes = static_cast<size_t>(r.w) * 3;
  for (int y = r.y; y < r.Bottom(); ++y)
    h = XXH3_64bits_withSeed(image.Pixel(r.x, y), row_bytes, h);
  return h;
}

Rect TileHashes::TileRect(int index) const {
  if (columns == 0) return {};
  const int col = index % columns, row = index / columns;
  const int x = col * tile_size, y = row * tile_size;
  return {x, y, std::min(tile_size, width - x), std::min(tile_size, height - y)};
}

TileHashes HashTiles(const Image& image, int tile_size) {
  TileHashes t;
  if (!image.Valid() || tile_size <= 0) return t;
  t.tile_size = tile_size;
  t.width = image.width;
  t.height = image.height;
  t.columns = (image.width + tile_size - 1) / tile_size;
  t.rows = (image.height + tile_size - 1) / tile_size;
  t.hashes.resize(static_cast<size_t>(t.columns) * t.rows);
  // Row by row through memory (cache-friendly), each row segment chained
  // into its tile's running hash, seeded with the tile's size.
  for (int row = 0; row < t.rows; ++row) {
    uint64_t* hashes = &t.hashes[static_cast<size_t>(row) * t.columns];
    const int y0 = row * tile_size, y1 = std::min(image.height, y0 + tile_size);
    for (int col = 0; col < t.columns; ++col) {
      const int w = std::min(tile_size, image.width - col * tile_size);
      hashes[col] = SizeSeed(w, y1 - y0);
    }
    for (int y = y0; y < y1; ++y) {
      const uint8_t* p = image.Pixel(0, y);
      for (int col = 0; col < t.columns; ++col) {
        const int x = col * tile_size;
        const size_t bytes = static_cast<size_t>(std::min(tile_size, image.width - x)) * 3;
        hashes[col] = XXH3_64bits_withSeed(p + static_cast<size_t>(x) * 3, bytes, hashes[col]);
      }
    }
  }
  return t;
}

uint64_t FrameHash(const TileHashes& tiles) {
  const uint64_t seed =
      SizeSeed(tiles.width, tiles.height) ^ static_cast<uint64_t>(tiles.tile_size);
  return XXH3_64bits_withSeed(tiles.hashes.data(), tiles.hashes.size() * sizeof(uint64_t), seed);
}

std::vector<Rect> ChangedTiles(const TileHashes& before, const TileHashes& after) {
  std::vector<Rect> changed;
  const bool same_geometry = before.tile_size == after.tile_size && before.width == after.width &&
                             before.height == after.height;
  for (size_t i = 0; i < after.hashes.size(); ++i) {
    if (!same_geometry || before.hashes[i] != after.hashes[i])
      changed.push_back(after.TileRect(static_cast<int>(i)));
  }
  return changed;
}

}  // namespace uiscope
