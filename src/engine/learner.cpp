#include "engine/learner.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>
#include <unordered_set>

#include "core/clock.h"
#include "image/perceptual_hash.h"

namespace uiscope {
namespace {

// How far from its remembered place (window pixels, each axis) a target is
// looked for in the pixels: a layout that shifted by a toolbar or a line.
constexpr int kSearchRadius = 48;
// How many targets one observation looks for by fingerprint per window.
constexpr size_t kMaxSearchesPerWindow = 8;

// The targets of `after` that differ from `before` (by ID), and the IDs of
// `before` that `after` no longer holds.
void Changes(const std::vector<LearnedTarget>& before, const std::vector<LearnedTarget>& after,
             std::vector<LearnedTarget>& upserted, std::vector<std::string>& removed) {
  std::unordered_map<std::string, const LearnedTarget*> old;
  for (const LearnedTarget& t : before) old.emplace(t.id, &t);
  for (const LearnedTarget& t : after) {
    auto it = old.find(t.id);
    if (it == old.end() || !(*it->second == t)) upserted.push_back(t);
    if (it != old.end()) old.erase(it);
  }
  for (const auto& [id, t] : old) removed.push_back(id);
}

struct WindowRef {
  const Node* app = nullptr;
  Node* window = nullptr;
};

}  // namespace

Learner::Learner(std::shared_ptr<LearnedStore> store,
                 std::function<bool(const std::string&)> learns)
    : store_(std::move(store)), learns_(std::move(learns)) {}

bool Learner::Learns(const std::string& app) const { return !learns_ || learns_(app); }

AppSignature Learner::SignatureOf(const Node& app, const Node& window) {
  // The toolkit the backend named (gtk3, qt5...); an app without
  // accessibility is known only to X11.
  std::string toolkit = app.toolkit;
  if (toolkit.empty()) toolkit = app.source == Source::kX11 ? "x11" : "atspi";
  return AppSignature{app.name, TitlePattern(window.name), std::move(toolkit)};
}

LearnStats Learner::Learn(Snapshot& snapshot, const RegionCapture& capture,
                          std::vector<std::string>& warnings) {
  const auto start = std::chrono::steady_clock::now();
  LearnStats stats;
  const int64_t now = UnixNowMs();
  hits_.clear();
  for (Node& app : snapshot.roots) {
    if (app.name.empty() || !Learns(app.name)) continue;
    for (Node& window : app.children) {
      if (!IsWindowRole(window.role) || !window.bounds || window.bounds->Empty()) continue;
      const AppSignature sig = SignatureOf(app, window);
      auto stored = store_->Load(sig);
      if (!stored.ok()) {
        warnings.push_back("learned memory: " + stored.error().message);
        return stats;
      }
      ++stats.windows;
      std::vector<SeenTarget> seen = SeenTargetsOf(window);
      // The window's pixels, captured once and only when needed: to look
      // for targets only the pixels show (taught, vision, OCR) that were not
      // seen now, near where they were relative to the window; and to take
      // the fingerprint of such targets seen for the first time, which is
      // what finds them again after the layout shifts.
      std::unordered_set<std::string> seen_ids;
      for (const SeenTarget& s : seen) seen_ids.insert(s.id);
      std::unordered_map<std::string, const LearnedTarget*> stored_by_id;
      for (const LearnedTarget& t : *stored) stored_by_id[t.id] = &t;
      auto pixel_only = [](LearnedSource source) {
        return source != LearnedSource::kAx && source != LearnedSource::kMerged;
      };
      // Each search reads the window around the target's old place (a few
      // ms for a button): only taught and reliable targets are looked for,
      // the most confident first, at most kMaxSearchesPerWindow.
      std::vector<const LearnedTarget*> to_find;
      for (const LearnedTarget& t : *stored) {
        if (t.visual_hash && pixel_only(t.source) && !seen_ids.count(t.id) &&
            (t.source == LearnedSource::kTaught || t.Reliable())) {
          to_find.push_back(&t);
        }
      }
      std::stable_sort(to_find.begin(), to_find.end(), [](const auto* a, const auto* b) {
        const bool ta = a->source == LearnedSource::kTaught;
        const bool tb = b->source == LearnedSource::kTaught;
        return ta != tb ? ta : a->confidence > b->confidence;
      });
      if (to_find.size() > kMaxSearchesPerWindow) to_find.resize(kMaxSearchesPerWindow);
      std::vector<SeenTarget*> to_fingerprint;
      for (SeenTarget& s : seen) {
        auto it = stored_by_id.find(s.id);
        const bool stored_now = it != stored_by_id.end();
        if (pixel_only(s.source) && (stored_now ? !it->second->visual_hash : s.learn_new)) {
          to_fingerprint.push_back(&s);
        }
      }
      std::vector<FoundTarget> found;
      bool pixels_checked = false;
      if (capture && (!to_find.empty() || !to_fingerprint.empty())) {
        auto image = capture(*window.bounds);
        if (image.ok()) {
          pixels_checked = true;
          for (SeenTarget* s : to_fingerprint) s->visual_hash = DHash64(*image, s->bounds);
          for (const LearnedTarget* t : to_find) {
            auto match = FindByHash(*image, *t->visual_hash, t->bounds, kSearchRadius);
            if (!match) continue;
            SeenTarget s;
            s.id = t->id;
            s.role = t->role;
            s.label = t->label;
            s.bounds = match->rect;
            s.source = t->source;
            s.visual_hash = t->visual_hash;
            s.parent = t->parent;
            seen.push_back(std::move(s));
            found.push_back(
                FoundTarget{t->id, match->rect.Translated(window.bounds->x, window.bounds->y)});
          }
        } else {
          warnings.push_back("learned memory: could not capture \"" + window.name +
                             "\" to look for its taught targets: " + image.error().message);
        }
      }
      std::vector<LearnedTarget> after = *stored;
      const LearnCounts c = LearnFromObservation(after, seen, pixels_checked, now);
      stats.counts.same += c.same;
      stats.counts.moved += c.moved;
      stats.counts.added += c.added;
      stats.counts.stale += c.stale;
      stats.counts.dropped += c.dropped;
      std::vector<LearnedTarget> upserted;
      std::vector<std::string> removed;
      Changes(*stored, after, upserted, removed);
      if (!upserted.empty() || !removed.empty()) {
        if (auto st = store_->Save(sig, upserted, removed, now); !st.ok()) {
          warnings.push_back("learned memory: " + st.error().message);
        }
      }
      for (const LearnedTarget& t : after) {
        if (t.hits > 0) hits_[t.id] = t.hits;
      }
      std::vector<Node> learned = LearnedNodes(window, after, found);
      stats.merged += static_cast<int>(learned.size());
      for (Node& n : learned) window.children.push_back(std::move(n));
    }
  }
  stats.ms = MsSince(start);
  return stats;
}

void Learner::RecordAction(const Node& target, const std::vector<Node>& roots,
                           std::string_view effect, std::vector<std::string>& warnings) {
  if (effect != "observed" && effect != "none") return;
  if (target.id.empty() || target.Has(State::kPassword)) return;
  WindowRef where;
  for (const Node& app : roots) {
    if (target.pid != 0 && app.pid != target.pid) continue;
    for (const Node& window : app.children) {
      if (window.id == target.window) {
        where = WindowRef{&app, const_cast<Node*>(&window)};
        break;
      }
    }
    if (where.window != nullptr) break;
  }
  if (where.window == nullptr || !where.window->bounds || where.app->name.empty() ||
      !Learns(where.app->name)) {
    return;
  }
  const AppSignature sig = SignatureOf(*where.app, *where.window);
  auto stored = store_->Load(sig);
  if (!stored.ok()) {
    warnings.push_back("learned memory: " + stored.error().message);
    return;
  }
  const int64_t now = UnixNowMs();
  auto it = std::find_if(stored->begin(), stored->end(),
                         [&](const LearnedTarget& t) { return t.id == target.id; });
  LearnedTarget t;
  if (it != stored->end()) {
    t = *it;
  } else {
    // Not learned yet (not an interactive role, or learning started since):
    // what an action aimed at is a target, learned now.
    if (!target.bounds) return;
    std::vector<LearnedTarget> fresh;
    SeenTarget s;
    s.id = target.id;
    s.role = target.role;
    s.label = target.name.empty() ? target.description : target.name;
    s.bounds = target.bounds->Translated(-where.window->bounds->x, -where.window->bounds->y);
    s.source = LearnedSourceOf(target.source);
    LearnFromObservation(fresh, {s}, false, now);
    t = fresh.front();
  }
  if (effect == "observed") {
    RecordHit(t, now);
    hits_[t.id] = t.hits;
  } else {
    RecordMiss(t, now);
  }
  if (auto st = store_->Save(sig, {t}, {}, now); !st.ok()) {
    warnings.push_back("learned memory: " + st.error().message);
  }
}

Result<Learner::Taught> Learner::Teach(const std::vector<Node>& roots, std::string_view label,
                                       const Rect& bounds, Role role,
                                       const RegionCapture& capture) {
  const Point centre = bounds.Center();
  const Node* best_app = nullptr;
  const Node* best = nullptr;
  for (const Node& app : roots) {
    for (const Node& window : app.children) {
      if (!IsWindowRole(window.role) || !window.bounds || !window.bounds->Contains(centre)) {
        continue;
      }
      const bool better = best == nullptr ||
                          (window.Has(State::kActive) && !best->Has(State::kActive)) ||
                          (window.Has(State::kActive) == best->Has(State::kActive) &&
                           window.bounds->Area() < best->bounds->Area());
      if (better) {
        best = &window;
        best_app = &app;
      }
    }
  }
  if (best == nullptr) {
    return MakeError(ErrorCode::kNotFound,
                     "no window at " + std::to_string(centre.x) + "," + std::to_string(centre.y) +
                         ": teach a target inside an application's window (see `uiscope "
                         "windows`)");
  }
  if (best_app->name.empty() || !Learns(best_app->name)) {
    return MakeError(ErrorCode::kDenied,
                     "uiscope does not learn about \"" + best_app->name +
                         "\" (the configuration's \"memory\" key, or the deny list)");
  }
  const AppSignature sig = SignatureOf(*best_app, *best);
  const Rect relative = bounds.Translated(-best->bounds->x, -best->bounds->y);
  const int64_t now = UnixNowMs();
  auto taught = TaughtTarget(sig, label, relative, role, now);
  if (!taught.ok()) return taught.error();
  // No fingerprint of pixels that show a password field.
  bool over_password = false;
  ForEachNode(best->children, [&](const Node& n, int) {
    if (n.Has(State::kPassword) && n.bounds && !Intersect(*n.bounds, bounds).Empty()) {
      over_password = true;
    }
  });
  if (capture && !over_password) {
    auto image = capture(*best->bounds);
    if (image.ok()) taught->visual_hash = DHash64(*image, relative);
  }
  auto stored = store_->Load(sig);
  if (!stored.ok()) return stored.error();
  for (const LearnedTarget& t : *stored) {
    if (t.id == taught->id) taught->first_seen_ms = t.first_seen_ms;
  }
  if (auto st = store_->Save(sig, {*taught}, {}, now); !st.ok()) return st.error();
  return Taught{*taught, sig, best->id};
}

RegionCapture RegionsOf(ScreenCapture& capture) {
  return [&capture](const Rect& region) -> Result<Image> {
    auto frame = capture.CaptureRegion(region);
    if (!frame.ok()) return frame.error();
    return std::move(frame->image);
  };
}

}  // namespace uiscope
