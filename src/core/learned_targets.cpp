#include "core/learned_targets.h"

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

namespace uiscope {
namespace {

constexpr std::array<std::string_view, 5> kSourceNames = {"ax", "vision", "ocr", "merged",
                                                          "taught"};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

bool SamePlace(const Rect& a, const Rect& b) {
  return std::abs(a.x - b.x) <= kSamePlaceTolerance && std::abs(a.y - b.y) <= kSamePlaceTolerance &&
         std::abs(a.Right() - b.Right()) <= kSamePlaceTolerance &&
         std::abs(a.Bottom() - b.Bottom()) <= kSamePlaceTolerance;
}

// Rounded to thousandths, as the store keeps it, so that a value read back
// equals the one written.
double Round3(double v) { return std::round(v * 1000.0) / 1000.0; }

bool SeenOnlyInPixels(LearnedSource s) {
  return s != LearnedSource::kAx && s != LearnedSource::kMerged;
}

}  // namespace

std::string AppSignature::Key() const { return app + "\x1f" + title_pattern + "\x1f" + toolkit; }

std::string TitlePattern(std::string_view title) {
  for (std::string_view sep : {std::string_view(" \xe2\x80\x94 "), std::string_view(" - ")}) {
    if (size_t at = title.rfind(sep); at != std::string_view::npos) {
      std::string_view tail = Trim(title.substr(at + sep.size()));
      if (!tail.empty()) {
        title = tail;
        break;
      }
    }
  }
  std::string out;
  bool in_digits = false;
  for (char c : Trim(title)) {
    const bool digit = c >= '0' && c <= '9';
    if (digit && !in_digits) out += '#';
    if (!digit) out += c;
    in_digits = digit;
  }
  return out;
}

std::string_view LearnedSourceName(LearnedSource source) {
  return kSourceNames[static_cast<size_t>(source)];
}

std::optional<LearnedSource> LearnedSourceFromName(std::string_view name) {
  for (size_t i = 0; i < kSourceNames.size(); ++i) {
    if (kSourceNames[i] == name) return static_cast<LearnedSource>(i);
  }
  return std::nullopt;
}

LearnedSource LearnedSourceOf(Source source) {
  switch (source) {
    case Source::kVision:
      return LearnedSource::kVision;
    case Source::kOcr:
      return LearnedSource::kOcr;
    case Source::kMerged:
      return LearnedSource::kMerged;
    default:
      return LearnedSource::kAx;
  }
}

LearnCounts LearnFromObservation(std::vector<LearnedTarget>& stored,
                                 const std::vector<SeenTarget>& seen, bool pixels_checked,
                                 int64_t now_ms) {
  LearnCounts counts;
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < stored.size(); ++i) index.emplace(stored[i].id, i);
  std::unordered_set<std::string> seen_ids;
  for (const SeenTarget& s : seen) {
    if (s.id.empty() || !seen_ids.insert(s.id).second) continue;
    auto it = index.find(s.id);
    if (it == index.end() && !s.learn_new) continue;
    if (it == index.end()) {
      LearnedTarget t;
      t.id = s.id;
      t.role = s.role;
      t.label = s.label;
      t.bounds = s.bounds;
      t.click = s.bounds.Center();
      t.source = s.source;
      t.confidence = kInitialConfidence;
      t.first_seen_ms = now_ms;
      t.last_seen_ms = now_ms;
      t.visual_hash = s.visual_hash;
      t.parent = s.parent;
      index.emplace(t.id, stored.size());
      stored.push_back(std::move(t));
      ++counts.added;
      continue;
    }
    LearnedTarget& t = stored[it->second];
    if (SamePlace(t.bounds, s.bounds)) {
      t.confidence = Round3(std::min(kMaxConfidence, t.confidence + kSamePlaceGain));
      ++counts.same;
    } else {
      // A taught target keeps the click point it was taught, moved with it.
      const Point offset{t.click.x - t.bounds.x, t.click.y - t.bounds.y};
      t.click = t.source == LearnedSource::kTaught
                    ? Point{s.bounds.x + offset.x, s.bounds.y + offset.y}
                    : s.bounds.Center();
      ++counts.moved;
    }
    t.bounds = s.bounds;
    if (t.source != LearnedSource::kTaught) {
      t.role = s.role;
      t.label = s.label;
      t.source = s.source;
      t.parent = s.parent;
    }
    if (s.visual_hash) t.visual_hash = s.visual_hash;
    t.last_seen_ms = now_ms;
    t.stale = false;
  }
  for (LearnedTarget& t : stored) {
    if (seen_ids.contains(t.id)) continue;
    if (SeenOnlyInPixels(t.source) && !pixels_checked) continue;
    t.stale = true;
    t.confidence = Round3(t.confidence * kStaleFactor);
    if (t.source == LearnedSource::kTaught) t.confidence = std::max(kMinConfidence, t.confidence);
    ++counts.stale;
  }
  const size_t before = stored.size();
  std::erase_if(stored, [](const LearnedTarget& t) {
    return t.source != LearnedSource::kTaught && t.confidence < kForgetBelow;
  });
  counts.dropped = static_cast<int>(before - stored.size());
  const size_t unbounded = stored.size();
  ApplyBound(stored);
  counts.dropped += static_cast<int>(unbounded - stored.size());
  return counts;
}

void RecordHit(LearnedTarget& target, int64_t now_ms) {
  ++target.hits;
  target.confidence = Round3(std::min(kMaxConfidence, target.confidence + kHitGain));
  target.stale = false;
  target.last_seen_ms = now_ms;
}

void RecordMiss(LearnedTarget& target, int64_t now_ms) {
  ++target.misses;
  target.confidence = Round3(std::max(kMinConfidence, target.confidence - kMissPenalty));
  target.last_seen_ms = now_ms;
}

void ApplyBound(std::vector<LearnedTarget>& targets, int max_targets) {
  if (max_targets < 0 || targets.size() <= static_cast<size_t>(max_targets)) return;
  // Taught targets first: a person's word outlasts what was merely seen.
  std::stable_sort(targets.begin(), targets.end(),
                   [](const LearnedTarget& a, const LearnedTarget& b) {
                     const bool ta = a.source == LearnedSource::kTaught;
                     const bool tb = b.source == LearnedSource::kTaught;
                     if (ta != tb) return ta;
                     if (a.confidence != b.confidence) return a.confidence > b.confidence;
                     return a.last_seen_ms > b.last_seen_ms;
                   });
  targets.resize(static_cast<size_t>(max_targets));
}

Result<LearnedTarget> TaughtTarget(const AppSignature& signature, std::string_view label,
                                   const Rect& bounds_in_window, Role role, int64_t now_ms) {
  if (Trim(label).empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "the label to teach is empty");
  }
  if (bounds_in_window.Empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "the taught target's size is empty");
  }
  const std::string key = signature.Key() + "\x1f" + std::string(label);
  char hex[16];
  std::snprintf(hex, sizeof hex, "%06llx",
                static_cast<unsigned long long>(XXH3_64bits(key.data(), key.size()) & 0xffffff));
  LearnedTarget t;
  t.id = std::string("lrn_") + hex;
  t.role = role;
  t.label = std::string(Trim(label));
  t.bounds = bounds_in_window;
  t.click = bounds_in_window.Center();
  t.source = LearnedSource::kTaught;
  t.confidence = kTaughtConfidence;
  t.first_seen_ms = now_ms;
  t.last_seen_ms = now_ms;
  return t;
}

std::vector<Node> LearnedNodes(const Node& window, const std::vector<LearnedTarget>& stored,
                               const std::vector<FoundTarget>& found) {
  std::vector<Node> out;
  if (!window.bounds) return out;
  const Point origin{window.bounds->x, window.bounds->y};
  std::unordered_set<std::string> present;
  std::vector<const Node*> labelled;
  ForEachNode(window.children, [&](const Node& n, int) {
    present.insert(n.id);
    if (n.bounds && !n.name.empty()) labelled.push_back(&n);
  });
  for (const LearnedTarget& t : stored) {
    if (present.contains(t.id)) continue;
    auto hit = std::find_if(found.begin(), found.end(),
                            [&](const FoundTarget& f) { return f.id == t.id; });
    // A person's word stands until forgotten: a taught target is shown also
    // where the pixels cannot confirm it now (then stale).
    if (hit == found.end() && !t.Reliable() && t.source != LearnedSource::kTaught) continue;
    const Rect screen = hit != found.end() ? hit->bounds : t.bounds.Translated(origin.x, origin.y);
    // Accessibility and vision see it already under another ID.
    const bool shown = std::any_of(labelled.begin(), labelled.end(), [&](const Node* n) {
      return n->name == t.label && IoU(*n->bounds, screen) >= 0.5;
    });
    if (shown) continue;
    Node n;
    n.id = t.id;
    n.role = t.role;
    n.name = t.label;
    n.bounds = screen;
    n.source = Source::kLearned;
    n.confidence = static_cast<float>(t.confidence);
    n.app = window.app;
    n.pid = window.pid;
    n.window = window.id;
    n.states.Set(State::kShowing, hit != found.end());
    n.states.Set(State::kStale, hit == found.end());
    out.push_back(std::move(n));
  }
  return out;
}

std::vector<SeenTarget> SeenTargetsOf(const Node& window) {
  std::vector<SeenTarget> out;
  if (!window.bounds) return out;
  const Point origin{window.bounds->x, window.bounds->y};
  struct Walk {
    const Point& origin;
    std::vector<SeenTarget>& out;
    void operator()(const std::vector<Node>& nodes, const std::string& parent) {
      for (const Node& n : nodes) {
        if (n.Has(State::kPassword)) continue;  // neither it nor anything under it
        if (n.source != Source::kLearned && n.source != Source::kX11 && !n.id.empty() && n.bounds &&
            !n.bounds->Empty()) {
          SeenTarget s;
          s.learn_new = IsInteractiveRole(n.role);
          s.id = n.id;
          s.role = n.role;
          s.label = n.name.empty() ? n.description : n.name;
          s.bounds = n.bounds->Translated(-origin.x, -origin.y);
          s.source = LearnedSourceOf(n.source);
          s.parent = parent;
          out.push_back(std::move(s));
        }
        (*this)(n.children, n.id);
      }
    }
  };
  Walk{origin, out}(window.children, "");
  return out;
}

}  // namespace uiscope
