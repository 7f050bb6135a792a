// OCR text in the tree: `observe --sources ax,ocr`, and the app's main area
// when the tree leaves it blind (FindBlindMainAreas).
//
// Where accessibility is blind — a window whose tree holds no content, a
// canvas or terminal widget with nothing inside, a large container with no
// readable descendant (a grid drawn without cell objects, a PDF page, an
// icon view: IsBlindArea), a label, text or status bar leaf that exposes no
// text (gedit's "Ln 2, Col 9"), an application with no accessibility at all
// (xterm) — the area is read by OCR and its lines
// become `text` nodes with source=ocr and the OCR confidence, under the node
// that holds them. A window missing from the tree altogether gets an
// application and a window node (from the X server: title, pid, bounds;
// source=ocr, the source that put them in the tree). Lines are merged by the
// rules every pixel source follows (core/merge.h): a line matching an
// element confirms it (source=merged), an unnamed element whose bounds hold
// exactly one line takes it as its name, a line repeating what an element
// already shows is dropped, and the rest go under the smallest container
// holding them. Password fields are never named and their pixels are masked
// before OCR.
//
// New nodes get IDs like every other node; every existing node keeps its ID.
// Not thread-safe: call under the workspace lease, on the snapshot the
// observation returned.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/node.h"
#include "core/result.h"
#include "engine/observe.h"
#include "engine/privacy.h"
#include "engine/read_text.h"
#include "engine/workspace.h"
#include "ocr/ocr_types.h"
#include "platform/windows.h"

namespace uiscope {

// A part of the screen to read for the tree.
struct OcrTarget {
  Rect bounds;  // screen pixels
  // Index path from snapshot.roots to the node that will hold the text
  // (a window, canvas or terminal); empty for a window missing from the tree.
  std::vector<size_t> path;
  // A window missing from the tree: its X window, title, pid and application
  // name (its WM_CLASS instance, else the process name, "" when unknown).
  uint64_t x_window = 0;
  std::string title;
  int pid = 0;
  std::string app;
  // The bounds of the top-level window of the tree holding the target;
  // empty for a window missing from the tree.
  Rect window;
  // A container the tree leaves empty (IsBlindArea), not a window, canvas,
  // terminal or text leaf.
  bool blind_area = false;
};

// A blind area is at least this large (screen pixels): smaller empty boxes
// are spacing, icon strips and separators, not content a person reads.
inline constexpr int kMinBlindAreaWidth = 120;
inline constexpr int kMinBlindAreaHeight = 60;

// A blind area read without being asked (FindBlindMainAreas) covers at least
// this share of its window: the app's main area (a sheet's grid, a viewer's
// page, an editor's buffer), so an app whose tree shows its content pays
// nothing for OCR.
inline constexpr double kMainAreaShare = 0.4;

// Whether `n` is a large showing container of the accessibility tree with no
// readable descendant: a panel, scroll pane, document, table, list, tree,
// tab panel, image or unknown widget at least kMinBlindAreaWidth x
// kMinBlindAreaHeight, without a value, whose subtree holds no name or
// value. What a person sees there — a grid drawn without cell objects, a
// PDF page, an icon view, an editor buffer — only the pixels can tell.
bool IsBlindArea(const Node& n);

// Whether one of `top_levels` (X client windows) shows the tree's window at
// `window` (IoU >= kSameWindowIoU with its AppArea: the client area, or the
// whole frame of a window found from its title bar): an app may
// list windows X never maps (Chromium's two bubble windows, "showing", over
// its main window), whose pixels are another window's. True when there is
// no listing.
bool ShownByX(const Rect& window, const std::vector<WindowInfo>& top_levels);

// The targets of `snapshot`: windows without accessible content, empty
// canvas and terminal nodes, blind areas (IsBlindArea) (not in a top-level window X does not show:
// ShownByX), and the `top_levels` (X client windows) that match no window
// of the tree, restricted to `scope`'s app / pid.
std::vector<OcrTarget> FindOcrTargets(const Snapshot& snapshot,
                                      const std::vector<WindowInfo>& top_levels,
                                      const ObserveRequest& scope);

// The targets of FindOcrTargets worth reading when the caller named no
// sources: blind areas (IsBlindArea) covering at least kMainAreaShare of
// their window. Empty for an app whose tree shows its content.
std::vector<OcrTarget> FindBlindMainAreas(const Snapshot& snapshot,
                                          const std::vector<WindowInfo>& top_levels,
                                          const ObserveRequest& scope);

// The parts of `target` that windows stacked above it (`stacking`, bottom
// to top, as WindowSystem::ListWindows) cover: what is seen there belongs to
// them, not to it. Empty when the target's X window cannot be told (no
// top-level overlaps it enough). Masked before OCR and vision.
std::vector<Rect> CoveredParts(const OcrTarget& target, const std::vector<WindowInfo>& tops,
                               const std::vector<uint64_t>& stacking);

// The pixels of OCR and vision targets, each captured with what must not be
// read there listed for blanking: the password fields of the snapshot (and
// `also_masked`), the parts of the target other windows cover, and the
// windows of deny-listed apps (engine/privacy.h). One per pass over the
// targets: the desktop's windows are listed once, when it is opened.
class TargetPixels {
 public:
  // Unsupported on a desktop without a screen, saying that source `source`
  // ("ocr", "vision") needs one; the window listing's errors.
  static Result<TargetPixels> Open(const Snapshot& snapshot, Workspace::Lease& lease,
                                   const std::vector<Rect>& also_masked, std::string_view source);

  // The desktop's top-level windows, bottom to top, and what the observer
  // hides among them.
  const std::vector<WindowInfo>& tops() const { return tops_; }
  const HiddenWindows& hidden() const { return hidden_; }

  struct Shot {
    Rect region;                // the target's bounds on the screen
    CapturedFrame frame;        // of `region`
    std::vector<Rect> masks;    // screen pixels to blank before reading
    std::vector<Rect> covered;  // the parts other windows cover (among `masks`)
  };
  // The pixels of `target`: nullopt when it lies off the screen, or its
  // capture failed (a line in `warnings` says why); an error when the
  // desktop went away.
  Result<std::optional<Shot>> Capture(const OcrTarget& target, std::vector<std::string>& warnings);

 private:
  TargetPixels() = default;

  Workspace::Lease* lease_ = nullptr;
  std::string source_;
  Rect screen_;
  std::vector<Rect> passwords_;
  std::vector<WindowInfo> tops_;
  std::vector<uint64_t> stacking_;
  HiddenWindows hidden_;
  std::vector<Rect> denied_;
};

struct OcrTargetText {
  OcrTarget target;
  ocr::OcrResult text;  // lines and words in screen pixels
};

// The node at index path `path` from `roots`; null when the path leads
// nowhere.
Node* NodeAtPath(std::vector<Node>& roots, const std::vector<size_t>& path);
const Node* NodeAtPath(const std::vector<Node>& roots, const std::vector<size_t>& path);

// The target that reads node `n` (a window, canvas or terminal) found at
// `path`: its bounds, pid, app and name as the title.
OcrTarget TargetOf(const Node& n, const std::vector<size_t>& path);

// Adds an application and a window node for a window missing from the tree,
// at the end of snapshot.roots; returns the window's index path. Both come
// from the window system's listing, whichever pixel source fills the window,
// so they are Source::kX11 like the window nodes observe adds: a window that
// was mapped between observe's listing and the pixel pass's must not change
// its source (and its node's look) from one call to the next. IDs are left
// for AssignIds.
std::vector<size_t> AddMissingWindow(Snapshot& snapshot, const OcrTarget& target);

struct OcrMergeStats {
  int ocr_nodes = 0;     // nodes added (text lines, and windows missing from the tree)
  int merged_nodes = 0;  // accessible nodes OCR confirmed or named
};

// Adds the text of each target to `snapshot` (see the top of this file),
// assigns IDs to the new nodes (existing IDs are kept) and adds the counts
// to snapshot.stats.
OcrMergeStats MergeOcrText(Snapshot& snapshot, const std::vector<OcrTargetText>& texts);

struct OcrSourceResult {
  OcrMergeStats stats;
  int targets = 0;       // windows and widgets read
  int regions_read = 0;  // text lines recognised (the rest came from the cache)
  int regions_reused = 0;
  double ocr_ms = 0;  // capture and OCR of every target
  std::vector<std::string> warnings;
};

// Everything `observe --sources ax,ocr` needs after the observation: finds
// the targets, captures each through the lease's display, reads it with
// `reader` (password fields of `snapshot` masked) and merges. Unsupported
// on a desktop without a screen (a fake one). The lease stays held: call it
// before formatting, with the lease the observation was made under.
Result<OcrSourceResult> AddOcrSource(Snapshot& snapshot, Workspace::Lease& lease,
                                     TextReader& reader, const ObserveRequest& scope,
                                     const ocr::OcrOptions& options = {});
// The same with the targets already chosen (FindOcrTargets on the snapshot
// as observed, before other sources added to it), and `also_masked` (screen
// pixels) blanked like password fields: those of a tree left out.
Result<OcrSourceResult> AddOcrSource(Snapshot& snapshot, Workspace::Lease& lease,
                                     TextReader& reader, std::vector<OcrTarget> targets,
                                     const ocr::OcrOptions& options = {},
                                     const std::vector<Rect>& also_masked = {});

}  // namespace uiscope
