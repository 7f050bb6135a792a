// Downscaling with an area (box) filter: every output pixel is the average
// of the source pixels it covers, fractional coverage weighted. Sharp UI
// edges stay as clean as a downscale allows, with none of the ringing of
// bicubic or the dropped pixels of nearest-neighbour.
#pragma once

#include "core/result.h"
#include "image/image.h"

namespace uiscope {

// `src` resampled to width x height, each at most the source's (area
// filters only shrink). InvalidArgument otherwise.
Result<Image> ResizeArea(const Image& src, int width, int height);

struct Downscaled {
  Image image;
  // Output pixels per source pixel (<= 1): source = output / scale. The
  // height is rounded from the same factor, so the two axes agree within
  // half a pixel.
  double scale = 1.0;
};

// `src` shrunk to at most `max_width` pixels wide, aspect kept; returned as
// it is (moved, scale 1) when it already fits or max_width is 0.
Result<Downscaled> DownscaleToWidth(Image src, int max_width);

}  // namespace uiscope
