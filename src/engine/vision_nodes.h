// Vision nodes in the tree: `observe --sources ax,vision` (DESIGN §5.4-5.5).
//
// Every window in scope is captured and handed to the detector (vision/
// detector.h); detections are labelled with OCR text inside or beside them
// (vision/labels.h; only the regions that need a label are read) and merged
// into the window's subtree by the rules of core/merge.h: a detection
// matching an accessible element makes it `merged` (filling a missing name
// or value), one inside an element is a part of it, the others become
// source=vision nodes under the smallest container holding their centre —
// the painted controls of a canvas land in the canvas. A window the tree
// does not have at all (an app without accessibility, such as xcalc) gets
// an application and a window node from the X server (source=vision) and
// only vision nodes inside.
//
// Password fields are masked before detection and never named from pixels.
// New nodes get stable IDs (core/ids.h); existing nodes keep theirs.
// Not thread-safe: call under the workspace lease.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/merge.h"
#include "core/node.h"
#include "core/result.h"
#include "engine/observe.h"
#include "engine/ocr_nodes.h"
#include "engine/read_text.h"
#include "engine/workspace.h"
#include "vision/detector.h"

namespace uiscope {

// The windows of `snapshot` in `scope` (window, dialog and alert nodes with
// bounds) that one of `top_levels` shows (IoU >= kSameWindowIoU: a window
// an app lists without mapping it is none), then the top-levels missing
// from the tree (path empty), in the form OCR targets take
// (engine/ocr_nodes.h).
std::vector<OcrTarget> FindVisionTargets(const Snapshot& snapshot,
                                         const std::vector<WindowInfo>& top_levels,
                                         const ObserveRequest& scope);

struct VisionTargetDetections {
  OcrTarget target;
  std::vector<Detection> detections;  // labelled, screen pixels
};

struct VisionMergeStats {
  int vision_nodes = 0;  // nodes added (elements, and windows missing from the tree)
  int merged_nodes = 0;  // accessible nodes that became merged
  int duplicates = 0;    // detections dropped as another view of an element
  // Windows added for targets missing from the tree: X window -> index path
  // of the window node, so that a later source (OCR) puts its text there.
  std::vector<std::pair<uint64_t, std::vector<size_t>>> added_windows;
};

// Merges the detections of each target into `snapshot` (core/merge.h),
// adding application and window nodes for targets missing from the tree,
// assigns IDs to the new nodes (existing IDs kept) and adds the counts to
// snapshot.stats.
VisionMergeStats MergeVisionDetections(Snapshot& snapshot,
                                       const std::vector<VisionTargetDetections>& detections);

struct VisionSourceResult {
  VisionMergeStats stats;
  int targets = 0;       // windows looked at
  int detected = 0;      // elements the detector returned
  double detect_ms = 0;  // detection alone, every target
  double label_ms = 0;   // OCR of the label regions
  double total_ms = 0;
  std::vector<std::string> warnings;
};

// Everything `observe --sources ax,vision` needs after the observation.
// Unsupported on a desktop without a screen. The lease stays held.
// `also_masked` (screen pixels) is blanked like the snapshot's password
// fields: those of a tree left out (`--sources vision`).
Result<VisionSourceResult> AddVisionSource(Snapshot& snapshot, Workspace::Lease& lease,
                                           TextReader& reader, const vision::Detector& detector,
                                           const ObserveRequest& scope,
                                           const ocr::OcrOptions& options = {},
                                           const std::vector<Rect>& also_masked = {});

}  // namespace uiscope
