#include "engine/vision_nodes.h"

#include <algorithm>
#include <chrono>

#include "core/clock.h"
#include "core/ids.h"
#include "engine/privacy.h"
#include "vision/labels.h"

namespace uiscope {
namespace {

using Clock = std::chrono::steady_clock;

void CollectWindows(const Node& n, std::vector<size_t>& path, std::vector<OcrTarget>& out) {
  if (IsWindowRole(n.role) && n.bounds && !n.bounds->Empty()) {
    out.push_back(TargetOf(n, path));
    return;  // a dialog inside a window node is read with it
  }
  for (size_t i = 0; i < n.children.size(); ++i) {
    path.push_back(i);
    CollectWindows(n.children[i], path, out);
    path.pop_back();
  }
}

// The pixels of `rect` (image coordinates, clipped to the image).
Image CropImage(const Image& image, const Rect& rect) {
  const Rect r = ClampToFrame(rect, image.width, image.height);
  Image out;
  if (r.Empty()) return out;
  out = MakeImage(r.w, r.h);
  for (int y = 0; y < r.h; ++y) {
    std::copy_n(image.Pixel(r.x, r.y + y), static_cast<size_t>(r.w) * 3, out.Pixel(0, y));
  }
  return out;
}

}  // namespace

std::vector<OcrTarget> FindVisionTargets(const Snapshot& snapshot,
                                         const std::vector<WindowInfo>& top_levels,
                                         const ObserveRequest& scope) {
  std::vector<OcrTarget> out;
  std::vector<size_t> path;
  for (size_t i = 0; i < snapshot.roots.size(); ++i) {
    path.assign(1, i);
    CollectWindows(snapshot.roots[i], path, out);
  }
  // A window of the tree is seen only where the X server shows one: an app
  // may list windows that are not mapped (Chromium's two bubble windows,
  // "showing" and over its main window), and the pixels there are another
  // window's. Without a listing (no window manager's client list) all stay.
  std::erase_if(out, [&](const OcrTarget& t) { return !ShownByX(t.bounds, top_levels); });
  // Windows missing from the tree: the same ones OCR reads.
  for (OcrTarget& t : FindOcrTargets(snapshot, top_levels, scope)) {
    if (t.path.empty()) out.push_back(std::move(t));
  }
  return out;
}

VisionMergeStats MergeVisionDetections(Snapshot& snapshot,
                                       const std::vector<VisionTargetDetections>& detections) {
  VisionMergeStats stats;
  const std::vector<Node> before = snapshot.roots;
  for (const VisionTargetDetections& t : detections) {
    std::vector<size_t> path = t.target.path;
    if (path.empty()) {
      path = AddMissingWindow(snapshot, t.target);
      stats.vision_nodes += 2;
      stats.added_windows.emplace_back(t.target.x_window, path);
    }
    Node* window = NodeAtPath(snapshot.roots, path);
    if (window == nullptr) continue;
    const MergeStats merged = MergeDetections(*window, t.detections);
    stats.vision_nodes += merged.added;
    stats.merged_nodes += merged.merged;
    stats.duplicates += merged.duplicates;
  }
  if (stats.vision_nodes > 0 || stats.merged_nodes > 0) AssignIds(snapshot.roots, &before);
  snapshot.stats.vision_nodes += stats.vision_nodes;
  snapshot.stats.merged_nodes += stats.merged_nodes;
  return stats;
}

Result<VisionSourceResult> AddVisionSource(Snapshot& snapshot, Workspace::Lease& lease,
                                           TextReader& reader, const vision::Detector& detector,
                                           const ObserveRequest& scope,
                                           const ocr::OcrOptions& options,
                                           const std::vector<Rect>& also_masked) {
  const auto start = Clock::now();
  // Deny-listed apps (engine/privacy.h): their windows are no targets, and
  // blanked where they show.
  auto pixels = TargetPixels::Open(snapshot, lease, also_masked, "vision");
  if (!pixels.ok()) return pixels.error();

  VisionSourceResult result;
  std::vector<VisionTargetDetections> all;
  for (OcrTarget& target :
       FindVisionTargets(snapshot, pixels->hidden().Visible(pixels->tops()), scope)) {
    auto shot = pixels->Capture(target, result.warnings);
    if (!shot.ok()) return shot.error();
    if (!*shot) continue;
    const Rect r = (*shot)->region;
    const std::vector<Rect>& covered = (*shot)->covered;
    const std::vector<Rect>& masks = (*shot)->masks;
    const Image& image = (*shot)->frame.image;
    const auto detect_start = Clock::now();
    auto elements = detector.Detect(image, Point{r.x, r.y}, masks);
    result.detect_ms += MsSince(detect_start);
    if (!elements.ok()) return elements.error();
    std::erase_if(*elements, [&](const vision::Element& e) {
      return std::any_of(covered.begin(), covered.end(),
                         [&](const Rect& c) { return c.Contains(e.bounds.Center()); });
    });
    ++result.targets;
    result.detected += static_cast<int>(elements->size());

    // Only what the tree cannot name needs OCR: detections that will become
    // nodes of their own, or name an unnamed element.
    std::vector<Detection> unlabelled = vision::ToDetections(*elements);
    std::vector<vision::Element> to_label;
    std::vector<PlannedDetection> plan;
    Node* window = target.path.empty() ? nullptr : NodeAtPath(snapshot.roots, target.path);
    if (window != nullptr) plan = PlanMerge(*window, unlabelled);
    for (size_t i = 0; i < elements->size(); ++i) {
      if (window == nullptr || plan[i].placement == Placement::kOrphan) {
        to_label.push_back((*elements)[i]);
        continue;
      }
      if (plan[i].placement == Placement::kDuplicate) continue;
      const Node* element = window;
      for (size_t k : plan[i].element) element = &element->children[k];
      if (element->name.empty() && !element->Has(State::kPassword)) {
        to_label.push_back((*elements)[i]);
      }
    }
    std::vector<ocr::OcrLine> lines;
    const auto label_start = Clock::now();
    for (const Rect& region : vision::LabelRegions(to_label, r)) {
      const Image crop = CropImage(image, region.Translated(-r.x, -r.y));
      if (!crop.Valid()) continue;
      auto text = reader.ReadImage(crop, Point{region.x, region.y}, options, masks);
      if (!text.ok()) {
        // No OCR engine: the elements stay, unlabelled; say so once.
        if (result.warnings.empty() || result.warnings.back().rfind("OCR", 0) != 0) {
          result.warnings.push_back("OCR unavailable, vision elements are unlabelled: " +
                                    text.error().message);
        }
        break;
      }
      for (ocr::OcrLine& l : text->lines) lines.push_back(std::move(l));
    }
    result.label_ms += MsSince(label_start);
    all.push_back({std::move(target), vision::LabelElements(*elements, lines)});
  }
  result.stats = MergeVisionDetections(snapshot, all);
  result.total_ms = MsSince(start);
  return result;
}

}  // namespace uiscope
