// A page's content as uiscope Nodes, from the DevTools protocol (issue 19
// part 5): what Chromium's AT-SPI bridge reads badly (a <select> whose value
// is "￼", labels repeated as text runs, a page 2.6x the size of Playwright's
// snapshot of it), read exactly from the page's own accessibility tree.
//
// Two round trips for the whole page, whatever its size (ReadPageData):
//   1. Accessibility.getFullAXTree (roles, names, values, states; the
//      chosen option's text as a select's value, link targets as "url"),
//      DOMSnapshot.captureSnapshot (layout boxes of every node, iframes'
//      documents, input types) and Page.getLayoutMetrics (scroll, device
//      pixel ratio), pipelined;
//   2. Accessibility.getFullAXTree of each child frame the snapshot shows
//      (same-process iframes), pipelined.
// BuildPageTree is pure: it turns that data into Nodes, unit-tested with a
// recorded page (tests/fixtures/cdp/).
//
// Coordinates: the snapshot's layout boxes are CSS pixels of each
// document (not moved by scrolling); a box goes to the screen as
//   origin + (box - document scroll + iframe content offset) * device ratio
// with `origin` the screen position of the page's viewport, which the
// caller takes from the AT-SPI document frame of the page (its extents are
// the viewport's). Iframe content offsets: the iframe element's box, inset
// by half the difference between it and its document's box (its border and
// padding, taken as equal on both sides).
//
// What is left out, and said: ignored nodes (their children take their
// place), inline text boxes, unnamed layout containers (generic, none,
// rowgroup, unnamed landmarks: children take their place), text runs that
// repeat their parent's name, labels that repeat the name of the control
// next to them, and — unless include_hidden — nodes wholly outside the
// viewport (counted in off_screen, for a warning). Password fields never
// carry a value.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/geometry.h"
#include "core/node.h"
#include "core/result.h"
#include "platform/cdp/cdp_connection.h"

namespace uiscope {

struct CdpPageData {
  nlohmann::json ax;        // Accessibility.getFullAXTree of the main frame
  nlohmann::json snapshot;  // DOMSnapshot.captureSnapshot
  nlohmann::json metrics;   // Page.getLayoutMetrics
  // Accessibility.getFullAXTree of each child frame, by frame ID.
  std::vector<std::pair<std::string, nlohmann::json>> frames;
};

// The two pipelined round trips above; errors name the endpoint.
Result<CdpPageData> ReadPageData(CdpConnection& page, std::chrono::milliseconds timeout);

// Brings `data` up to date after a change confined to the DOM nodes
// `backend_ids` (DOM.BackendNodeId) and their subtrees, in one pipelined
// round trip instead of the whole page's tree: the accessibility subtree of
// each (Accessibility.queryAXTree on the node, which answers the node and
// every node under it: a few milliseconds, where getFullAXTree takes
// 130-160 ms for a 2,000-element page) and the layout metrics. Each
// answered subtree replaces the nodes of the same IDs in the frame that
// holds them.
// Boxes: the snapshot (20-30 ms of the browser's time for such a page) is
// taken again when `boxes_moved` (the caller saw a box move), the metrics
// changed (scrolled, resized, the content grew) or an answered node whose
// box is used is not in the kept snapshot (a new text run); a second round
// trip in the last two cases. Otherwise the kept boxes still hold.
// kStale, with `data` then unusable, when the answers do not fit what is
// kept — a node the kept trees do not hold, a child of an answered node
// that the answer does not hold, a subtree hung under another parent,
// frames added or removed: the caller reads the whole page (ReadPageData)
// then, never a tree half old.
Status RefreshPageData(CdpConnection& page, CdpPageData& data,
                       const std::vector<int64_t>& backend_ids, bool boxes_moved,
                       std::chrono::milliseconds timeout);

struct PageTreeOptions {
  Point origin;  // screen pixels of the viewport's top-left corner
  bool include_hidden = false;
  int max_nodes = 20000;
  int max_depth = 256;
};

// Where a node of a built tree came from: its DOM node, by the role and
// screen box it was given, so that the nodes of another tree of the page
// (AT-SPI's) can be tied to DOM nodes by place, as JoinAtspiTwins ties them
// to these nodes (engine/cdp_pages.h).
struct PagePlace {
  Role role = Role::kUnknown;
  Rect bounds;
  int64_t backend = -1;  // DOM.BackendNodeId
};

struct PageTree {
  std::vector<Node> nodes;  // the page's content: children of its document
  std::vector<PagePlace> places;  // of every node built with a box and a DOM node
  std::string title;
  std::string url;
  Rect viewport;        // screen pixels
  double scale = 1.0;   // device pixels per CSS pixel
  int off_screen = 0;   // nodes left out wholly outside the viewport
  bool capped = false;  // max_nodes reached: the rest is left out
};

// InvalidArgument when the data is not what the protocol answers (no nodes,
// no root); anything odd inside (unknown roles, missing fields, dangling or
// cyclic child IDs) is skipped, never trusted.
Result<PageTree> BuildPageTree(const CdpPageData& data, const PageTreeOptions& options);

// The uiscope role of a CDP accessibility role ("button", "textbox",
// "StaticText", ...); kUnknown for roles that are left out or unknown.
Role RoleFromCdp(std::string_view cdp_role, bool multi_line);

}  // namespace uiscope
