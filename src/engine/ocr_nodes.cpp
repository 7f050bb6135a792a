#include "engine/ocr_nodes.h"

#include <algorithm>
#include <chrono>
#include <span>

#include "core/app_name.h"
#include "core/ids.h"
#include "core/merge.h"
#include "engine/privacy.h"
#include "engine/x11_windows_nodes.h"
#include "platform/process_name.h"
#include "platform/windows_from_pixels.h"

namespace uiscope {
namespace {

constexpr int kMinTargetWidth = 16;
constexpr int kMinTargetHeight = 8;

bool BigEnough(const std::optional<Rect>& r) {
  return r && r->w >= kMinTargetWidth && r->h >= kMinTargetHeight;
}

// How far the window node at `node` is X's top-level `tl`, measured against
// the part of `tl` a window node covers (AppArea, as X11AppNodes makes it:
// the client area, or the whole frame of a window found from its title bar).
double WindowIoU(const WindowInfo& tl, const Rect& node) { return IoU(AppArea(tl), node); }

// Accessible content: anything below that carries a name or a value.
bool HasContent(const Node& n) {
  for (const Node& c : n.children) {
    if (!c.name.empty() || !c.value.empty() || HasContent(c)) return true;
  }
  return false;
}

// `tops`: X's top-levels; a top-level window of the tree that none of them
// shows is skipped with all it holds (`in_window`: below a window already
// checked; `window`: the bounds of the window holding `n`).
void CollectTargets(const Node& n, std::vector<size_t>& path, const std::vector<WindowInfo>& tops,
                    bool in_window, const Rect& window, std::vector<OcrTarget>& out) {
  if (IsWindowRole(n.role) && !in_window && n.bounds && !ShownByX(*n.bounds, tops)) return;
  const Rect& holder = IsWindowRole(n.role) && !in_window && n.bounds ? *n.bounds : window;
  in_window = in_window || IsWindowRole(n.role);
  const bool empty_window = IsWindowRole(n.role) && !HasContent(n);
  const bool blind_widget =
      (n.role == Role::kCanvas || n.role == Role::kTerminal) && n.children.empty();
  // A text leaf that shows text but exposes none: gedit's status bar shows
  // "Ln 2, Col 9" in a label without name, value or Text.
  const bool blind_text =
      (n.role == Role::kLabel || n.role == Role::kText || n.role == Role::kStatusBar) &&
      n.children.empty() && n.name.empty() && n.value.empty() && n.description.empty() &&
      n.source == Source::kAx;
  if ((empty_window || blind_widget || blind_text) && BigEnough(n.bounds)) {
    out.push_back(TargetOf(n, path));
    out.back().window = holder;
    return;
  }
  if (in_window && IsBlindArea(n)) {
    out.push_back(TargetOf(n, path));
    out.back().window = holder;
    out.back().blind_area = true;
    return;
  }
  for (size_t i = 0; i < n.children.size(); ++i) {
    path.push_back(i);
    CollectTargets(n.children[i], path, tops, in_window, holder, out);
    path.pop_back();
  }
}

Detection TextDetection(const Rect& bounds, std::string text, float confidence,
                        float text_confidence) {
  Detection d;
  d.bounds = bounds;
  d.role = Role::kText;
  d.name = std::move(text);
  d.confidence = confidence;
  d.name_confidence = text_confidence;  // symbols taken for letters name nothing
  d.source = Source::kOcr;
  return d;
}

// The lines as detections. A line that no single element holds but whose
// words fall into different elements (one OCR line across a row of painted
// buttons: "OK Cancel Apply") is cut into runs of words per element, so
// each run meets the element it belongs to.
std::vector<Detection> LineDetections(const Node& holder, const std::vector<ocr::OcrLine>& lines) {
  std::vector<Detection> whole;
  whole.reserve(lines.size());
  for (const ocr::OcrLine& line : lines) {
    whole.push_back(
        TextDetection(line.bounds, line.text, line.confidence, ocr::TextConfidence(line.words)));
  }
  const std::vector<PlannedDetection> plan = PlanMerge(holder, whole);
  std::vector<Detection> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    const ocr::OcrLine& line = lines[i];
    if (plan[i].placement != Placement::kOrphan || line.words.size() < 2) {
      out.push_back(std::move(whole[i]));
      continue;
    }
    std::vector<Detection> words;
    for (const ocr::OcrWord& w : line.words) {
      words.push_back(
          TextDetection(w.bounds, w.text, w.confidence, ocr::TextConfidence(std::span(&w, 1))));
    }
    const std::vector<PlannedDetection> word_plan = PlanMerge(holder, words);
    bool split = false;
    for (const PlannedDetection& p : word_plan) split = split || p.placement == Placement::kPart;
    if (!split) {
      out.push_back(std::move(whole[i]));
      continue;
    }
    for (size_t k = 0; k < words.size();) {
      size_t end = k + 1;
      while (end < words.size() && word_plan[end].placement == word_plan[k].placement &&
             word_plan[end].element == word_plan[k].element) {
        ++end;
      }
      Detection run = words[k];
      for (size_t j = k + 1; j < end; ++j) {
        run.bounds = Union(run.bounds, words[j].bounds);
        run.name += " " + words[j].name;
        run.confidence = std::min(run.confidence, words[j].confidence);
        run.name_confidence = std::max(run.name_confidence, words[j].name_confidence);
      }
      out.push_back(std::move(run));
      k = end;
    }
  }
  return out;
}

}  // namespace

bool IsBlindArea(const Node& n) {
  if (n.source != Source::kAx || !n.bounds) return false;
  if (n.bounds->w < kMinBlindAreaWidth || n.bounds->h < kMinBlindAreaHeight) return false;
  if (!n.value.empty() || n.Has(State::kPassword)) return false;
  // Roles that hold content a person reads: a generic or scrolled container,
  // a document or page, a table, list or tree (a grid drawn without cell
  // objects, an icon view, a list control whose rows are not objects), a
  // tab's panel, an unknown widget (a calendar, an editor buffer).
  switch (n.role) {
    case Role::kPanel:
    case Role::kGroup:
    case Role::kScrollPane:
    case Role::kDocument:
    case Role::kTable:
    case Role::kList:
    case Role::kTree:
    case Role::kTabPanel:
    case Role::kImage:
    case Role::kUnknown:
      break;
    default:
      return false;
  }
  return !HasContent(n);
}

std::vector<OcrTarget> FindBlindMainAreas(const Snapshot& snapshot,
                                          const std::vector<WindowInfo>& top_levels,
                                          const ObserveRequest& scope) {
  std::vector<OcrTarget> out = FindOcrTargets(snapshot, top_levels, scope);
  std::erase_if(out, [&](const OcrTarget& t) {
    // Windows missing from the tree are the X11 pass's; a canvas or terminal
    // widget, an empty window or a silent label are read when asked for.
    if (!t.blind_area || t.window.Empty()) return true;
    const Rect in_window = Intersect(t.bounds, t.window);
    return static_cast<double>(in_window.w) * in_window.h <
           kMainAreaShare * static_cast<double>(t.window.w) * t.window.h;
  });
  return out;
}

std::vector<OcrTarget> FindOcrTargets(const Snapshot& snapshot,
                                      const std::vector<WindowInfo>& top_levels,
                                      const ObserveRequest& scope) {
  std::vector<OcrTarget> out;
  std::vector<size_t> path;
  std::vector<Rect> windows;
  for (size_t i = 0; i < snapshot.roots.size(); ++i) {
    path.assign(1, i);
    CollectTargets(snapshot.roots[i], path, top_levels, false, Rect{}, out);
  }
  ForEachNode(snapshot.roots, [&](const Node& n, int) {
    if (IsWindowRole(n.role) && n.bounds) windows.push_back(*n.bounds);
  });
  for (const WindowInfo& tl : top_levels) {
    if (tl.bounds.w < kMinTargetWidth || tl.bounds.h < kMinTargetHeight) continue;
    if (scope.pid != 0 && tl.pid != scope.pid) continue;
    const std::string app = ProcessName(tl.pid);
    // The one rule `windows` and `observe --app` name apps by (core/app_name.h).
    if (!scope.app.empty() && !AppNameMatches(scope.app, tl.app_instance) &&
        !AppNameMatches(scope.app, tl.app_class, app)) {
      continue;
    }
    const bool in_tree = std::any_of(windows.begin(), windows.end(), [&](const Rect& w) {
      return WindowIoU(tl, w) >= kSameWindowIoU;
    });
    if (in_tree) continue;
    OcrTarget t;
    t.bounds = tl.bounds;
    t.x_window = tl.id;
    t.title = tl.title;
    t.pid = tl.pid;
    // Named as `windows` names an app known from X11 alone (X11AppName):
    // its WM_CLASS instance, else its process name (which the kernel cuts
    // at 15 characters: "gnome-calculato").
    t.app = !tl.app_instance.empty() ? tl.app_instance : app;
    out.push_back(std::move(t));
  }
  return out;
}

bool ShownByX(const Rect& window, const std::vector<WindowInfo>& top_levels) {
  return top_levels.empty() ||
         std::any_of(top_levels.begin(), top_levels.end(),
                     [&](const WindowInfo& tl) { return WindowIoU(tl, window) >= kSameWindowIoU; });
}

const Node* NodeAtPath(const std::vector<Node>& roots, const std::vector<size_t>& path) {
  const std::vector<Node>* level = &roots;
  const Node* node = nullptr;
  for (size_t i : path) {
    if (i >= level->size()) return nullptr;
    node = &(*level)[i];
    level = &node->children;
  }
  return node;
}

Node* NodeAtPath(std::vector<Node>& roots, const std::vector<size_t>& path) {
  std::vector<Node>* level = &roots;
  Node* node = nullptr;
  for (size_t i : path) {
    if (i >= level->size()) return nullptr;
    node = &(*level)[i];
    level = &node->children;
  }
  return node;
}

OcrTarget TargetOf(const Node& n, const std::vector<size_t>& path) {
  OcrTarget t;
  if (n.bounds) t.bounds = *n.bounds;
  t.path = path;
  t.pid = n.pid;
  t.app = n.app;
  t.title = n.name;
  return t;
}

std::vector<size_t> AddMissingWindow(Snapshot& snapshot, const OcrTarget& target) {
  const std::string app_name = !target.app.empty() ? target.app : target.title;
  Node app;
  app.role = Role::kApplication;
  app.name = app_name;
  app.app = app_name;
  app.pid = target.pid;
  app.source = Source::kX11;
  Node window;
  window.role = Role::kWindow;
  window.name = target.title;
  window.bounds = target.bounds;
  window.source = Source::kX11;
  window.app = app_name;
  window.pid = target.pid;
  window.states.Set(State::kShowing);
  window.states.Set(State::kVisible);
  app.children.push_back(std::move(window));
  snapshot.roots.push_back(std::move(app));
  return {snapshot.roots.size() - 1, 0};
}

OcrMergeStats MergeOcrText(Snapshot& snapshot, const std::vector<OcrTargetText>& texts) {
  OcrMergeStats stats;
  // IDs of the nodes already there are kept by reconciling against the tree
  // as it was; the merge only fills nodes and appends children and roots, so
  // the index paths of later targets stay valid while earlier ones are merged.
  const std::vector<Node> before = snapshot.roots;
  for (const OcrTargetText& t : texts) {
    std::vector<size_t> path = t.target.path;
    if (path.empty()) {
      path = AddMissingWindow(snapshot, t.target);
      stats.ocr_nodes += 2;
    }
    Node* holder = NodeAtPath(snapshot.roots, path);
    if (holder == nullptr) continue;
    // Lines are detections like any other (core/merge.h): one matching an
    // element confirms or names it, one inside an unnamed element names it,
    // the rest become text nodes where they are.
    const MergeStats merged = MergeDetections(*holder, LineDetections(*holder, t.text.lines));
    stats.ocr_nodes += merged.added;
    stats.merged_nodes += merged.merged;
  }
  if (stats.ocr_nodes > 0 || stats.merged_nodes > 0) AssignIds(snapshot.roots, &before);
  snapshot.stats.ocr_nodes += stats.ocr_nodes;
  snapshot.stats.merged_nodes += stats.merged_nodes;
  return stats;
}

std::vector<Rect> CoveredParts(const OcrTarget& target, const std::vector<WindowInfo>& tops,
                               const std::vector<uint64_t>& stacking) {
  uint64_t own = target.x_window;
  if (own == 0) {
    double best = 0.5;
    for (const WindowInfo& t : tops) {
      const double iou = WindowIoU(t, target.bounds);
      if (iou >= best) {
        best = iou;
        own = t.id;
      }
    }
  }
  const auto at = std::find(stacking.begin(), stacking.end(), own);
  if (own == 0 || at == stacking.end()) return {};
  std::vector<Rect> covered;
  for (auto above = at + 1; above != stacking.end(); ++above) {
    for (const WindowInfo& t : tops) {
      if (t.id != *above) continue;
      // Its frame: a title bar above the target holds text too.
      const Rect part = Intersect(t.frame, target.bounds);
      if (!part.Empty()) covered.push_back(part);
    }
  }
  return covered;
}

Result<OcrSourceResult> AddOcrSource(Snapshot& snapshot, Workspace::Lease& lease,
                                     TextReader& reader, const ObserveRequest& scope,
                                     const ocr::OcrOptions& options) {
  if (lease.capture == nullptr) {
    return MakeError(ErrorCode::kUnsupported,
                     "source \"ocr\" needs the screen, and desktop " + lease.display +
                         " has none (a fake desktop); use sources [\"ax\"]");
  }
  // A deny-listed app's windows are no targets of their own (engine/privacy.h).
  const HiddenWindows hidden =
      lease.observer != nullptr ? HiddenWindows::Of(*lease.observer) : HiddenWindows();
  auto tops = TopLevelWindows(lease);
  if (!tops.ok()) return tops.error();
  return AddOcrSource(snapshot, lease, reader,
                      FindOcrTargets(snapshot, hidden.Visible(std::move(tops).value()), scope),
                      options);
}

Result<TargetPixels> TargetPixels::Open(const Snapshot& snapshot, Workspace::Lease& lease,
                                        const std::vector<Rect>& also_masked,
                                        std::string_view source) {
  if (lease.capture == nullptr) {
    return MakeError(ErrorCode::kUnsupported,
                     "source \"" + std::string(source) + "\" needs the screen, and desktop " +
                         lease.display + " has none (a fake desktop); use sources [\"ax\"]");
  }
  TargetPixels p;
  p.lease_ = &lease;
  p.source_ = source;
  p.screen_ = Rect{0, 0, lease.capture->screen_width(), lease.capture->screen_height()};
  p.passwords_ = PasswordFieldBounds(snapshot.roots);
  p.passwords_.insert(p.passwords_.end(), also_masked.begin(), also_masked.end());
  auto listed = TopLevelWindows(lease);
  if (!listed.ok()) return listed.error();
  p.tops_ = std::move(listed).value();
  p.stacking_ = HiddenWindows::StackingOf(p.tops_);
  p.hidden_ = lease.observer != nullptr ? HiddenWindows::Of(*lease.observer) : HiddenWindows();
  p.denied_ = p.hidden_.Regions(p.tops_, p.stacking_);
  return p;
}

Result<std::optional<TargetPixels::Shot>> TargetPixels::Capture(
    const OcrTarget& target, std::vector<std::string>& warnings) {
  Shot shot;
  shot.region = Intersect(target.bounds, screen_);
  if (shot.region.Empty()) return std::optional<Shot>();
  // Text and controls another window shows over the target are not its own.
  shot.covered = CoveredParts(target, tops_, stacking_);
  shot.masks = passwords_;
  shot.masks.insert(shot.masks.end(), shot.covered.begin(), shot.covered.end());
  shot.masks.insert(shot.masks.end(), denied_.begin(), denied_.end());
  auto frame = lease_->capture->CaptureRegion(shot.region);
  if (!frame.ok()) {
    if (DesktopGone(*lease_)) return frame.error();
    warnings.push_back("could not capture " +
                       (target.title.empty() ? "a window" : "\"" + target.title + "\"") + " for " +
                       source_ + ": " + frame.error().message);
    return std::optional<Shot>();
  }
  shot.frame = std::move(frame).value();
  return std::optional<Shot>(std::move(shot));
}

Result<OcrSourceResult> AddOcrSource(Snapshot& snapshot, Workspace::Lease& lease,
                                     TextReader& reader, std::vector<OcrTarget> targets,
                                     const ocr::OcrOptions& options,
                                     const std::vector<Rect>& also_masked) {
  const auto start = std::chrono::steady_clock::now();
  auto pixels = TargetPixels::Open(snapshot, lease, also_masked, "ocr");
  if (!pixels.ok()) return pixels.error();
  OcrSourceResult result;
  std::vector<OcrTargetText> texts;
  for (OcrTarget& target : targets) {
    auto shot = pixels->Capture(target, result.warnings);
    if (!shot.ok()) return shot.error();
    if (!*shot) continue;
    const Rect& r = (*shot)->region;
    auto text = reader.ReadImage((*shot)->frame.image, Point{r.x, r.y}, options, (*shot)->masks);
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
