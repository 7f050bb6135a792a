// Pixel diff: how much of a picture changed between two captures of the
// same screen region, and where (DESIGN §7: every action reports the pixel
// change it caused). Pure; thread-compatible.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

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

// Where two images of one size differ, as a few boxes rather than one:
// the image is cut into `tile`-pixel squares, changed squares that touch
// (8-neighbours) form one area, and each area's box is the tight box of its
// changed pixels (image coordinates). A button's pressed look and a result
// shown elsewhere come out as two boxes. Largest first; beyond `max_areas`
// the smallest are merged into the last one. Empty when nothing changed or
// the images do not match.
std::vector<Rect> ChangedAreas(const Image& before, const Image& after, int tile = 16,
                               size_t max_areas = 8);

// The pixels of `area` (image coordinates, clipped to the image); an empty
// image when nothing of it lies inside.
Image CropImage(const Image& image, const Rect& area);

}  // namespace uiscope
