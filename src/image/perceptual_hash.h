// A perceptual hash of an element's pixels (its visual fingerprint, seed
// 002 §3.1) and the search for it near an expected place, so that memory
// re-finds a taught or learned target after its window moved or its layout
// shifted a little, where no accessibility tree says where it is.
//
// DHash64: the region averaged down to 9x8 grey cells; bit (row, col) is
// set when cell col is darker than cell col+1. Robust to small scaling,
// brightness and anti-aliasing changes; two renderings of the same element
// differ by a few bits, different elements by about half of them.
//
// Pure C++ on Image (image.h); thread-safe (no state).
#pragma once

#include <cstdint>
#include <optional>

#include "core/geometry.h"
#include "image/image.h"

namespace uiscope {

// The hash of `rect` (image pixels; clamped to the image); 0 for a rect with
// nothing of the image in it. Rects under 9x8 pixels are sampled all the
// same (cells then share pixels).
uint64_t DHash64(const Image& image, const Rect& rect);

int HammingDistance(uint64_t a, uint64_t b);

// Two hashes of one element differ by at most this many bits in practice
// (measured on GTK and Tk widgets redrawn, re-rendered and moved).
inline constexpr int kSameElementBits = 10;

struct HashMatch {
  Rect rect;         // image pixels
  int distance = 0;  // bits
};

// The place of a `size`-sized region whose hash is nearest `hash` among
// those whose top-left corner lies within `radius` pixels (each axis) of
// `expected`'s, stepping `step` pixels; ties go to the one nearest
// `expected`. nullopt when none is within `max_distance` bits.
std::optional<HashMatch> FindByHash(const Image& image, uint64_t hash, const Rect& expected,
                                    int radius, int step = 2, int max_distance = kSameElementBits);

}  // namespace uiscope
