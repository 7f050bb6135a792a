#include "engine/ocr_nodes.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>

#include "core/ids.h"
#include "platform/x11/ximage_capture.h"

namespace uiscope {
namespace {

constexpr int kMinTargetWidth = 16;
constexpr int kMinTargetHeight = 8;
// A top-level X window is the tree's window when they overlap this much.
constexpr double kSameWindowIoU = 0.5;
// A line belongs to an element when this share of it lies inside.
constexpr double kInsideShare = 0.8;

bool IsWindowRole(Role role) {
  return role == Role::kWindow || role == Role::kDialog || role == Role::kAlert;
}

bool BigEnough(const std::optional<Rect>& r) {
  return r && r->w >= kMinTargetWidth && r->h >= kMinTargetHeight;
}

// Accessible content: anything below that carries a name or a value.
bool HasContent(const Node& n) {
  for (const Node& c : n.children) {
    if (!c.name.empty() || !c.value.empty() || HasContent(c)) return true;
  }
  return false;
}

// Elements that can take a name from the one line of text they show.
bool Nameable(const Node& n) {
  if (n.Has(State::kPassword) || !n.name.empty() || !n.bounds || n.bounds->Empty()) return false;
  if (IsInteractiveRole(n.role)) return true;
  switch (n.role) {
    case Role::kLabel:
    case Role::kText:
    case Role::kHeading:
    case Role::kImage:
    case Role::kIcon:
    case Role::kStatusBar:
    case Role::kToolTip:
      return true;
    default:
      return false;
  }
}

std::string ProcessName(int pid) {
  if (pid <= 0) return "";
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(comm, name);
  return name;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](unsigned char x, unsigned char y) {
           return std::tolower(x) == std::tolower(y);
         });
}

void CollectTargets(const Node& n, std::vector<size_t>& path, std::vector<OcrTarget>& out) {
  const bool empty_window = IsWindowRole(n.role) && !HasContent(n);
  const bool blind_widget =
      (n.role == Role::kCanvas || n.role == Role::kTerminal) && n.children.empty();
  if ((empty_window || blind_widget) && BigEnough(n.bounds)) {
    OcrTarget t;
    t.bounds = *n.bounds;
    t.path = path;
    t.pid = n.pid;
    t.app = n.app;
    out.push_back(std::move(t));
    return;
  }
  for (size_t i = 0; i < n.children.size(); ++i) {
    path.push_back(i);
    CollectTargets(n.children[i], path, out);
    path.pop_back();
  }
}

Node* Resolve(std::vector<Node>& roots, const std::vector<size_t>& path) {
  std::vector<Node>* level = &roots;
  Node* node = nullptr;
  for (size_t i : path) {
    if (i >= level->size()) return nullptr;
    node = &(*level)[i];
    level = &node->children;
  }
  return node;
}

double ShareInside(const Rect& inner, const Rect& outer) {
  const int64_t area = inner.Area();
  return area == 0 ? 0 : static_cast<double>(Intersect(inner, outer).Area()) / area;
}

Node OcrNode(Role role, std::string name, const Rect& bounds, float confidence, const Node& owner) {
  Node n;
  n.role = role;
  n.name = std::move(name);
  n.bounds = bounds;
  n.source = Source::kOcr;
  n.confidence = confidence;
  n.app = owner.app;
  n.pid = owner.pid;
  n.states.Set(State::kShowing);
  n.states.Set(State::kVisible);
  return n;
}

// Fills the empty names of elements under `holder` that hold exactly one of
// `lines`; returns which lines were used that way.
std::vector<bool> FillNames(Node& holder, const std::vector<ocr::OcrLine>& lines, int* filled) {
  std::vector<bool> used(lines.size(), false);
  ForEachNodeMutable(holder.children, [&](Node& n, int) {
    if (!Nameable(n)) return;
    int found = -1;
    int count = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (ShareInside(lines[i].bounds, *n.bounds) >= kInsideShare) {
        ++count;
        found = static_cast<int>(i);
      }
    }
    if (count != 1 || used[found]) return;
    n.name = lines[found].text;
    n.source = Source::kMerged;
    n.confidence = lines[found].confidence;
    used[found] = true;
    ++*filled;
  });
  return used;
}

}  // namespace

std::vector<OcrTarget> FindOcrTargets(const Snapshot& snapshot,
                                      const std::vector<x11::TopLevel>& top_levels,
                                      const ObserveRequest& scope) {
  std::vector<OcrTarget> out;
  std::vector<size_t> path;
  std::vector<Rect> windows;
  for (size_t i = 0; i < snapshot.roots.size(); ++i) {
    path.assign(1, i);
    CollectTargets(snapshot.roots[i], path, out);
  }
  ForEachNode(snapshot.roots, [&](const Node& n, int) {
    if (IsWindowRole(n.role) && n.bounds) windows.push_back(*n.bounds);
  });
  for (const x11::TopLevel& tl : top_levels) {
    if (tl.bounds.w < kMinTargetWidth || tl.bounds.h < kMinTargetHeight) continue;
    if (scope.pid != 0 && tl.pid != scope.pid) continue;
    const std::string app = ProcessName(tl.pid);
    if (!scope.app.empty() && !EqualsIgnoreCase(app, scope.app)) continue;
    const bool in_tree = std::any_of(windows.begin(), windows.end(), [&](const Rect& w) {
      return IoU(w, tl.bounds) >= kSameWindowIoU;
    });
    if (in_tree) continue;
    OcrTarget t;
    t.bounds = tl.bounds;
    t.x_window = tl.window;
    t.title = tl.title;
    t.pid = tl.pid;
    t.app = app;
    out.push_back(std::move(t));
  }
  return out;
}

OcrMergeStats MergeOcrText(Snapshot& snapshot, const std::vector<OcrTargetText>& texts) {
  OcrMergeStats stats;
  // IDs of the nodes already there are kept by reconciling against the tree
  // as it was; only additions go at the end of child lists, so the index
  // paths of later targets stay valid while earlier ones are merged.
  const std::vector<Node> before = snapshot.roots;
  for (const OcrTargetText& t : texts) {
    Node* holder = nullptr;
    if (!t.target.path.empty()) {
      holder = Resolve(snapshot.roots, t.target.path);
      if (holder == nullptr) continue;
    } else {
      const std::string app_name = !t.target.app.empty() ? t.target.app : t.target.title;
      Node app;
      app.role = Role::kApplication;
      app.name = app_name;
      app.app = app_name;
      app.pid = t.target.pid;
      app.source = Source::kOcr;
      Node window = OcrNode(Role::kWindow, t.target.title, t.target.bounds, 1.0f, app);
      app.children.push_back(std::move(window));
      snapshot.roots.push_back(std::move(app));
      holder = &snapshot.roots.back().children.back();
      stats.ocr_nodes += 2;
    }
    const std::vector<ocr::OcrLine>& lines = t.text.lines;
    std::vector<bool> used = FillNames(*holder, lines, &stats.merged_nodes);
    for (size_t i = 0; i < lines.size(); ++i) {
      if (used[i]) continue;
      holder->children.push_back(
          OcrNode(Role::kText, lines[i].text, lines[i].bounds, lines[i].confidence, *holder));
      ++stats.ocr_nodes;
    }
  }
  if (stats.ocr_nodes > 0 || stats.merged_nodes > 0) AssignIds(snapshot.roots, &before);
  snapshot.stats.ocr_nodes += stats.ocr_nodes;
  snapshot.stats.merged_nodes += stats.merged_nodes;
  return stats;
}

Result<OcrSourceResult> AddOcrSource(Snapshot& snapshot, Workspace::Lease& lease,
                                     TextReader& reader, const ObserveRequest& scope,
                                     const ocr::OcrOptions& options) {
  if (lease.display_connection == nullptr) {
    return MakeError(ErrorCode::kUnsupported,
                     "source \"ocr\" needs the screen, and desktop " + lease.display +
                         " has none (a fake desktop); use sources [\"ax\"]");
  }
  const auto start = std::chrono::steady_clock::now();
  const x11::X11Display& display = *lease.display_connection;
  const Rect screen{0, 0, display.width(), display.height()};
  const std::vector<Rect> masks = PasswordFieldBounds(snapshot.roots);

  OcrSourceResult result;
  std::vector<OcrTargetText> texts;
  for (OcrTarget& target : FindOcrTargets(snapshot, display.TopLevels(), scope)) {
    const Rect r = Intersect(target.bounds, screen);
    if (r.Empty()) continue;
    auto image = x11::CaptureRegion(display, r);
    if (!image.ok()) {
      if (display.broken()) return image.error();
      result.warnings.push_back("could not capture " +
                                (target.title.empty() ? "a window" : "\"" + target.title + "\"") +
                                " for OCR: " + image.error().message);
      continue;
    }
    auto text = reader.ReadImage(*image, Point{r.x, r.y}, options, masks);
    if (!text.ok()) {
      // No OCR engine, or a bad language: the same for every target.
      return text.error();
    }
    ++result.targets;
    result.regions_read += text->regions_read;
    result.regions_reused += text->regions_reused;
    texts.push_back({std::move(target), std::move(text).value()});
  }
  result.stats = MergeOcrText(snapshot, texts);
  result.ocr_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace uiscope
