// The Chromium / Electron specialist's part of an observation (issue 19
// part 5): the content of each page comes from the DevTools protocol
// (platform/cdp/cdp_page_tree.h) instead of Chromium's AT-SPI bridge, which
// gives a <select> the value "￼" and repeats every label as a text run.
//
// For each application whose toolkit is chromium or electron:
//   1. its endpoint: the port its command line names
//      (DevToolsPortOfProcess; `uiscope app launch` adds one);
//   2. its page targets (/json/list, type "page");
//   3. each top-level AT-SPI page document ("document web" not inside
//      another) is bound to the page target with its title (a lone document
//      to a lone page target whatever their titles);
//   4. the document's children are replaced by the page's tree, placed on
//      the screen at the AT-SPI document's origin (Chromium gives the page
//      document the viewport's extents; the page's scroll offset and device
//      pixel ratio come from Page.getLayoutMetrics and the snapshot);
//   5. each new node that has an AT-SPI twin under the old document (same
//      role, same bounds within a pixel) takes its twin's BackendRef and
//      actions, so actions by ID keep their verified accessibility path and
//      IDs stay anchored to the same objects as before (core/id_anchors.h).
// Without include_hidden a page is read for what is in view
// (PageExtent::kInView: the accessibility of the subtrees in the viewport
// only, the rest counted in a warning); with it, whole.
// Anything missing (no switch, endpoint not answering, no matching target,
// a protocol error) leaves that page's AT-SPI content as it was, with a
// warning that says why.
//
// Connections to page targets are kept between observations (one
// WebSocket per page), and so is each page's last tree: while the AT-SPI
// document it replaced is the same (every node's role, name, value, states,
// bounds and object; the AT-SPI mirror keeps it current from the app's
// events), the page has not changed for anyone and its tree is served again
// without a round trip.
//
// After a change, the page is not read whole again when the AT-SPI document
// says where the change is. Each object changed (name, value, states),
// added, removed or moved is traced to a DOM node: the one an object's CDP
// twin was built from when the page was last read (same role, same box, no
// other node there), its own or its nearest ancestor's that is in both
// readings (a text run, a new row: their parent's). Only those nodes'
// subtrees and the metrics (the snapshot too when boxes moved) are read
// again (RefreshPageData), and the page's tree is built anew from the kept
// data. A change that traces to the document itself, the document renamed,
// more than kMaxRefreshedNodes nodes, or answers that do not fit the kept
// data: the whole page is read, as the first time.
// Not thread-safe: one per Observer.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/node.h"
#include "platform/cdp/cdp_connection.h"
#include "platform/cdp/cdp_page_tree.h"

namespace uiscope {

struct CdpPagesOptions {
  bool include_hidden = false;
  int max_nodes = 20000;
  std::chrono::milliseconds timeout{2000};  // per application
};

class CdpPages {
 public:
  // Replaces the page content of the Chromium and Electron apps in `roots`
  // (see above); returns how many pages were read over the protocol.
  int Apply(std::vector<Node>& roots, const CdpPagesOptions& options,
            std::vector<std::string>& warnings);

  // How the last page read went: "full" (the page afresh: in view or
  // whole, as observed), "refresh" (only
  // what changed), "kept" (unchanged, served again); "" before any. For
  // tests and the bench.
  const std::string& last_read() const { return last_read_; }
  // Why the last read was "full" when an earlier one of the page was kept;
  // "" otherwise.
  const std::string& last_full_read_why() const { return last_full_read_why_; }

 private:
  // Reads one page into `document`; false (with a warning) when it cannot.
  // `atspi`: the document's fingerprint.
  bool ReadPage(const CdpTarget& target, Node& document, uint64_t atspi,
                const CdpPagesOptions& options, std::chrono::steady_clock::time_point deadline,
                std::vector<std::string>& warnings);

  std::map<std::string, std::unique_ptr<CdpConnection>> pages_;  // by WebSocket URL
  // The last tree read for a page (by WebSocket URL) and what it replaced.
  struct Read {
    uint64_t atspi = 0;  // fingerprint of the AT-SPI document it replaced
    bool include_hidden = false;
    int max_nodes = 0;
    std::vector<Node> children;
    std::string value;
    std::vector<std::string> warnings;
    // For a refresh after a change: the data the tree was built from, the
    // AT-SPI document's content it replaced, and the DOM node each AT-SPI
    // object stands for (by object path).
    CdpPageData data;
    std::string title;  // the AT-SPI document's name
    std::vector<Node> atspi_children;
    std::unordered_map<std::string, int64_t> dom_nodes;
    // Accessibility nodes kept at the last whole read: refreshes add the
    // new ones and keep the gone ones (unreachable), so past twice that
    // the page is read whole again.
    size_t whole_nodes = 0;
  };
  std::map<std::string, Read> reads_;
  std::string last_read_;
  std::string last_full_read_why_;
  // The page targets last listed on a DevTools port, with the fingerprints
  // of the app's AT-SPI documents then: while those are the same no page
  // was opened, closed, navigated or retitled, and the list (an HTTP round
  // trip to the browser on every observe, a mirror hit included) is reused.
  struct Listed {
    std::vector<uint64_t> documents;
    std::vector<CdpTarget> targets;
  };
  std::map<int, Listed> listed_;
};

// Types `text` into a Chromium or Electron page with the DevTools
// protocol's Input.insertText: the element that has the page's focus gets
// the text whole, whatever its characters, as an input method commits it
// (key events can only spell what the keyboard map has: XTest types other
// characters by remapping a spare keycode, which some apps read wrong).
// `target` (by ID) is a node of a page in `roots`: under a "document web"
// of an application whose command line names a DevTools port; its page
// target is the one titled as the outermost such document, or the lone
// page. The caller gives `target` the focus first and verifies the effect.
// kUnsupported when `target` is not in such a page (the caller types with
// key events then); the protocol's errors otherwise (the text may or may
// not have arrived: never typed again).
Status InsertPageText(const std::vector<Node>& roots, const Node& target, std::string_view text,
                      std::chrono::milliseconds timeout);

// Copies BackendRef, actions and key binding from the nodes of `atspi` onto
// the nodes of `cdp` that have a twin there: same role, bounds within one
// pixel. Exposed for tests.
void JoinAtspiTwins(const std::vector<Node>& atspi, std::vector<Node>& cdp);

// The DOM node each AT-SPI object of `atspi` stands for, by object path:
// the place (same role, bounds within one pixel) of exactly one node of a
// built page tree, and no other object of `atspi` at that place. Objects at
// a place shared with another are left out (their ancestors stand for
// them). Exposed for tests.
std::unordered_map<std::string, int64_t> DomNodesByPlace(const std::vector<Node>& atspi,
                                                         const std::vector<PagePlace>& places);

// Where a change between two readings of a page's AT-SPI content lies.
struct PageChange {
  std::vector<int64_t> dom_nodes;  // whose subtrees hold every change but boxes
  bool boxes_moved = false;        // an object's box changed
};

// The change from the AT-SPI content `before` (with `dom_nodes` from
// DomNodesByPlace) to `after`: each object changed, added, removed or moved
// is traced to the nearest DOM node, its own or an ancestor's, of an object
// in both readings, whose subtree then holds it. nullopt when one traces to
// the top (the change is the whole page's) or objects cannot be told apart
// (no object path, or two with one). Exposed for tests.
std::optional<PageChange> ChangeOfPage(const std::vector<Node>& before,
                                       const std::vector<Node>& after,
                                       const std::unordered_map<std::string, int64_t>& dom_nodes);

}  // namespace uiscope
