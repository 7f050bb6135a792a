#include "engine/cdp_pages.h"

#include <cstdlib>
#include <unordered_map>

#include "platform/cdp/cdp_page_tree.h"

namespace uiscope {
namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds Left(Clock::time_point deadline) {
  return std::max(std::chrono::milliseconds(1),
                  std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
}

std::string AppLabel(const Node& app) {
  return (app.name.empty() ? std::string("(no name)") : app.name) + " (pid " +
         std::to_string(app.pid) + ")";
}

bool IsPageDocument(const Node& n) {
  return n.role == Role::kDocument && n.toolkit_role == "document web";
}

// The top-level page documents of an app (not those inside another page:
// Chromium's AT-SPI gives iframes documents of their own).
void CollectDocuments(Node& n, std::vector<Node*>& out) {
  if (IsPageDocument(n)) {
    out.push_back(&n);
    return;
  }
  for (Node& c : n.children) CollectDocuments(c, out);
}

uint64_t TwinKey(Role role, int x, int y) {
  return (static_cast<uint64_t>(role) << 48) ^
         (static_cast<uint64_t>(static_cast<uint32_t>(x)) << 24) ^
         static_cast<uint64_t>(static_cast<uint32_t>(y));
}

void SetApp(std::vector<Node>& nodes, const Node& app) {
  ForEachNodeMutable(nodes, [&](Node& n, int) {
    n.app = app.name;
    n.pid = app.pid;
  });
}

// FNV-1a over what AT-SPI says of a document's subtree: any change to a
// node's role, name, value, states, bounds or object changes it.
void Mix(uint64_t& h, std::string_view bytes) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  h ^= 0xFF;
  h *= 1099511628211ull;
}
uint64_t Fingerprint(const Node& document) {
  uint64_t h = 14695981039346656037ull;
  ForEachNode(document.children, [&](const Node& n, int depth) {
    const Rect b = n.bounds.value_or(Rect{-1, -1, -1, -1});
    Mix(h, std::to_string(depth) + ' ' + std::to_string(static_cast<int>(n.role)) + ' ' +
               std::to_string(n.states.bits()) + ' ' + std::to_string(b.x) + ',' +
               std::to_string(b.y) + ',' + std::to_string(b.w) + ',' + std::to_string(b.h));
    Mix(h, n.name);
    Mix(h, n.value);
    Mix(h, n.ref.path);
  });
  Mix(h, document.name);
  if (document.bounds) {
    Mix(h, std::to_string(document.bounds->x) + ',' + std::to_string(document.bounds->y) + ',' +
               std::to_string(document.bounds->w) + ',' + std::to_string(document.bounds->h));
  }
  return h;
}

}  // namespace

void JoinAtspiTwins(const std::vector<Node>& atspi, std::vector<Node>& cdp) {
  std::unordered_multimap<uint64_t, const Node*> by_place;
  ForEachNode(atspi, [&](const Node& n, int) {
    if (n.bounds && !n.ref.empty()) by_place.emplace(TwinKey(n.role, n.bounds->x, n.bounds->y), &n);
  });
  ForEachNodeMutable(cdp, [&](Node& n, int) {
    if (!n.bounds) return;
    const Rect& b = *n.bounds;
    for (int dx = -1; dx <= 1; ++dx) {
      for (int dy = -1; dy <= 1; ++dy) {
        auto [first, last] = by_place.equal_range(TwinKey(n.role, b.x + dx, b.y + dy));
        for (auto it = first; it != last; ++it) {
          const Node& twin = *it->second;
          if (twin.role != n.role || std::abs(twin.bounds->w - b.w) > 1 ||
              std::abs(twin.bounds->h - b.h) > 1) {
            continue;
          }
          n.ref = twin.ref;
          n.actions = twin.actions;
          n.key_binding = twin.key_binding;
          return;
        }
      }
    }
  });
}

int CdpPages::Apply(std::vector<Node>& roots, const CdpPagesOptions& options,
                    std::vector<std::string>& warnings) {
  int read = 0;
  for (Node& app : roots) {
    if (app.toolkit != "chromium" && app.toolkit != "electron") continue;
    std::vector<Node*> documents;
    CollectDocuments(app, documents);
    if (documents.empty()) continue;
    const auto deadline = Clock::now() + options.timeout;
    auto port = DevToolsPortOfProcess(app.pid);
    if (!port.ok()) {
      warnings.push_back(
          AppLabel(app) +
          ": page content from AT-SPI only (selects show no value): " + port.error().message +
          "; `uiscope app launch` starts Chromium and Electron apps with one");
      continue;
    }
    std::vector<uint64_t> prints;
    for (const Node* document : documents) prints.push_back(Fingerprint(*document));
    auto memo = listed_.find(*port);
    if (memo == listed_.end() || memo->second.documents != prints) {
      auto targets = ListCdpTargets(*port, Left(deadline));
      if (!targets.ok()) {
        listed_.erase(*port);
        warnings.push_back(AppLabel(app) +
                           ": page content from AT-SPI only: " + targets.error().message);
        continue;
      }
      memo = listed_.insert_or_assign(*port, Listed{prints, std::move(targets).value()}).first;
    }
    std::vector<const CdpTarget*> pages;
    for (const CdpTarget& t : memo->second.targets) {
      if (t.type == "page" && !t.websocket_url.empty()) pages.push_back(&t);
    }
    bool stale = false;  // a page not read: the list may be out of date
    for (size_t i = 0; i < documents.size(); ++i) {
      Node* document = documents[i];
      const CdpTarget* bound = nullptr;
      for (const CdpTarget* t : pages) {
        if (t->title == document->name) {
          bound = t;
          break;
        }
      }
      if (bound == nullptr && documents.size() == 1 && pages.size() == 1) bound = pages[0];
      if (bound == nullptr) {
        warnings.push_back(AppLabel(app) + ": page \"" + document->name +
                           "\" from AT-SPI only: no DevTools page target on port " +
                           std::to_string(*port) + " has its title");
        stale = true;
        continue;
      }
      if (ReadPage(*bound, *document, prints[i], options, deadline, warnings)) {
        SetApp(document->children, app);
        ++read;
      } else {
        stale = true;
      }
    }
    if (stale) listed_.erase(*port);  // asked again next time (`pages` points into it)
  }
  return read;
}

bool CdpPages::ReadPage(const CdpTarget& target, Node& document, uint64_t atspi,
                        const CdpPagesOptions& options, Clock::time_point deadline,
                        std::vector<std::string>& warnings) {
  const std::string label = "page \"" + document.name + "\"";
  if (!document.bounds) {
    warnings.push_back(label + " from AT-SPI only: its document has no bounds to place it by");
    return false;
  }
  if (auto last = reads_.find(target.websocket_url);
      last != reads_.end() && last->second.atspi == atspi &&
      last->second.include_hidden == options.include_hidden &&
      last->second.max_nodes == options.max_nodes) {
    document.children = last->second.children;
    if (document.value.empty()) document.value = last->second.value;
    warnings.insert(warnings.end(), last->second.warnings.begin(), last->second.warnings.end());
    return true;
  }
  reads_.erase(target.websocket_url);
  // A kept connection may have been closed by the browser (page reloaded
  // into another renderer, browser restarted): one fresh try then.
  Result<CdpPageData> data = MakeError(ErrorCode::kInternal, "not read");
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto& page = pages_[target.websocket_url];
    if (!page) {
      auto opened = CdpConnection::Open(target.websocket_url, Left(deadline));
      if (!opened.ok()) {
        pages_.erase(target.websocket_url);
        data = opened.error();
        break;
      }
      page = std::move(opened).value();
    }
    data = ReadPageData(*page, Left(deadline));
    if (data.ok() || data.error().code == ErrorCode::kTimeout) break;
    pages_.erase(target.websocket_url);
  }
  if (!data.ok()) {
    if (data.error().code == ErrorCode::kTimeout) pages_.erase(target.websocket_url);
    warnings.push_back(label + " from AT-SPI only: " + data.error().message);
    return false;
  }
  PageTreeOptions tree_options;
  tree_options.origin = Point{document.bounds->x, document.bounds->y};
  tree_options.include_hidden = options.include_hidden;
  tree_options.max_nodes = options.max_nodes;
  auto tree = BuildPageTree(*data, tree_options);
  if (!tree.ok()) {
    warnings.push_back(label + " from AT-SPI only: " + tree.error().message);
    return false;
  }
  JoinAtspiTwins(document.children, tree->nodes);
  document.children = std::move(tree->nodes);
  if (document.value.empty()) document.value = tree->url;
  Read read{atspi, options.include_hidden, options.max_nodes, {}, tree->url, {}};
  if (tree->off_screen > 0) {
    read.warnings.push_back(label + ": " + std::to_string(tree->off_screen) +
                            " elements outside the visible part of the page left out (scroll "
                            "to them, or observe with include_hidden)");
  }
  if (tree->capped) {
    read.warnings.push_back(label + ": more than " + std::to_string(options.max_nodes) +
                            " elements; the rest left out");
  }
  warnings.insert(warnings.end(), read.warnings.begin(), read.warnings.end());
  read.children = document.children;
  reads_[target.websocket_url] = std::move(read);
  return true;
}

}  // namespace uiscope
