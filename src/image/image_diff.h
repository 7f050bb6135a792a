// Pixel diff: how much of a picture changed between two captures of the
// same screen region, and where (DESIGN §7: every action reports the pixel
// change it caused). Pure; thread-compatible.
#pragma once

#include <optional>

#include "core/geometry.h"
#include "core/result.h"
#include "image/image.h"

namespace uiscope {

struct PixelDiff {
  double score = 0;        // changed pixels / all pixels, 0..1
  int changed_pixels = 0;  // pixels where some channel moved by more than the threshold
  // Smallest rectangle holding every changed pixel, in image coordinates;
  // nullopt when nothing changed.
  std::optional<Rect> bounds;
};

// Compares two images of one size pixel by pixel; a pixel counts as changed
// when any channel differs by more than `threshold` (0 = any difference;
// a few units absorb dithering). Identical rows are skipped with memcmp, so
// an unchanged frame costs a memory compare. InvalidArgument when the sizes
// differ or an image is invalid.
Result<PixelDiff> DiffImages(const Image& before, const Image& after, int threshold = 0);

// The same, counting only pixels inside `area` (image coordinates, clipped
// to the images); score is relative to the clipped area, bounds are image
// coordinates. An area outside the images changes nothing.
Result<PixelDiff> DiffImagesWithin(const Image& before, const Image& after, const Rect& area,
                                   int threshold = 0);

}  // namespace uiscope
