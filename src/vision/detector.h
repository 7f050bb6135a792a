// Detector: interactive elements found in pixels (DESIGN §5.4), for what the
// accessibility tree cannot see — canvases, games, custom-painted widgets,
// apps without accessibility, remote desktops.
//
// Contract. Detect takes an RGB image whose pixel (0, 0) is screen pixel
// `origin` and returns boxes in screen pixels, each with a role guess
// (button, text_field, check_box, radio_button, slider, list_item, tab,
// icon) and a confidence in [0, 1]; boxes below the detector's minimum
// confidence are not returned. Boxes do not nest except where the UI does
// (a button inside a list row). A detector reads no text: labels come from
// OCR afterwards (vision/labels.h), so a model that does read text may
// fill Element::label and OCR is then only asked for the rest. Pixels inside
// `masks` (screen pixels: password fields) must not influence the result
// beyond their own box.
//
// Implementations: ClassicalDetector (classical_detector.h, OpenCV core +
// imgproc: edges, contours, uniform regions), LearnedDetector
// (learned_detector.h: a small network trained on real toolkits' windows,
// train/vision/, run with OpenCV DNN) and the two combined (detector.cpp).
// Which one is the default is decided by
// the held-out evaluation (bench/vision_eval, train/vision/README.md):
// kDefaultDetector below.
//
// Thread safety: Detect is const; implementations must allow concurrent
// calls (a model that cannot would serialise them inside). Ownership: the
// caller owns the detector and the image; results are values.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/geometry.h"
#include "core/node.h"
#include "core/result.h"
#include "image/image.h"

namespace uiscope::vision {

struct Element {
  Rect bounds;                 // screen pixels
  Role role = Role::kUnknown;  // the detector's guess
  float confidence = 0;        // 0..1
  std::string label;           // text the detector read itself ("" for the classical one)
};

class Detector {
 public:
  virtual ~Detector() = default;

  // "classical", or the model's name: reported with results and in bench output.
  virtual std::string_view name() const = 0;

  // The elements in `image` (see the contract above). InvalidArgument for an
  // invalid image; Internal when the backend fails.
  virtual Result<std::vector<Element>> Detect(const Image& image, Point origin,
                                              std::span<const Rect> masks = {}) const = 0;
};

// Sorts elements top to bottom, then left to right: the order every detector
// returns them in.
void SortInReadingOrder(std::vector<Element>& elements);

// The kind CreateDetector makes when none is named: "combined", the most
// found over the held-out apps (bench/vision_eval, train/vision/README.md):
// the classical detector's precise boxes and what only the learned one sees.
// Not "learned" alone: it misses shapes painted on a canvas (4 of 7 on the
// fixture's), which the classical one finds. When the model cannot be read
// the default is the classical detector, with a warning.
inline constexpr std::string_view kDefaultDetector = "combined";

struct DetectorOptions {
  std::string kind;        // "classical" | "learned" | "combined" | "auto"; "" = kDefaultDetector
  std::string model_path;  // the learned one's ONNX file; "" = its default
  float min_confidence = 0.35f;  // boxes less sure than this are dropped
};

// The kinds this build has, for messages and --help: "classical, learned, combined, auto".
std::string_view DetectorKinds();

// The detector `options.kind` names: InvalidArgument listing the kinds for an
// unknown one; the learned detector's load error (NotFound, InvalidArgument)
// when it is named and its model cannot be used. "combined" runs both: every
// classical element, and the learned elements that overlap none of them
// (IoU >= 0.3, or half the smaller box inside the other); named, it needs the
// model as "learned" does. "auto" is the learned detector when its model
// loads, else the classical one. The default (no kind) is kDefaultDetector
// when the model loads, else the classical one. Each fallback says why in
// `*warning` (when given).
Result<std::unique_ptr<Detector>> CreateDetector(const DetectorOptions& options = {},
                                                 std::string* warning = nullptr);

}  // namespace uiscope::vision
