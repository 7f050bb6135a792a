#include "engine/perceive.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "engine/ocr_nodes.h"
#include "engine/privacy.h"
#include "engine/pixel_ids.h"
#include "engine/vision_nodes.h"
#include "engine/x11_windows_pixels.h"
#include "session/headless_desktop.h"

namespace uiscope {
namespace {

using Clock = std::chrono::steady_clock;

// OCR of the app's main area where the tree leaves it blind
// (FindBlindMainAreas), when the caller named no sources: what a person sees
// there joins the tree under its container, its IDs are recorded as any OCR
// node's (an action on one perceives again with ax and ocr), and a warning
// says it was read. Nothing is captured when there is no such area.
Status AddOcrOfBlindMainAreas(Perception& perception, Workspace::Lease& lease,
                              const ObserveRequest& request, TextReader* reader,
                              const ocr::OcrOptions& ocr_options) {
  if (lease.capture == nullptr) return OkStatus();
  Snapshot& snapshot = perception.observation.snapshot;
  const HiddenWindows hidden =
      lease.observer != nullptr ? HiddenWindows::Of(*lease.observer) : HiddenWindows();
  // One window list for the targets, the OCR pass and the record of its IDs.
  const PinnedWindows pinned(lease);
  auto tops = TopLevelWindows(lease);
  if (!tops.ok()) return OkStatus();  // the X11 pass says what the listing lacks
  std::vector<OcrTarget> targets = FindBlindMainAreas(snapshot, hidden.Visible(*tops), request);
  if (targets.empty()) return OkStatus();
  const auto start = Clock::now();
  std::unique_ptr<TextReader> own_reader;
  if (reader == nullptr) {
    own_reader = std::make_unique<TextReader>();
    if (lease.learner != nullptr) own_reader->KeepCacheIn(OcrCacheFile());
    reader = own_reader.get();
  }
  std::string where;
  for (const OcrTarget& t : targets) {
    const Node* n = NodeAtPath(snapshot.roots, t.path);
    const std::string role = n != nullptr ? std::string(RoleName(n->role)) : "area";
    where += (where.empty() ? "" : ", ") + role + " " + std::to_string(t.bounds.w) + "x" +
             std::to_string(t.bounds.h) + " at " + std::to_string(t.bounds.x) + "," +
             std::to_string(t.bounds.y);
  }
  auto added = AddOcrSource(snapshot, lease, *reader, std::move(targets), ocr_options);
  if (!added.ok()) {
    if (DesktopGone(lease)) return added.error();
    perception.observation.warnings.push_back(
        "the tree shows nothing in " + where + " and OCR could not read it: " +
        added.error().message);
    return OkStatus();
  }
  perception.ocr_targets += added->targets;
  perception.ocr_regions_read += added->regions_read;
  perception.ocr_regions_reused += added->regions_reused;
  for (auto& w : added->warnings) perception.observation.warnings.push_back(std::move(w));
  PixelIds(PixelIdsFile(SessionStateDir(), lease.display))
      .Remember(snapshot.roots, PixelIdOrigin{true, false, request.app, request.pid, true},
                ScreenRegions(lease), *tops);
  const int ms = static_cast<int>(
      std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  perception.observation.warnings.push_back(
      "the tree shows nothing in " + where + ": read by OCR (" +
      std::to_string(added->stats.ocr_nodes) + " source=ocr nodes, " + std::to_string(ms) +
      " ms); --sources ax leaves it out");
  return OkStatus();
}

}  // namespace

Result<Sources> ParseSources(const std::vector<std::string>& names) {
  if (std::all_of(names.begin(), names.end(), [](const std::string& n) { return n.empty(); })) {
    return Sources{};
  }
  Sources sources;
  sources.ax = false;
  sources.pixels_where_blind = false;
  for (const std::string& name : names) {
    if (name.empty()) {
      continue;
    } else if (name == "ax") {
      sources.ax = true;
    } else if (name == "ocr") {
      sources.ocr = true;
    } else if (name == "vision") {
      sources.vision = true;
    } else {
      return MakeError(ErrorCode::kInvalidArgument,
                       "unknown source \"" + name + "\" (valid: ax, ocr, vision)");
    }
  }
  if (!sources.ax && !sources.vision) {
    // OCR reads where the tree is blind, or labels what vision found: alone
    // it has no windows to read.
    return MakeError(ErrorCode::kInvalidArgument,
                     "sources must include \"ax\" or \"vision\": OCR adds text to the "
                     "accessibility tree or to what vision found (e.g. ax,ocr or vision,ocr)");
  }
  return sources;
}

Result<Perception> Perceive(Workspace::Lease& lease, const ObserveRequest& request,
                            const Sources& sources, TextReader* reader,
                            const ocr::OcrOptions& ocr_options, const vision::Detector* detector) {
  const auto start = std::chrono::steady_clock::now();
  auto obs = lease.observer->Observe(request);
  if (!obs.ok()) return obs.error();
  Perception perception;
  perception.observation = std::move(obs).value();
  // The pixel passes below and the record of their IDs share one window
  // list (the blind-window pass pins its own, only when it has work).
  std::optional<PinnedWindows> pinned;
  if (sources.ocr || sources.vision) pinned.emplace(lease);
  if (auto st = AddPixelSources(perception, lease, request, sources, reader, ocr_options, detector);
      !st.ok()) {
    return st.error();
  }
  if (!sources.ocr && !sources.vision && sources.pixels_where_blind) {
    if (auto st = AddPixelsOfX11Windows(perception, lease, request, reader, ocr_options, detector);
        !st.ok()) {
      return st.error();
    }
    if (sources.ax) {
      if (auto st = AddOcrOfBlindMainAreas(perception, lease, request, reader, ocr_options);
          !st.ok()) {
        return st.error();
      }
    }
  }
  Snapshot& snapshot = perception.observation.snapshot;
  // Memory learns from and adds to the tree; the pixels alone are shown as
  // they are.
  if (lease.learner != nullptr && sources.ax) {
    perception.learned =
        lease.learner->Learn(snapshot, ScreenRegions(lease), perception.observation.warnings);
  }
  if (sources.ocr || sources.vision) {
    // Their IDs exist only where these sources run: an action on one in
    // another call acts at the place kept here while its pixels stay the
    // same, else perceives again with them (engine/pixel_ids.h).
    auto windows = TopLevelWindows(lease);
    PixelIds(PixelIdsFile(SessionStateDir(), lease.display))
        .Remember(snapshot.roots,
                  PixelIdOrigin{sources.ocr, sources.vision, request.app, request.pid, sources.ax},
                  ScreenRegions(lease), windows.ok() ? *windows : std::vector<WindowInfo>{});
  }
  snapshot.stats.latency_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return perception;
}

RegionCapture ScreenRegions(const Workspace::Lease& lease) {
  if (lease.capture == nullptr) return {};
  return RegionsOf(*lease.capture);
}

Status AddPixelSources(Perception& perception, Workspace::Lease& lease,
                       const ObserveRequest& request, const Sources& sources, TextReader* reader,
                       const ocr::OcrOptions& ocr_options, const vision::Detector* detector) {
  Snapshot& snapshot = perception.observation.snapshot;
  if ((sources.ocr || sources.vision) && reader == nullptr) {
    return MakeError(ErrorCode::kInternal, "OCR or vision was asked for without a text reader");
  }
  if ((sources.ocr || sources.vision) && lease.capture == nullptr) {
    return MakeError(ErrorCode::kUnsupported,
                     std::string("source \"") + (sources.vision ? "vision" : "ocr") +
                         "\" needs the screen, and desktop " + lease.display +
                         " has none (a fake desktop); use sources [\"ax\"]");
  }
  // Pixels alone: the tree only says where password fields are (masked
  // below), then gives way to the windows the X server lists.
  std::vector<Rect> masked;
  if (!sources.ax) {
    masked = PasswordFieldBounds(snapshot.roots);
    snapshot.roots.clear();
    snapshot.stats = ObserveStats{};
    // What they said about the tree (an app without one, one not
    // answering) is not about what is shown now.
    perception.observation.warnings.clear();
  }
  // OCR reads where the accessibility tree alone is blind: decided before
  // vision adds what it sees.
  std::vector<OcrTarget> ocr_targets;
  if (sources.ocr) {
    auto tops = TopLevelWindows(lease);
    if (!tops.ok()) return tops.error();
    ocr_targets = FindOcrTargets(snapshot, *tops, request);
  }
  if (sources.vision) {
    std::unique_ptr<vision::Detector> own;
    if (detector == nullptr) {
      std::string warning;
      auto created = vision::CreateDetector({}, &warning);
      if (!created.ok()) return created.error();
      if (!warning.empty()) perception.observation.warnings.push_back(std::move(warning));
      own = std::move(created).value();
      detector = own.get();
    }
    auto added = AddVisionSource(snapshot, lease, *reader, *detector, request, ocr_options, masked);
    if (!added.ok()) return added.error();
    perception.vision_targets = added->targets;
    perception.vision_detected = added->detected;
    perception.vision_detect_ms = added->detect_ms;
    for (auto& w : added->warnings) perception.observation.warnings.push_back(std::move(w));
    // Windows vision added for apps without accessibility take their text too.
    for (OcrTarget& t : ocr_targets) {
      if (!t.path.empty()) continue;
      for (const auto& [x_window, path] : added->stats.added_windows) {
        if (x_window == t.x_window) t.path = path;
      }
    }
  }
  if (sources.ocr) {
    auto added = AddOcrSource(snapshot, lease, *reader, ocr_targets, ocr_options, masked);
    if (!added.ok()) return added.error();
    perception.ocr_targets = added->targets;
    perception.ocr_regions_read = added->regions_read;
    perception.ocr_regions_reused = added->regions_reused;
    for (auto& w : added->warnings) perception.observation.warnings.push_back(std::move(w));
  }
  return OkStatus();
}

}  // namespace uiscope
