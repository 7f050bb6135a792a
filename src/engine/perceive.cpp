#include "engine/perceive.h"

#include <chrono>

#include "engine/ocr_nodes.h"

namespace uiscope {

Result<Sources> ParseSources(const std::vector<std::string>& names) {
  if (names.empty()) return Sources{};
  Sources sources;
  sources.ax = false;
  for (const std::string& name : names) {
    if (name == "ax") {
      sources.ax = true;
    } else if (name == "ocr") {
      sources.ocr = true;
    } else if (name == "vision") {
      return MakeError(ErrorCode::kUnsupported,
                       "source \"vision\" is not available in this build yet; use ax and ocr");
    } else {
      return MakeError(ErrorCode::kInvalidArgument,
                       "unknown source \"" + name + "\" (valid: ax, ocr, vision)");
    }
  }
  if (!sources.ax) {
    // The tree's windows and password fields come from accessibility; the
    // other sources fill what it cannot see, they do not replace it.
    return MakeError(ErrorCode::kInvalidArgument,
                     "sources must include \"ax\": OCR and vision add to the accessibility "
                     "tree (e.g. ax,ocr)");
  }
  return sources;
}

Result<Perception> Perceive(Workspace::Lease& lease, const ObserveRequest& request,
                            const Sources& sources, TextReader* reader,
                            const ocr::OcrOptions& ocr_options) {
  const auto start = std::chrono::steady_clock::now();
  auto obs = lease.observer->Observe(request);
  if (!obs.ok()) return obs.error();
  Perception perception;
  perception.observation = std::move(obs).value();
  if (sources.ocr) {
    if (reader == nullptr) {
      return MakeError(ErrorCode::kInternal, "OCR was asked for without a text reader");
    }
    auto added =
        AddOcrSource(perception.observation.snapshot, lease, *reader, request, ocr_options);
    if (!added.ok()) return added.error();
    perception.ocr_targets = added->targets;
    perception.ocr_regions_read = added->regions_read;
    perception.ocr_regions_reused = added->regions_reused;
    for (auto& w : added->warnings) perception.observation.warnings.push_back(std::move(w));
  }
  perception.observation.snapshot.stats.latency_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return perception;
}

}  // namespace uiscope
