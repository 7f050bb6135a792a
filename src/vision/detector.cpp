#include "vision/detector.h"

#include "vision/classical_detector.h"
#include "vision/learned_detector.h"

namespace uiscope::vision {

std::string_view DetectorKinds() { return "classical, learned, auto"; }

Result<std::unique_ptr<Detector>> CreateDetector(const DetectorOptions& options,
                                                 std::string* warning) {
  const std::string_view kind = options.kind.empty() ? kDefaultDetector : options.kind;
  if (kind == "learned" || kind == "auto") {
    LearnedOptions learned;
    learned.model_path = options.model_path;
    learned.min_confidence = options.min_confidence;
    auto loaded = LearnedDetector::Load(learned);
    if (loaded.ok()) return std::unique_ptr<Detector>(std::move(loaded).value());
    if (kind == "learned") return loaded.error();
    if (warning != nullptr) {
      *warning =
          "the learned detector is unavailable, using the classical one: " + loaded.error().message;
    }
  } else if (kind != "classical") {
    return MakeError(ErrorCode::kInvalidArgument,
                     "unknown detector \"" + options.kind +
                         "\" (this build has: " + std::string(DetectorKinds()) + ")");
  }
  ClassicalOptions classical;
  classical.min_confidence = options.min_confidence;
  return std::unique_ptr<Detector>(std::make_unique<ClassicalDetector>(classical));
}

}  // namespace uiscope::vision
