// Merging boxes found in the pixels (vision detections, OCR lines) into the
// accessibility tree (DESIGN §5.5, seed 003). Pure: plain nodes and
// rectangles in, the same tree with fewer blind spots out.
//
// The rules, in the order they are applied to the detections of one scope
// (a window, or a widget the tree is blind inside):
//
//  1. Match. Detections are paired one-to-one with the scope's *elements* —
//     accessible nodes with bounds that are leaves, or interactive (a list
//     row holding a label and a button is still one thing to click) — in
//     decreasing order of IoU. A pair with IoU >= `match_iou` (0.5) makes the
//     element `merged`: its name, when empty, and its value, when empty, are
//     filled from the detection (never for password fields; the name only
//     when it was read as text, `min_name_confidence`), and it takes the
//     detection's confidence when something was filled (the confidence then
//     says how far to trust the filled text); otherwise it keeps its own.
//  2. Duplicates. A detection with IoU >= `match_iou` against an element
//     already paired is the same thing seen twice, and is dropped. So is
//     a vision detection (a thing to act on, not text) that lies mostly
//     (`covered_share` of its area) on accessible elements without being
//     inside one: widgets do not overlap, so a box that is mostly other
//     widgets is those widgets seen askew (title-bar buttons found a few
//     pixels off, two of them as one box) or together (a menu bar taken for
//     one button). So is a vision detection holding half or more of an
//     interactive element, or lying half or more on one: that widget seen
//     with its surroundings (a tab with the gap beside it, a check box
//     with its whole allocation). A text line is not dropped so: its words
//     beyond the elements are text the tree lacks.
//  3. Parts. A detection lying mostly inside an element (`inside_share` of
//     its area) is a part of it: the box of a check box, the text of a
//     button. An unnamed element holding exactly one named part takes that
//     name (merged, as in 1). Parts that add nothing — no text, text not
//     read as text (`min_name_confidence`), or text the element already
//     shows in its name or value — are dropped, and so are vision parts
//     of an interactive element that is not a row or cell (a combo box's
//     arrow, a spin button's steppers: acting on them is acting on the
//     element); parts with other text (the lines of an unnamed text area,
//     a button painted in a list row) stay, as children of the element.
//  4. Orphans. Every other detection becomes a node of its own (source
//     vision or ocr, its confidence) under the smallest *container* of the
//     scope holding its centre — any node with bounds that is not an
//     element: a window, a panel, a list, a canvas; the innermost of equal
//     size — or under the scope
//     itself when none does. New children are appended after the existing
//     ones, in reading order (top to bottom, then left to right).
//
// Accessible nodes are never removed or moved, so their IDs survive; call
// AssignIds(roots, &before) afterwards to give the new nodes stable IDs.
//
// All functions are pure and thread-compatible.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/geometry.h"
#include "core/node.h"

namespace uiscope {

// A box found in the pixels.
struct Detection {
  Rect bounds;                 // screen pixels
  Role role = Role::kUnknown;  // the detector's guess (kText for an OCR line)
  std::string name;            // label: OCR text inside or beside the box ("" = none)
  // How surely `name` is text (for OCR: ocr::TextConfidence; 1 for a name
  // a detector read itself): an element's empty name is filled only from
  // a name read at `MergeOptions::min_name_confidence` or more.
  float name_confidence = 1;
  std::string value;                // an estimated value ("" = none)
  float confidence = 0;             // 0..1
  Source source = Source::kVision;  // kVision or kOcr
};

struct MergeOptions {
  double match_iou = 0.5;      // rule 1 and 2
  double inside_share = 0.8;   // rule 3: share of a detection's area inside an element
  double covered_share = 0.5;  // rule 2: share of a vision detection's area on elements
  // Rules 1 and 3: a name read less surely than this is a symbol taken for
  // letters and names nothing (ocr/ocr_types.h, TextConfidence: π read as
  // "Tl" at 0.64).
  float min_name_confidence = 0.7f;
};

struct MergeStats {
  int matched = 0;     // detections paired with an element (rule 1)
  int merged = 0;      // elements that became `merged` (were not before)
  int named = 0;       // elements whose empty name was filled (rules 1 and 3)
  int added = 0;       // new nodes (rules 3 and 4)
  int duplicates = 0;  // detections dropped as duplicates or empty parts (rules 2 and 3)
};

// What MergeDetections would do with one detection.
enum class Placement {
  kMatched,    // paired with an element (rule 1)
  kDuplicate,  // dropped: another view of a paired element (rule 2)
  kPart,       // inside an element (rule 3): names it, is dropped, or becomes its child
  kOrphan,     // a new node under a container (rule 4)
};

struct PlannedDetection {
  Placement placement = Placement::kOrphan;
  // The element matched or holding the part, as an index path from `scope`
  // (empty for an orphan).
  std::vector<size_t> element;
};

// Plans the merge of `detections` into `scope` without changing anything:
// one entry per detection, in order. Lets a caller label (OCR) only what
// will need a label.
std::vector<PlannedDetection> PlanMerge(const Node& scope, std::span<const Detection> detections,
                                        const MergeOptions& options = {});

// Merges `detections` into the subtree of `scope` by the rules above. New
// nodes inherit app and pid from `scope`; Node::id and Node::window are left
// for AssignIds.
MergeStats MergeDetections(Node& scope, std::span<const Detection> detections,
                           const MergeOptions& options = {});

// True for nodes rule 1 can pair with: a node with bounds that is
// interactive, or a leaf that is not a container (see IsContainerRole).
bool IsMergeElement(const Node& node);

// Roles that hold other things even when the tree shows nothing inside:
// windows, panels, lists, canvases, terminals, documents, ... A leaf with
// one of these roles is where the tree is blind, not an element.
bool IsContainerRole(Role role);

// Case-insensitive (ASCII) test of whether `text` is `in`'s name or value,
// or a word sequence of it; the test of rule 3's "text the element already
// shows".
bool ShowsText(const Node& in, std::string_view text);

}  // namespace uiscope
