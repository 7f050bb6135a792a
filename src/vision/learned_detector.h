// LearnedDetector: a Detector (detector.h) run from a small convolutional
// network trained on windows of real toolkits (train/vision/, model card in
// train/vision/README.md), read from an ONNX file and run with OpenCV's DNN
// module on the CPU.
//
// The network reads the image in cells of 4x4 pixels. For each cell it gives
// the probability of each class (button, text_field, check_box,
// radio_button, slider, combo_box, spin_button, tab, list_item, menu_item;
// class 0 is background) — a cell is foreground when it lies in the *core*
// of an element, its box shrunk to half its width and height — and the
// distances from the cell's centre to that element's four edges. The most
// sure foreground cell gathers the cells whose boxes overlap its own at IoU
// >= 0.5; a group of two cells or more that covers enough of the core of
// the box it predicts is one element: its box the group's
// boxes averaged (weighted by foreground probability), its class the one
// with the most probability summed over the group, its confidence the mean
// foreground probability. The network reads no text: labels come from OCR.
// Last, a button, check box or radio button it is not sure of (below 0.65)
// whose pixels show a row of glyphs and nothing a control paints
// (painted.h) is dropped: a caption beside a field, a status line, a flat
// text-only button — their text stays in the tree as OCR lines.
//
// Masks: masked pixels are painted with the mean colour of the ring just
// outside the mask before inference and before the bare-text check, so what
// was inside cannot be seen by either.
//
// Thread safety: Detect is const; the network is not reentrant, so calls are
// serialised inside (one mutex). Ownership: the detector owns the network.
#pragma once

#include <memory>
#include <string>

#include "vision/detector.h"

namespace uiscope::vision {

struct LearnedOptions {
  std::string model_path;  // "" = DefaultModelPath()
  float min_confidence = 0.35f;
};

// $UISCOPE_VISION_MODEL if set, else the model shipped in the source tree
// (data/vision/detector.onnx).
std::string DefaultModelPath();

class LearnedDetector final : public Detector {
 public:
  // NotFound when the file is missing; InvalidArgument when it is not a model
  // this detector can run (unreadable ONNX, wrong output shape).
  static Result<std::unique_ptr<LearnedDetector>> Load(const LearnedOptions& options = {});
  ~LearnedDetector() override;

  std::string_view name() const override { return "learned"; }
  Result<std::vector<Element>> Detect(const Image& image, Point origin,
                                      std::span<const Rect> masks = {}) const override;

 private:
  struct Impl;
  explicit LearnedDetector(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace uiscope::vision
