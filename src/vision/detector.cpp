#include "vision/detector.h"

#include <algorithm>

#include "vision/classical_detector.h"
#include "vision/learned_detector.h"

namespace uiscope::vision {
namespace {

// Two boxes are the same element, or one a part of the other, when they
// overlap at IoU >= 0.3 or half the smaller one lies in the other.
bool Overlapping(const Rect& a, const Rect& b) {
  return IoU(a, b) >= 0.3 || SharesHalfOfTheSmaller(a, b);
}

// "combined": every element the classical detector finds, and those the
// learned one finds where the classical one found nothing (its roles and
// boxes are the more precise where both see an element; the learned one
// sees what has no edges of its own: borderless buttons, a check box's whole
// allocation).
class CombinedDetector final : public Detector {
 public:
  CombinedDetector(std::unique_ptr<Detector> classical, std::unique_ptr<Detector> learned)
      : classical_(std::move(classical)), learned_(std::move(learned)) {}

  std::string_view name() const override { return "combined"; }

  Result<std::vector<Element>> Detect(const Image& image, Point origin,
                                      std::span<const Rect> masks) const override {
    auto out = classical_->Detect(image, origin, masks);
    if (!out.ok()) return out;
    auto learned = learned_->Detect(image, origin, masks);
    if (!learned.ok()) return learned;
    const size_t classical_count = out->size();
    for (Element& e : *learned) {
      const bool seen =
          std::any_of(out->begin(), out->begin() + static_cast<long>(classical_count),
                      [&](const Element& c) { return Overlapping(c.bounds, e.bounds); });
      if (!seen) out->push_back(std::move(e));
    }
    SortInReadingOrder(*out);
    return out;
  }

 private:
  std::unique_ptr<Detector> classical_;
  std::unique_ptr<Detector> learned_;
};

Result<std::unique_ptr<LearnedDetector>> LoadLearned(const DetectorOptions& options) {
  LearnedOptions learned;
  learned.model_path = options.model_path;
  learned.min_confidence = options.min_confidence;
  return LearnedDetector::Load(learned);
}

std::unique_ptr<Detector> MakeClassical(const DetectorOptions& options) {
  ClassicalOptions classical;
  classical.min_confidence = options.min_confidence;
  return std::make_unique<ClassicalDetector>(classical);
}

}  // namespace

void SortInReadingOrder(std::vector<Element>& elements) {
  std::sort(elements.begin(), elements.end(), [](const Element& a, const Element& b) {
    return a.bounds.y != b.bounds.y ? a.bounds.y < b.bounds.y : a.bounds.x < b.bounds.x;
  });
}

std::string_view DetectorKinds() { return "classical, learned, combined, auto"; }

Result<std::unique_ptr<Detector>> CreateDetector(const DetectorOptions& options,
                                                 std::string* warning) {
  // A kind named is a kind required; the default falls back as "auto" does.
  const bool named = !options.kind.empty();
  const std::string_view kind = named ? std::string_view(options.kind) : kDefaultDetector;
  const auto fall_back = [&](const Error& error) {
    if (warning != nullptr) {
      *warning =
          "the learned detector is unavailable, using the classical one alone: " + error.message;
    }
  };
  if (kind == "combined") {
    auto loaded = LoadLearned(options);
    if (loaded.ok()) {
      return std::unique_ptr<Detector>(std::make_unique<CombinedDetector>(
          MakeClassical(options), std::unique_ptr<Detector>(std::move(loaded).value())));
    }
    if (named) return loaded.error();
    fall_back(loaded.error());
  } else if (kind == "learned" || kind == "auto") {
    auto loaded = LoadLearned(options);
    if (loaded.ok()) return std::unique_ptr<Detector>(std::move(loaded).value());
    if (kind == "learned" && named) return loaded.error();
    fall_back(loaded.error());
  } else if (kind != "classical") {
    return MakeError(ErrorCode::kInvalidArgument,
                     "unknown detector \"" + options.kind +
                         "\" (this build has: " + std::string(DetectorKinds()) + ")");
  }
  return std::unique_ptr<Detector>(MakeClassical(options));
}

}  // namespace uiscope::vision
