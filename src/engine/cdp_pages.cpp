#include "engine/cdp_pages.h"

#include <algorithm>
#include <cstdlib>
#include <unordered_map>

#include "core/keys.h"
#include "platform/cdp/cdp_page_tree.h"

namespace uiscope {
namespace {

using Clock = std::chrono::steady_clock;

// More changed nodes than this: the whole page is read (as many subtree
// queries cost about what one whole tree does).
constexpr size_t kMaxRefreshedNodes = 64;

std::chrono::milliseconds Left(Clock::time_point deadline) {
  return std::max(std::chrono::milliseconds(1),
                  std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
}

std::string AppLabel(const Node& app) {
  return (app.name.empty() ? std::string("(no name)") : app.name) + " (pid " +
         std::to_string(app.pid) + ")";
}

// The top-level page documents of an app (not those inside another page:
// Chromium's AT-SPI gives iframes documents of their own).
template <typename N>  // Node or const Node
void CollectDocuments(N& n, std::vector<N*>& out) {
  if (IsWebPageDocument(n)) {
    out.push_back(&n);
    return;
  }
  for (N& c : n.children) CollectDocuments(c, out);
}

// The page target showing the document titled `title`: the first page
// with that title, else the only page when the app shows one document
// (`one_document`).
const CdpTarget* BindPageTarget(const std::vector<CdpTarget>& targets, std::string_view title,
                                bool one_document) {
  const CdpTarget* only = nullptr;
  int pages = 0;
  for (const CdpTarget& t : targets) {
    if (t.type != "page" || t.websocket_url.empty()) continue;
    if (t.title == title) return &t;
    only = &t;
    ++pages;
  }
  return one_document && pages == 1 ? only : nullptr;
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

// Accessibility nodes held by a page's data, every frame's.
size_t AxNodes(const CdpPageData& data) {
  auto count = [](const nlohmann::json& ax) {
    return ax.is_object() && ax.contains("nodes") ? ax["nodes"].size() : 0;
  };
  size_t n = count(data.ax);
  for (const auto& [frame, ax] : data.frames) n += count(ax);
  return n;
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

namespace {

// The ancestors of the node with ID `id` in `nodes`, outermost first, and
// the node itself last; false when it is not there.
bool PathTo(const std::vector<Node>& nodes, std::string_view id, std::vector<const Node*>& path) {
  for (const Node& n : nodes) {
    path.push_back(&n);
    if (n.id == id || PathTo(n.children, id, path)) return true;
    path.pop_back();
  }
  return false;
}

}  // namespace

Status InsertPageText(const std::vector<Node>& roots, const Node& target, std::string_view text,
                      std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  if (auto decoded = DecodeUtf8(text); !decoded.ok()) return decoded.error();
  std::vector<const Node*> path;
  if (target.id.empty() || !PathTo(roots, target.id, path)) {
    return MakeError(ErrorCode::kUnsupported, "the element is not in the observed tree");
  }
  const Node* app = nullptr;
  const Node* page = nullptr;
  for (const Node* n : path) {
    if (n->role == Role::kApplication && app == nullptr) app = n;
    if (IsWebPageDocument(*n) && page == nullptr) page = n;
  }
  if (app == nullptr || page == nullptr || page == path.back() ||
      (app->toolkit != "chromium" && app->toolkit != "electron")) {
    return MakeError(ErrorCode::kUnsupported, "the element is not in a Chromium or Electron page");
  }
  auto port = DevToolsPortOfProcess(app->pid);
  if (!port.ok()) return MakeError(ErrorCode::kUnsupported, port.error().message);
  auto targets = ListCdpTargets(*port, Left(deadline));
  if (!targets.ok()) return targets.error();
  std::vector<const Node*> documents;
  CollectDocuments(*app, documents);
  const CdpTarget* bound = BindPageTarget(*targets, page->name, documents.size() == 1);
  if (bound == nullptr) {
    return MakeError(ErrorCode::kUnsupported, "no DevTools page target on port " +
                                                  std::to_string(*port) + " has the title \"" +
                                                  page->name + "\"");
  }
  auto connection = CdpConnection::Open(bound->websocket_url, Left(deadline));
  if (!connection.ok()) return connection.error();
  auto inserted =
      (*connection)->Call("Input.insertText", {{"text", std::string(text)}}, Left(deadline));
  if (!inserted.ok()) return inserted.error();
  return OkStatus();
}

std::unordered_map<std::string, int64_t> DomNodesByPlace(const std::vector<Node>& atspi,
                                                         const std::vector<PagePlace>& places) {
  std::unordered_multimap<uint64_t, const PagePlace*> by_place;
  for (const PagePlace& p : places) by_place.emplace(TwinKey(p.role, p.bounds.x, p.bounds.y), &p);
  std::unordered_map<std::string, int64_t> found;
  std::unordered_map<int64_t, int> claimed;  // DOM node -> AT-SPI objects at its place
  ForEachNode(atspi, [&](const Node& n, int) {
    if (!n.bounds || n.ref.path.empty()) return;
    const Rect& b = *n.bounds;
    int64_t only = -1;
    bool ambiguous = false;
    for (int dx = -1; dx <= 1 && !ambiguous; ++dx) {
      for (int dy = -1; dy <= 1 && !ambiguous; ++dy) {
        auto [first, last] = by_place.equal_range(TwinKey(n.role, b.x + dx, b.y + dy));
        for (auto it = first; it != last; ++it) {
          const PagePlace& p = *it->second;
          if (p.role != n.role || p.bounds.x != b.x + dx || p.bounds.y != b.y + dy ||
              std::abs(p.bounds.w - b.w) > 1 || std::abs(p.bounds.h - b.h) > 1) {
            continue;
          }
          if (only >= 0 && only != p.backend) ambiguous = true;
          only = p.backend;
        }
      }
    }
    if (ambiguous || only < 0) return;
    found.emplace(n.ref.path, only);
    ++claimed[only];
  });
  std::erase_if(found, [&](const auto& entry) { return claimed[entry.second] > 1; });
  return found;
}

namespace {

// An AT-SPI object's place in its tree: its parent's object path ("" for
// the top) and its index among the parent's children.
struct Placed {
  std::string parent;
  size_t index = 0;
  const Node* node = nullptr;
};

// Every object of `nodes` by object path; false when one has no path or
// two share one (nothing can be told apart then).
bool IndexByPath(const std::vector<Node>& nodes, const std::string& parent,
                 std::unordered_map<std::string, Placed>& out) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    if (n.ref.path.empty() || !out.emplace(n.ref.path, Placed{parent, i, &n}).second) return false;
    if (!IndexByPath(n.children, n.ref.path, out)) return false;
  }
  return true;
}

}  // namespace

std::optional<PageChange> ChangeOfPage(const std::vector<Node>& before,
                                       const std::vector<Node>& after,
                                       const std::unordered_map<std::string, int64_t>& dom_nodes) {
  std::unordered_map<std::string, Placed> old_objects, new_objects;
  if (!IndexByPath(before, "", old_objects) || !IndexByPath(after, "", new_objects)) {
    return std::nullopt;
  }
  PageChange change;
  // Notes the DOM node whose subtree holds a change at `at` (an object of
  // `objects`): its own, or that of its nearest ancestor with one that is
  // in both readings. False at the top: the change is the whole page's.
  auto trace = [&](std::string at, const std::unordered_map<std::string, Placed>& objects) {
    while (!at.empty()) {
      if (auto dom = dom_nodes.find(at);
          dom != dom_nodes.end() && old_objects.contains(at) && new_objects.contains(at)) {
        change.dom_nodes.push_back(dom->second);
        return true;
      }
      auto placed = objects.find(at);
      if (placed == objects.end()) return false;
      at = placed->second.parent;
    }
    return false;
  };
  for (const auto& [path, now] : new_objects) {
    auto was = old_objects.find(path);
    if (was == old_objects.end()) {  // added: its parent's subtree holds it
      if (!trace(now.parent, new_objects)) return std::nullopt;
      continue;
    }
    if (was->second.parent != now.parent || was->second.index != now.index) {
      // Moved: both parents' children changed.
      if (!trace(now.parent, new_objects) || !trace(was->second.parent, old_objects)) {
        return std::nullopt;
      }
      continue;
    }
    const Node& a = *was->second.node;
    const Node& b = *now.node;
    if (a.bounds != b.bounds) change.boxes_moved = true;
    if (a.role == b.role && a.name == b.name && a.value == b.value &&
        a.description == b.description && a.states == b.states) {
      continue;
    }
    if (!trace(path, new_objects)) return std::nullopt;
  }
  for (const auto& [path, was] : old_objects) {  // removed: from their parent's subtree
    if (!new_objects.contains(path) && !trace(was.parent, old_objects)) return std::nullopt;
  }
  std::vector<int64_t>& changed = change.dom_nodes;
  std::sort(changed.begin(), changed.end());
  changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
  return change;
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
    bool stale = false;  // a page not read: the list may be out of date
    for (size_t i = 0; i < documents.size(); ++i) {
      Node* document = documents[i];
      const CdpTarget* bound =
          BindPageTarget(memo->second.targets, document->name, documents.size() == 1);
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
    if (stale) listed_.erase(*port);  // asked again next time
  }
  return read;
}

bool CdpPages::ReadPage(const CdpTarget& target, Node& document, uint64_t atspi,
                        const CdpPagesOptions& options, Clock::time_point deadline,
                        std::vector<std::string>& warnings) {
  const std::string label = "page \"" + document.name + "\"";
  last_full_read_why_.clear();
  if (!document.bounds) {
    warnings.push_back(label + " from AT-SPI only: its document has no bounds to place it by");
    return false;
  }
  auto last = reads_.find(target.websocket_url);
  const bool same_options = last != reads_.end() &&
                            last->second.include_hidden == options.include_hidden &&
                            last->second.max_nodes == options.max_nodes;
  if (same_options && last->second.atspi == atspi) {
    document.children = last->second.children;
    if (document.value.empty()) document.value = last->second.value;
    warnings.insert(warnings.end(), last->second.warnings.begin(), last->second.warnings.end());
    last_read_ = "kept";
    return true;
  }
  // Only what changed, when the AT-SPI document says where that is.
  Result<CdpPageData> data = MakeError(ErrorCode::kInternal, "not read");
  bool refreshed = false;
  const size_t whole_nodes = same_options ? last->second.whole_nodes : 0;
  if (last == reads_.end()) {
    // The first read of this page: nothing to refresh.
  } else if (!same_options) {
    last_full_read_why_ = "observed with other options";
  } else if (last->second.title != document.name) {
    last_full_read_why_ = "its title changed";
  } else if (!pages_.contains(target.websocket_url)) {
    last_full_read_why_ = "its connection was closed";
  } else {
    auto change =
        ChangeOfPage(last->second.atspi_children, document.children, last->second.dom_nodes);
    if (!change) {
      last_full_read_why_ = "a change in AT-SPI's tree has no DOM node known to both readings";
    } else if (change->dom_nodes.size() > kMaxRefreshedNodes) {
      last_full_read_why_ = std::to_string(change->dom_nodes.size()) + " subtrees changed";
    } else if (AxNodes(last->second.data) > 2 * last->second.whole_nodes) {
      last_full_read_why_ = "refreshes doubled the page since its last whole read";
    } else {
      CdpPageData kept = std::move(last->second.data);
      Status refresh = RefreshPageData(*pages_[target.websocket_url], kept, change->dom_nodes,
                                       change->boxes_moved, Left(deadline));
      if (refresh.ok()) {
        data = std::move(kept);
        refreshed = true;
      } else if (refresh.error().code != ErrorCode::kTimeout) {
        last_full_read_why_ = "the refresh failed: " + refresh.error().message;
      } else {
        pages_.erase(target.websocket_url);
        reads_.erase(target.websocket_url);
        warnings.push_back(label + " from AT-SPI only: " + refresh.error().message);
        return false;
      }
    }
  }
  reads_.erase(target.websocket_url);
  // A kept connection may have been closed by the browser (page reloaded
  // into another renderer, browser restarted): one fresh try then.
  for (int attempt = 0; !refreshed && attempt < 2; ++attempt) {
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
    data = ReadPageData(*page, Left(deadline),
                        options.include_hidden ? PageExtent::kWhole : PageExtent::kInView);
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
  Read read;
  read.atspi = atspi;
  read.include_hidden = options.include_hidden;
  read.max_nodes = options.max_nodes;
  read.value = tree->url;
  read.title = document.name;
  read.dom_nodes = DomNodesByPlace(document.children, tree->places);
  JoinAtspiTwins(document.children, tree->nodes);
  read.data = std::move(data).value();
  read.whole_nodes = refreshed ? whole_nodes : AxNodes(read.data);
  read.atspi_children = std::move(document.children);
  document.children = std::move(tree->nodes);
  if (document.value.empty()) document.value = tree->url;
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
  last_read_ = refreshed ? "refresh" : "full";
  return true;
}

}  // namespace uiscope
