#include "engine/x11_windows_pixels.h"

#include <algorithm>

#include "engine/pixel_ids.h"
#include "session/headless_desktop.h"

namespace uiscope {
namespace {

using Clock = std::chrono::steady_clock;

bool ShowsAWindow(const Node& app) {
  return std::any_of(app.children.begin(), app.children.end(), [](const Node& w) {
    return IsWindowRole(w.role) && w.Has(State::kShowing) && w.bounds && !w.bounds->Empty();
  });
}

std::string Label(const Node& app) {
  return (app.name.empty() ? std::string("(no name)") : app.name) + " (pid " +
         std::to_string(app.pid) + ")";
}

std::string Titles(const Node& app) {
  std::string out;
  for (const Node& w : app.children) {
    out += (out.empty() ? "" : ", ") + ("\"" + w.name + "\"");
  }
  return app.children.size() == 1 ? "window " + out : "windows " + out;
}

}  // namespace

Status AddPixelsOfX11Windows(Perception& perception, Workspace::Lease& lease,
                             const ObserveRequest& request, TextReader* reader,
                             const ocr::OcrOptions& ocr_options, const vision::Detector* detector) {
  if (lease.capture == nullptr) return OkStatus();
  Observation& obs = perception.observation;
  std::vector<size_t> blind;
  for (size_t i = 0; i < obs.snapshot.roots.size(); ++i) {
    const Node& app = obs.snapshot.roots[i];
    if (app.source == Source::kX11 && ShowsAWindow(app)) blind.push_back(i);
  }
  if (blind.empty()) return OkStatus();

  const auto start = Clock::now();
  auto stop_at = start + kX11PixelsBudget;
  if (request.deadline) stop_at = std::min(stop_at, *request.deadline);
  std::unique_ptr<TextReader> own_reader;
  if (reader == nullptr) {
    own_reader = std::make_unique<TextReader>();
    if (lease.learner != nullptr) own_reader->KeepCacheIn(OcrCacheFile());
    reader = own_reader.get();
  }
  std::unique_ptr<vision::Detector> own_detector;
  if (detector == nullptr) {
    std::string warning;
    auto created = vision::CreateDetector({}, &warning);
    if (!warning.empty()) obs.warnings.push_back(std::move(warning));
    if (!created.ok()) {
      obs.warnings.push_back("windows without an accessibility tree were not read from pixels: " +
                             created.error().message);
      return OkStatus();
    }
    own_detector = std::move(created).value();
    detector = own_detector.get();
  }
  PixelIds records(PixelIdsFile(SessionStateDir(), lease.display));
  const PinnedWindows pinned(lease);  // one list for every app's passes below
  auto listed = TopLevelWindows(lease);
  const std::vector<WindowInfo> windows = listed.ok() ? *listed : std::vector<WindowInfo>{};
  std::string left_out;
  for (size_t i : blind) {
    Node& app = obs.snapshot.roots[i];
    if (Clock::now() >= stop_at) {
      left_out += (left_out.empty() ? "" : ", ") + Label(app);
      continue;
    }
    const bool silent =
        std::any_of(obs.unanswered.begin(), obs.unanswered.end(),
                    [&](const AppInfo& a) { return a.pid > 0 && a.pid == app.pid; });
    // Perceived exactly as an action perceives again to find one of these
    // IDs (act.cpp, PerceiveAgain): this app alone, in the scope recorded.
    // Without a pid (Tk) the app is named as X11 names it, so that no
    // other window joins it.
    ObserveRequest scope;
    scope.pid = app.pid;
    if (app.pid <= 0) scope.app = app.name;
    scope.timeout = request.timeout;
    Perception one;
    one.observation.snapshot.frame = obs.snapshot.frame;
    one.observation.snapshot.roots.push_back(app);
    const auto app_start = Clock::now();
    const Status read = AddPixelSources(one, lease, scope, Sources{true, true, true, false}, reader,
                                        ocr_options, detector);
    if (!read.ok()) {
      if (DesktopGone(lease)) return read;
      obs.warnings.push_back("could not read the " + Titles(app) + " of " + Label(app) +
                             " from pixels: " + read.error().message);
      continue;
    }
    const Snapshot& seen = one.observation.snapshot;
    const std::string input_path =
        lease.desktop != nullptr && lease.desktop->backend() == "vnc" ? "VNC" : "XTest";
    records.Remember(seen.roots, PixelIdOrigin{true, true, scope.app, scope.pid},
                     ScreenRegions(lease), windows);
    obs.snapshot.stats.ocr_nodes += seen.stats.ocr_nodes;
    obs.snapshot.stats.vision_nodes += seen.stats.vision_nodes;
    obs.snapshot.stats.merged_nodes += seen.stats.merged_nodes;
    perception.ocr_targets += one.ocr_targets;
    perception.ocr_regions_read += one.ocr_regions_read;
    perception.ocr_regions_reused += one.ocr_regions_reused;
    perception.vision_targets += one.vision_targets;
    perception.vision_detected += one.vision_detected;
    perception.vision_detect_ms += one.vision_detect_ms;
    for (std::string& w : one.observation.warnings) obs.warnings.push_back(std::move(w));
    const int ms = static_cast<int>(
        std::chrono::duration<double, std::milli>(Clock::now() - app_start).count());
    obs.warnings.push_back(Label(app) +
                           (silent ? " is not answering" : " has no accessibility tree") +
                           ": its " + Titles(app) + (app.children.size() == 1 ? " was" : " were") +
                           " read from pixels (source=ocr and source=vision nodes, " +
                           std::to_string(ms) + " ms); act on them by ID (input goes through " +
                           input_path + "). --sources ax leaves them out");
    // A window the app did not list in X11 (none is expected) stays out:
    // the node of this app takes what was read.
    app = std::move(one.observation.snapshot.roots.front());
  }
  if (!left_out.empty()) {
    obs.warnings.push_back("not read from pixels, the " + std::to_string(kX11PixelsBudget.count()) +
                           " ms for windows without an accessibility tree being spent: " +
                           left_out + " (observe it alone, --app or --pid, to read it)");
  }
  return OkStatus();
}

}  // namespace uiscope
