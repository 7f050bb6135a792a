// Content hashes of images (xxHash3, 64 bits): one for the whole frame, one
// per fixed-size tile, so later stages know what changed between two
// captures (the OCR cache re-reads only tiles whose hash moved; the audit
// log records what the screen showed).
//
// Hashes cover the pixels and the dimensions; they are stable across runs
// and machines (XXH3 is seedless here and byte-order independent on RGB
// bytes), so they may be stored.
#pragma once

#include <cstdint>
#include <vector>

#include "core/geometry.h"
#include "image/image.h"

namespace uiscope {

// Hash of the dimensions and every pixel.
uint64_t HashImage(const Image& image);
// Hash of the pixels of `rect` (clamped to the image) and its size; equal
// content at different places hashes equal.
uint64_t HashRegion(const Image& image, const Rect& rect);

struct TileHashes {
  int tile_size = 0;  // pixels a side; edge tiles are cut to the image
  int width = 0;      // of the hashed image
  int height = 0;
  int columns = 0;
  int rows = 0;
  std::vector<uint64_t> hashes;  // row-major, columns * rows

  uint64_t At(int column, int row) const {
    return hashes[static_cast<size_t>(row) * columns + column];
  }
  // The pixels of tile `index` (row-major) in image coordinates.
  Rect TileRect(int index) const;
};

constexpr int kDefaultTileSize = 64;

// Per-tile hashes of `image` in one pass; each tile's hash covers its
// pixels and its size.
TileHashes HashTiles(const Image& image, int tile_size = kDefaultTileSize);

// A hash of the whole frame derived from its tile hashes, so a capture that
// needs both reads the pixels once. Equal frames (same tile size) hash
// equal; it is not HashImage's value.
uint64_t FrameHash(const TileHashes& tiles);

// The tiles (image coordinates) whose hashes differ; every tile when the two
// do not have the same geometry (size or tile size), none when both are equal.
std::vector<Rect> ChangedTiles(const TileHashes& before, const TileHashes& after);

}  // namespace uiscope
