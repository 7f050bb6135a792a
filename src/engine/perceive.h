// Perceive: one observation with the perception sources asked for
// (DESIGN §5): the accessibility tree, then elements detected in the pixels
// of every window (engine/vision_nodes.h), then OCR text where the tree is
// blind (engine/ocr_nodes.h), then memory (engine/learner.h: the lease's
// learner, when there is one, learns from the result and adds its taught
// and reliable targets). Vision goes before OCR so that a line of text
// that labels a detected button is recognised as part of it rather than
// added a second time. `observe` and `find` in the CLI and over MCP all go
// through here, so `--sources` means the same everywhere.
//
// Not thread-safe by itself: call under the workspace lease the observation
// is made with.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "engine/learner.h"
#include "engine/observe.h"
#include "engine/read_text.h"
#include "engine/workspace.h"
#include "ocr/ocr_engine.h"
#include "vision/detector.h"

namespace uiscope {

struct Sources {
  bool ax = true;
  bool ocr = false;
  bool vision = false;
  // Without OCR and vision: the windows of apps whose tree cannot be read
  // (not answering, or without accessibility) are still read from their
  // pixels (engine/x11_windows_pixels.h). Off when sources are named.
  bool pixels_where_blind = true;
};

// "ax", "ocr", "vision", in any order; InvalidArgument names the valid ones.
// An empty list (empty names are skipped: `--sources ''`) is accessibility,
// with the windows of apps without a readable tree read from pixels; a list
// naming sources gives exactly those. Without "ax", "vision" is required:
// the detector then runs on every window, trees or not, and the snapshot
// holds only what the pixels gave (vision nodes, and OCR text when "ocr"
// is named too) under application and window nodes from the X server —
// what pixels alone give, for evaluation and for users who want to see it.
// OCR alone (without ax or vision) is refused.
Result<Sources> ParseSources(const std::vector<std::string>& names);

struct Perception {
  Observation observation;  // snapshot (stats include every source) and warnings
  int ocr_targets = 0;      // windows and widgets read by OCR
  int ocr_regions_read = 0;
  int ocr_regions_reused = 0;
  int vision_targets = 0;   // windows the detector looked at
  int vision_detected = 0;  // elements it found (before the merge)
  double vision_detect_ms = 0;
  LearnStats learned;  // what memory learned and added (engine/learner.h)
};

// Observes through the lease, then adds the other sources (without ax: see
// ParseSources; the tree is still read, for the password fields to mask,
// and then left out, and memory neither learns nor adds). `reader` is
// needed for OCR and for the labels of vision nodes (it keeps the engine and
// its cache across calls); `detector` for vision (null: the default
// classical detector). The snapshot's latency covers every source.
Result<Perception> Perceive(Workspace::Lease& lease, const ObserveRequest& request,
                            const Sources& sources, TextReader* reader,
                            const ocr::OcrOptions& ocr_options = {},
                            const vision::Detector* detector = nullptr);

// The pixel sources of `sources` (OCR, vision) added to `perception`, an
// observation already made under `lease` with `request`: what Perceive does
// after observing. An action re-perceives with it to find the OCR or vision
// ID an earlier call printed (engine/pixel_ids.h). Without sources.ax the
// snapshot's tree is replaced by what the pixels give (its password fields
// masked first).
Status AddPixelSources(Perception& perception, Workspace::Lease& lease,
                       const ObserveRequest& request, const Sources& sources, TextReader* reader,
                       const ocr::OcrOptions& ocr_options = {},
                       const vision::Detector* detector = nullptr);

// The lease's screen, for the learner's fingerprints (engine/learner.h);
// empty on a fake desktop (no screen).
RegionCapture ScreenRegions(const Workspace::Lease& lease);

}  // namespace uiscope
