// Line finder: where the text lines of a screen image are, without reading
// them, in a few milliseconds for a 1920x1080 frame.
//
// Tesseract's own page layout analysis is built for scanned pages and costs
// a large share of a full-frame run on a dense screen; screens are simpler
// (no skew, no noise, flat backgrounds, text in rows). So uiscope finds the
// lines itself and hands Tesseract one line crop at a time (page segmentation
// mode "single line"), which also gives the cache its unit: one line whose
// pixels did not change is never read again.
//
// Method: a pixel is "ink" when it differs from its right or lower neighbour
// by more than `edge_threshold` (polarity-free, so light-on-dark text is found
// like dark-on-light). Long straight runs (widget borders, separators, table
// rules) are removed, the rest is labelled into 8-connected components, and
// components are filtered (too large, sparse frames, containers such as the
// box of a check box or an entry) and grouped into lines: a component joins
// the line whose vertical band it overlaps, when it is of compatible height
// and close enough horizontally; dots, commas and accents attach afterwards.
//
// Pure C++, no state: safe to call from any thread.
#pragma once

#include <vector>

#include "core/geometry.h"
#include "ocr/gray_image.h"

namespace uiscope::ocr {

struct LineFinderOptions {
  // Minimum luminance step (0-255) between neighbours counted as an edge.
  // Low enough for anti-aliased grey text; flat UI gradients stay below it.
  int edge_threshold = 28;
  // Straight edge runs at least this long (pixels) are borders, not glyphs.
  int max_horizontal_run = 64;
  int max_vertical_run = 72;
  // Components taller than this (pixels) are not glyphs of a text line.
  int max_glyph_height = 72;
  // Two glyphs further apart than this many line heights start separate
  // regions (two columns of a terminal listing, a label and its value).
  double max_gap = 1.6;
  // Lines wider than this many times their height are cut at the blank gap
  // nearest their middle, again until they are narrower or have no gap. A
  // line is read by one worker from end to end, so a full-width terminal
  // line would keep one core busy while the others wait; halves are read in
  // parallel, and a changed half is all that is read again. 0 = never.
  int max_aspect = 48;
};

struct TextRegion {
  Rect bounds;           // image pixels: the ink of the line (no padding)
  int glyph_height = 0;  // height of the tallest glyph, pixels (for the scale)
};

// Text lines of `image`, top to bottom then left to right.
std::vector<TextRegion> FindTextRegions(const GrayImage& image,
                                        const LineFinderOptions& options = {});

}  // namespace uiscope::ocr
