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
// Anything missing (no switch, endpoint not answering, no matching target,
// a protocol error) leaves that page's AT-SPI content as it was, with a
// warning that says why.
//
// Connections to page targets are kept between observations (one
// WebSocket per page), and so is each page's last tree: while the AT-SPI
// document it replaced is the same (every node's role, name, value, states,
// bounds and object; the AT-SPI mirror keeps it current from the app's
// events), the page has not changed for anyone and its tree is served again
// without a round trip. Not thread-safe: one per Observer.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/node.h"
#include "platform/cdp/cdp_connection.h"

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
  };
  std::map<std::string, Read> reads_;
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

// Copies BackendRef, actions and key binding from the nodes of `atspi` onto
// the nodes of `cdp` that have a twin there: same role, bounds within one
// pixel. Exposed for tests.
void JoinAtspiTwins(const std::vector<Node>& atspi, std::vector<Node>& cdp);

}  // namespace uiscope
