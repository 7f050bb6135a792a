// Learned targets (DESIGN §5.6, seed 002 §3-§5): what uiscope remembers of
// each application's elements between processes, sessions and restarts, and
// the rules that evolve it. Plain data and pure functions: the store is
// memory/target_store.h (SQLite), the wiring engine/learner.h.
//
// Coordinates: a target's bounds and click point are relative to the
// top-left corner of its window, so a window that moved leaves them valid.
//
// The rules (seed 002 §4, constants below):
//   passive, on every observation of a window of the app:
//     seen at the same place (within kSamePlaceTolerance) -> confidence
//       + kSamePlaceGain, at most kMaxConfidence;
//     seen elsewhere -> bounds updated, confidence kept;
//     not seen where it would have been seen -> stale, confidence
//       x kStaleFactor; a learned (not taught) target below kForgetBelow is
//       dropped, a taught one keeps kMinConfidence until forgotten;
//     new -> added with kInitialConfidence.
//   active, after every verified action on a target:
//     effect observed -> hit, confidence + kHitGain (at most kMaxConfidence);
//     effect none -> miss, confidence - kMissPenalty (at least kMinConfidence).
//   teaching: a taught target starts at kTaughtConfidence.
// A target is reliable when hits > kReliableHits and confidence >
// kReliableConfidence: then, not visible now, it is still shown (source
// learned, stale) in observations.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/geometry.h"
#include "core/node.h"
#include "core/result.h"

namespace uiscope {

inline constexpr double kInitialConfidence = 0.5;
inline constexpr double kTaughtConfidence = 0.8;
inline constexpr double kSamePlaceGain = 0.1;
inline constexpr double kMaxConfidence = 0.99;
inline constexpr double kStaleFactor = 0.8;
inline constexpr double kHitGain = 0.05;
inline constexpr double kMissPenalty = 0.15;
inline constexpr double kMinConfidence = 0.1;
inline constexpr double kForgetBelow = 0.05;
inline constexpr int kSamePlaceTolerance = 4;  // pixels, each edge
inline constexpr int kReliableHits = 3;
inline constexpr double kReliableConfidence = 0.7;
// The store's bound: targets kept per app signature (the least confident,
// then least recently seen, go first) and app signatures kept (the least
// recently seen go first). 10 apps x 1,000 targets take about 2 MB.
inline constexpr int kMaxTargetsPerApp = 1000;
inline constexpr int kMaxApps = 200;

// Which application and window a target belongs to: the app's name, a
// pattern of its window's title (titles carry document names and counters:
// see TitlePattern) and its toolkit ("atspi" for an app read through
// accessibility, "x11" for one known only from its windows).
struct AppSignature {
  std::string app;
  std::string title_pattern;
  std::string toolkit;

  // One string naming the three, the store's key.
  std::string Key() const;
  bool operator==(const AppSignature&) const = default;
};

// The part of a window title that names the window rather than its
// content: the last part after " - " or " — " when there is one ("notes.txt
// - gedit" -> "gedit"), every run of digits as "#" ("Page 3 of 12" ->
// "Page # of #"), spaces trimmed.
std::string TitlePattern(std::string_view title);

// Where a target came from.
enum class LearnedSource : uint8_t { kAx, kVision, kOcr, kMerged, kTaught };
std::string_view LearnedSourceName(LearnedSource source);  // "ax", ..., "taught"
std::optional<LearnedSource> LearnedSourceFromName(std::string_view name);
LearnedSource LearnedSourceOf(Source source);

struct LearnedTarget {
  std::string id;  // the element's stable ID (taught: "lrn_" + hash)
  Role role = Role::kUnknown;
  std::string label;
  Rect bounds;  // relative to the window
  Point click;  // relative to the window
  LearnedSource source = LearnedSource::kAx;
  double confidence = kInitialConfidence;
  int64_t first_seen_ms = 0;  // Unix ms
  int64_t last_seen_ms = 0;
  int hits = 0;
  int misses = 0;
  // Perceptual hash (DHash64, image/perceptual_hash.h) of the element's
  // pixels, when they were at hand.
  std::optional<uint64_t> visual_hash;
  std::string parent;  // ID of the parent element ("" = the window)
  bool stale = false;  // not seen at the last observation that could see it

  bool Reliable() const { return hits > kReliableHits && confidence > kReliableConfidence; }
  bool operator==(const LearnedTarget&) const = default;
};

// An element as one observation saw it (bounds relative to its window).
struct SeenTarget {
  std::string id;
  Role role = Role::kUnknown;
  std::string label;
  Rect bounds;
  LearnedSource source = LearnedSource::kAx;
  std::optional<uint64_t> visual_hash;
  std::string parent;
  // Whether an observation adds it when it is not stored yet: interactive
  // elements are; others (a label an action clicked) are only kept current.
  bool learn_new = true;
};

struct LearnCounts {
  int same = 0;
  int moved = 0;
  int added = 0;
  int stale = 0;
  int dropped = 0;
  bool operator==(const LearnCounts&) const = default;
};

// Applies the passive rules to `stored` (one app signature's targets) after
// an observation that saw `seen`. A stored target that was not seen turns
// stale only when the observation could have seen it: always for targets
// read from the tree (kAx, kMerged), and for the others (taught, vision,
// OCR: only the pixels show them) when `pixels_checked`. Targets are matched
// by ID. New targets are appended; the bound (kMaxTargetsPerApp) is applied.
LearnCounts LearnFromObservation(std::vector<LearnedTarget>& stored,
                                 const std::vector<SeenTarget>& seen, bool pixels_checked,
                                 int64_t now_ms);

// The active rules (see above).
void RecordHit(LearnedTarget& target, int64_t now_ms);
void RecordMiss(LearnedTarget& target, int64_t now_ms);

// Drops the least confident, then least recently seen, targets beyond
// `max_targets`.
void ApplyBound(std::vector<LearnedTarget>& targets, int max_targets = kMaxTargetsPerApp);

// A target taught by a person (seed 002 §4.3), with an ID derived from its
// signature and label so that teaching the same label again replaces it.
// InvalidArgument for an empty label or empty bounds.
Result<LearnedTarget> TaughtTarget(const AppSignature& signature, std::string_view label,
                                   const Rect& bounds_in_window, Role role, int64_t now_ms);

// The nodes memory adds to a window's observation (seed 002 §5.3, priority
// after accessibility and vision): every stored target that is not in the
// tree already (by ID, or overlapping a node of the same label with IoU >=
// 0.5) and that is either `found` (re-found in the pixels now: source
// learned) or reliable or taught (source learned, state stale). `window` is the window
// node as observed (its bounds place the targets on screen); `found` lists
// the IDs re-found in its pixels with their bounds now (screen pixels).
struct FoundTarget {
  std::string id;
  Rect bounds;  // screen pixels
};
std::vector<Node> LearnedNodes(const Node& window, const std::vector<LearnedTarget>& stored,
                               const std::vector<FoundTarget>& found);

// Where learned targets are kept: memory::TargetStore (SQLite, shared by
// every uiscope process). Implementations are safe to call from any thread.
class LearnedStore {
 public:
  virtual ~LearnedStore() = default;
  // The targets of `signature` (empty when it is not known).
  virtual Result<std::vector<LearnedTarget>> Load(const AppSignature& signature) = 0;
  // Writes `upserted` (added or changed) and deletes `removed` (IDs) in one
  // transaction; the signature's last-seen time becomes `now_ms`.
  virtual Status Save(const AppSignature& signature, const std::vector<LearnedTarget>& upserted,
                      const std::vector<std::string>& removed, int64_t now_ms) = 0;
  // The signature whose targets hold ID `id` (nullopt when none does).
  virtual Result<std::optional<AppSignature>> Holding(const std::string& id) = 0;
};

// A window's elements as SeenTargets: every element under `window` with an
// ID and bounds, relative to the window's, learn_new for the interactive
// ones (password fields left out: they are never stored, nor anything
// about them or under them). Nodes of source learned or x11 are skipped
// (memory does not learn from itself).
std::vector<SeenTarget> SeenTargetsOf(const Node& window);

}  // namespace uiscope
