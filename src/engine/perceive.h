// Perceive: one observation with the perception sources asked for
// (DESIGN §5): the accessibility tree, then OCR text where the tree is blind
// (engine/ocr_nodes.h). `observe` in the CLI and over MCP both go through
// here, so `--sources` means the same everywhere.
//
// Not thread-safe by itself: call under the workspace lease the observation
// is made with.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "engine/observe.h"
#include "engine/read_text.h"
#include "engine/workspace.h"
#include "ocr/ocr_engine.h"

namespace uiscope {

struct Sources {
  bool ax = true;
  bool ocr = false;
  bool vision = false;
};

// "ax", "ocr", "vision", in any order; InvalidArgument names the valid ones,
// Unsupported says which source this build does not have yet. An empty list
// is accessibility alone.
Result<Sources> ParseSources(const std::vector<std::string>& names);

struct Perception {
  Observation observation;  // snapshot (stats include every source) and warnings
  int ocr_targets = 0;      // windows and widgets read by OCR
  int ocr_regions_read = 0;
  int ocr_regions_reused = 0;
};

// Observes through the lease, then adds the other sources. `reader` is
// needed for OCR (it keeps the engine and its cache across calls). The
// snapshot's latency covers every source.
Result<Perception> Perceive(Workspace::Lease& lease, const ObserveRequest& request,
                            const Sources& sources, TextReader* reader,
                            const ocr::OcrOptions& ocr_options = {});

}  // namespace uiscope
