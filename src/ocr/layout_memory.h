// LayoutMemory: the text lines of a frame, found again only where its pixels
// changed since the last frame read at the same place.
//
// Finding the lines of a dense 1920x1080 screen costs ~12 ms, more than
// recognising the one line a terminal just printed. So the engine remembers,
// for the last few places it read (size, origin and masks of the image), the
// grey pixels and the lines it found. On the next read of the same place the
// grey rows are compared; the line finder runs only over the band of rows
// that changed (widened by the tallest glyph, so a line that crosses the
// band's edge is seen whole), and the lines outside it are kept as they were.
// Only the grey image (masked pixels already blanked) is kept, never the
// captured colour pixels, so a password field's pixels are not held either.
//
// Thread safety: Find may be called from several threads at once.
#pragma once

#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "core/geometry.h"
#include "image/image.h"
#include "ocr/gray_image.h"
#include "ocr/line_finder.h"

namespace uiscope::ocr {

struct Layout {
  GrayImage gray;                   // the whole image, masks filled
  std::vector<TextRegion> regions;  // image pixels, top to bottom
  // Rows the line finder ran over: the whole height on a first read, the
  // changed band on a later one, 0 when nothing changed.
  int rows_searched = 0;
};

class LayoutMemory {
 public:
  explicit LayoutMemory(size_t places = 4, LineFinderOptions options = {});

  // The grey image and text lines of `image`, whose top-left pixel is at
  // `origin` on the screen; `masks` in image pixels.
  Layout Find(const Image& image, Point origin, std::span<const Rect> masks);

  void Clear();

 private:
  struct Place {
    int width = 0;
    int height = 0;
    Point origin;
    uint64_t masks_key = 0;
    GrayImage gray;
    std::vector<TextRegion> regions;
    uint64_t last_use = 0;
  };

  const size_t max_places_;
  const LineFinderOptions options_;
  std::mutex mutex_;
  std::vector<Place> places_;
  uint64_t clock_ = 0;
};

}  // namespace uiscope::ocr
