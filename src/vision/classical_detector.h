// ClassicalDetector: the default Detector (detector.h), classical computer
// vision on OpenCV core + imgproc — no model weights.
//
// UI elements are drawn to be seen: a button, a field, a check box is a box
// whose border or fill stands out from what is around it, and a slider is a
// long thin trough with a knob on it. So:
//   1. Boundaries: the morphological gradient (3x3) of the luminance,
//      thresholded low enough for the faint borders of flat themes (a white
//      list on a near-white window differs by ~10 levels).
//   2. Boxes: the holes of that boundary map (the second level of a
//      two-level contour hierarchy) are the regions a border or a colour
//      step encloses; rectangular ones (contour area / bounding box) are
//      kept, nested near-duplicates (focus rings, double borders) collapse
//      into the outer one, and glyph counters ("o", "e") inside text lines
//      are dropped. Text lines come from the OCR line finder
//      (ocr/line_finder.h), which finds where text is without reading it.
//   3. Roles, from shape and content: a small square box is a check box, a
//      round one a radio button (solid filled ones, checked or selected, are
//      found as blobs), both grown over the label at their right as toolkits
//      report them; a box of control height with text in its middle is a
//      button, with text at its left (or none) on a white fill a text field;
//      a box holding other boxes or several rows of text is a container,
//      unless its lines run closely on a white fill (a text area).
//   4. Linked boxes: a field followed edge to edge by one small square box
//      is a combo box, by two a spin button.
//   5. Structure inside containers: a strip of labels along one side of a
//      framed page is a row (or column) of tabs; left-aligned rows repeating
//      at a regular pitch in a white bordered region are list rows, split
//      half-way between rows.
//   6. Sliders: thin elongated components (horizontal or vertical) whose
//      filled shape has a contiguous trough band in its middle third and a
//      knob at least twice as thick; the value label drawn just above the
//      knob belongs to the slider, as toolkits report it.
//   7. Icons: compact, non-text blobs of icon size outside every element.
// Confidences are fixed per rule, lower for the weaker cues (an empty box, an
// icon), so a caller's threshold trades recall for precision.
//
// Thread-safe and stateless; runs on the calling thread (OpenCV may use its
// own thread pool for the gradient; bench/vision_eval pins to one core).
#pragma once

#include "vision/detector.h"

namespace uiscope::vision {

struct ClassicalOptions {
  // Luminance step (0-255) across a 3x3 neighbourhood that counts as a
  // boundary.
  int edge_threshold = 8;
  float min_confidence = 0.35f;
};

class ClassicalDetector final : public Detector {
 public:
  explicit ClassicalDetector(ClassicalOptions options = {}) : options_(options) {}
  std::string_view name() const override { return "classical"; }
  Result<std::vector<Element>> Detect(const Image& image, Point origin,
                                      std::span<const Rect> masks = {}) const override;

 private:
  ClassicalOptions options_;
};

}  // namespace uiscope::vision
