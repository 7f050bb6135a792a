// Labels for detected elements, from OCR text inside or beside them, and the
// conversion of elements into the Detections that core/merge.h merges into
// the tree.
//
// Where a label is, by role (what toolkits and people do):
//   - button, tab, list row, icon: the text inside (a list row: its first
//     line, the row's own label; the rest are its other cells);
//   - check box, radio button: the text just right of the box, on its row;
//   - text field, slider, combo box: the text just left of it on its row,
//     else just above it; a field's own text (typed or placeholder) is its
//     value when a label was found beside it, else its name.
// An element that reads its own label (Element::label) keeps it. Only
// words OCR read as text label anything (ocr::ReadAsText): a symbol taken
// for letters ("Tl" for π) is no name.
//
// Pure, thread-safe.
#pragma once

#include <span>
#include <vector>

#include "core/geometry.h"
#include "core/merge.h"
#include "ocr/ocr_types.h"
#include "vision/detector.h"

namespace uiscope::vision {

// `elements` with names (and values) from `lines` (screen pixels), as
// vision Detections.
std::vector<Detection> LabelElements(std::span<const Element> elements,
                                     std::span<const ocr::OcrLine> lines);

// Where OCR must read to label `elements`: each element's box grown to where
// a label beside it may be, clipped to `frame`, overlapping rectangles
// merged. Screen pixels.
std::vector<Rect> LabelRegions(std::span<const Element> elements, const Rect& frame);

// Elements without a label as Detections (for callers that do not read).
std::vector<Detection> ToDetections(std::span<const Element> elements);

}  // namespace uiscope::vision
