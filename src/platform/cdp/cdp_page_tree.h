// A page's content as uiscope Nodes, from the DevTools protocol (issue 19
// part 5): what Chromium's AT-SPI bridge reads badly (a <select> whose value
// is "￼", labels repeated as text runs, a page 2.6x the size of Playwright's
// snapshot of it), read exactly from the page's own accessibility tree.
//
// Two round trips for the whole page, whatever its size (ReadPageData with
// PageExtent::kWhole):
//   1. Accessibility.getFullAXTree (roles, names, values, states; the
//      chosen option's text as a select's value, link targets as "url"),
//      DOMSnapshot.captureSnapshot (layout boxes of every node, iframes'
//      documents, input types) and Page.getLayoutMetrics (scroll, device
//      pixel ratio), pipelined;
//   2. Accessibility.getFullAXTree of each child frame the snapshot shows
//      (same-process iframes), pipelined.
// The browser's cost is the accessibility tree: Chromium serialises every
// node with its name sources (1.9 MB of JSON, 80-140 ms for a 2,000-element
// page), against 14-30 ms for the snapshot. So what an observation shows
// by default, the visible part, is read with two round trips that ask for
// the accessibility of what is in view only (PageExtent::kInView):
//   1. the snapshot and the metrics, pipelined; from the DOM's boxes,
//      PlanInViewRead picks the subtrees wholly outside the viewport (left
//      out, their nodes counted) and splits the rest into the subtrees
//      to read whole (Accessibility.queryAXTree each) and the ancestors
//      between them and the document (Accessibility.getPartialAXTree each,
//      the node alone), weighing the nodes answered against the requests;
//   2. those requests and the trees of the child frames in view, pipelined;
//      JoinInViewTree joins the answers into one tree and checks it holds
//      together: every child an answered node names is answered or left
//      out. Nodes the snapshot does not show (the slots of a <details>'
//      user-agent shadow root, generated content) are asked for by ID, a
//      round trip a level, at most 3. Where Chromium's tree still does not
//      follow the DOM's (aria-owns) the page is read whole, one more round
//      trip.
// Both reads build the same tree (tested on recorded, random and real
// pages): a node without a box of its own is placed by its DOM subtree's
// boxes, or its nearest DOM ancestor's, as the plan decides what is out.
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
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/geometry.h"
#include "core/node.h"
#include "core/result.h"
#include "platform/cdp/cdp_connection.h"

namespace uiscope {

// How much of a page's accessibility ReadPageData reads.
enum class PageExtent {
  kWhole,   // every node: for include_hidden
  kInView,  // what is in the viewport; the rest left out and counted
};

struct CdpPageData {
  nlohmann::json ax;        // the main frame's accessibility nodes ({"nodes": [...]})
  nlohmann::json snapshot;  // DOMSnapshot.captureSnapshot
  nlohmann::json metrics;   // Page.getLayoutMetrics
  // Accessibility.getFullAXTree of each child frame, by frame ID (of each
  // in view, for kInView).
  std::vector<std::pair<std::string, nlohmann::json>> frames;
  // What was read: kInView only when the page was read in view (a page
  // wholly in view, or whose tree did not hold together, is read whole).
  PageExtent extent = PageExtent::kWhole;
  // kInView: the main frame's DOM nodes (DOM.BackendNodeId) whose subtrees
  // were left out as wholly outside the viewport, and the nodes with a
  // layout box they hold (elements and text runs: what a whole read counts
  // in PageTree::off_screen for them).
  std::vector<int64_t> left_out;
  int left_out_boxed = 0;
  // Why a page asked for in view was read whole; "" otherwise.
  std::string whole_why;
};

// The round trips above; errors name the endpoint.
Result<CdpPageData> ReadPageData(CdpConnection& page, std::chrono::milliseconds timeout,
                                 PageExtent extent = PageExtent::kWhole);

// A read of what is in view (PageExtent::kInView): which DOM nodes of the
// main frame to ask for, by backend node ID.
struct InViewPlan {
  std::vector<int64_t> ancestors;       // each alone (getPartialAXTree); the document first
  std::vector<int64_t> subtrees;        // each with its subtree (queryAXTree)
  std::vector<int64_t> left_out;        // wholly outside the viewport (or not shown)
  std::vector<int64_t> left_out_nodes;  // those and every node under them
  int left_out_boxed = 0;               // nodes with a box under left_out
};

// The plan for `snapshot` and `metrics` (DOMSnapshot.captureSnapshot and
// Page.getLayoutMetrics of one page): each subtree in view is read whole or
// descended into, whichever answers fewer nodes, counting `request_cost`
// nodes for each request (the DOM's node counts standing for the
// accessibility's). A subtree that crosses into a shadow root or through a
// <slot> is always descended into: the snapshot follows the flat tree,
// queryAXTree the light DOM. nullopt when that does not save a quarter of the whole
// tree (a page mostly in view: read whole in one request) or would take
// more than max_requests requests.
std::optional<InViewPlan> PlanInViewRead(const nlohmann::json& snapshot,
                                         const nlohmann::json& metrics, int request_cost = 16,
                                         size_t max_requests = 400);

// Joining the answers to a plan's requests.
struct InViewJoin {
  // The main frame's tree ({"nodes": [...]}, the document's node first),
  // when it holds together.
  nlohmann::json tree;
  // Otherwise the nodes named as children that are neither read nor left
  // out, by their IDs (DOM node IDs: nodes the DOM snapshot does not show,
  // such as a <details>' slots or generated content). Asked for alone
  // (getPartialAXTree), a level a round trip, and joined again with those
  // answers as `relatives`.
  std::vector<int64_t> wanting;
};

// The answers to a plan's requests, in its order, joined; kStale (saying
// which node) when they cannot hold together: no root node, a read subtree
// not under its DOM parent's accessibility node (aria-owns), a missing
// child with no DOM node ID to ask by. A missing child is left
// out when it is in left_out_nodes (the accessibility tree skips DOM nodes
// without a node of their own, so a child may be a left-out node's
// descendant) or a text run's (inline text boxes, which no tree keeps).
Result<InViewJoin> JoinInViewTree(const InViewPlan& plan,
                                  const std::vector<nlohmann::json>& ancestors,
                                  const std::vector<nlohmann::json>& subtrees,
                                  const std::vector<nlohmann::json>& relatives = {});

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
// Data read in view (PageExtent::kInView) stays in view: kStale when the
// metrics changed (scrolled, resized, the content grew) or, with a new
// snapshot, a left-out subtree came into view.
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
  std::vector<Node> nodes;        // the page's content: children of its document
  std::vector<PagePlace> places;  // of every node built with a box and a DOM node
  std::string title;
  std::string url;
  Rect viewport;        // screen pixels
  double scale = 1.0;   // device pixels per CSS pixel
  int off_screen = 0;   // nodes left out wholly outside the viewport
  bool capped = false;  // max_nodes reached: the rest is left out
};

// InvalidArgument when the data is not what the protocol answers (no nodes,
// no root) or include_hidden asks for more than was read (PageExtent::kInView); anything odd inside
// (unknown roles, missing fields, dangling or cyclic child IDs) is skipped, never trusted.
Result<PageTree> BuildPageTree(const CdpPageData& data, const PageTreeOptions& options);

// The uiscope role of a CDP accessibility role ("button", "textbox",
// "StaticText", ...); kUnknown for roles that are left out or unknown.
Role RoleFromCdp(std::string_view cdp_role, bool multi_line);

}  // namespace uiscope
