// Which perception made an ID (issue 15 §5), and where it was: the IDs of
// OCR and vision nodes exist only in an observation that ran those
// sources, so an action on one — in another CLI process, or in an MCP
// server whose observer keeps only the accessibility tree — cannot find it
// in the tree. Perceive records here, per display in the state directory,
// the pixel-sourced nodes of its last few observations: the sources and
// scope that made them, and for each node its bounds, its window's bounds
// and a small grey picture of its pixels (PixelPatch).
//
// The action executor looks an unknown ID up. When the window is where it
// was and the element's pixels still look as they did (CheckPlace), it acts
// at the remembered place, at the cost of one small capture; otherwise it
// perceives again with the recorded sources and scope (0.1-0.9 s), and says
// which it did. A stale place is never clicked: a window moved, resized,
// gone or covered there, or pixels changed beyond what a caret blinking
// changes, all mean perceiving again.
//
// Not thread-safe; the file is written whole and renamed, so concurrent
// processes lose at most each other's latest record.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/node.h"
#include "engine/learner.h"
#include "image/image.h"
#include "platform/capture.h"
#include "platform/windows.h"

namespace uiscope {

struct PixelIdOrigin {
  bool ocr = false;
  bool vision = false;
  std::string app;  // the observation's scope
  int pid = 0;
  bool ax = true;  // false: pixels alone (`--sources vision`), the tree left out
};

// An element's pixels averaged down to a grid of grey cells (about
// kPatchCell pixels a side, at most kPatchMaxColumns x kPatchMaxRows): small
// enough to keep for every OCR and vision node, fine enough that a glyph
// added to or changed in a line of text shows.
struct PixelPatch {
  int columns = 0;
  int rows = 0;
  std::vector<uint8_t> grey;  // row-major mean grey level of each cell

  bool Empty() const { return columns <= 0 || rows <= 0; }
};

inline constexpr int kPatchCell = 3;
inline constexpr int kPatchMaxColumns = 48;
inline constexpr int kPatchMaxRows = 16;

// The patch of `area` (image pixels); empty when `area` is not wholly
// inside the image.
PixelPatch PatchOf(const Image& image, const Rect& area);

// Whether a patch taken now shows what `remembered` showed, for an element
// `width` pixels wide. Same: every cell within a few grey levels (rounding,
// dithering). Also the same: cells that changed only within one caret-wide
// vertical strip, by no more per row than a caret 3 px wide at full
// contrast changes (a text caret blinking). Anything else is a change.
struct PatchComparison {
  bool same = false;
  int changed_cells = 0;  // beyond the noise level
  int cells = 0;
  std::string why;  // what differed, for a note; "" when same
};
PatchComparison ComparePatches(const PixelPatch& remembered, const PixelPatch& now, int width);

// Where an OCR or vision node was when it was observed.
struct RememberedPlace {
  Node node;  // without children: id, role, name, bounds, source, app, pid, window
  // The top-level window that showed it (the topmost holding its centre,
  // from the window system) and that window's bounds then (screen pixels).
  uint64_t window = 0;
  Rect window_bounds;
  PixelPatch patch;  // of node.bounds
};

struct PixelIdRecord {
  PixelIdOrigin origin;
  // Absent when the node had no bounds or window, or its pixels could not
  // be read: then only perceiving again finds it.
  std::optional<RememberedPlace> place;
};

class PixelIds {
 public:
  // Observations remembered per display.
  static constexpr size_t kKept = 4;

  explicit PixelIds(std::string file) : file_(std::move(file)) {}

  // Records the OCR and vision nodes of `roots` (those not from
  // accessibility) as made by `origin`, with their places: the window of
  // `windows` (the window system's list, bottom to top) showing each, and
  // its patch read through `pixels` (no function: places are not kept).
  // Nothing is written without any.
  void Remember(const std::vector<Node>& roots, const PixelIdOrigin& origin,
                const RegionCapture& pixels = {}, const std::vector<WindowInfo>& windows = {});
  // The sources and scope that made `id`, and its place, from the latest
  // record holding it.
  std::optional<PixelIdRecord> Lookup(const std::string& id) const;

 private:
  std::string file_;
};

// The record file of display `display` in state directory `dir`.
std::string PixelIdsFile(const std::string& dir, const std::string& display);

// Whether `place` is still what it was: its window is listed in `windows`
// (bottom to top), visible, with the bounds it had, and topmost at the
// element's centre; and the element's pixels, captured now, are the same by
// ComparePatches. Otherwise `why` says what changed.
struct PlaceCheck {
  bool still = false;
  PatchComparison pixels;
  std::string why;
};
PlaceCheck CheckPlace(const RememberedPlace& place, const std::vector<WindowInfo>& windows,
                      ScreenCapture& capture);

}  // namespace uiscope
