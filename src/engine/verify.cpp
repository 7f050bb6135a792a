#include "engine/verify.h"

#include <algorithm>
#include <cstdio>
#include <thread>

#include "core/clock.h"
#include "core/format.h"
#include "core/ids.h"
#include "image/image_diff.h"
#include "platform/windows.h"

namespace uiscope {
namespace {

using Clock = std::chrono::steady_clock;

// Evidence areas are widened a little: a focus ring or a pressed frame is
// drawn just outside the element's accessible bounds.
constexpr int kEvidenceMargin = 4;
// A change this thin is a text caret blinking, never an effect on its own.
constexpr int kCaretMaxWidth = 3;
constexpr auto kPollPause = std::chrono::milliseconds(2);
// How long a button newly shown pressed holds the verdict back (see
// MidPress, VerifyScope::button_press); Qt's animated click lasts 100 ms,
// GTK 4's 250 ms.
constexpr auto kPressMax = std::chrono::milliseconds(400);
// How long the tree of a moving effect (VerifyScope::moving) must stay the
// same, from the first evidence or its last change, before the verdict.
constexpr auto kMovingQuiet = std::chrono::milliseconds(200);
// How long pixels must stay the same, after the first evidence or their
// last change, before the verdict: a few frames at 60 Hz, so that a window
// mapped and then painted, or a repaint spread over two frames, is reported
// whole.
constexpr auto kPixelQuiet = std::chrono::milliseconds(60);
// How long a tree change waits for its repaint. GTK 4 repaints at its next
// frame clock tick; gnome-calculator's display was repainted more than the
// old 80 ms lag after its tree changed, and the verdict said "pixels:
// unchanged". A tree change that repaints nothing (an action list) costs
// this much.
constexpr auto kRepaintMax = std::chrono::milliseconds(300);
// The longest the verdict waits after the first evidence for pixels to stop
// changing (an animation, a spinner, a blinking caret never do).
constexpr auto kSettleMax = std::chrono::milliseconds(1000);
// How close to the deadline the last tree read must have begun for a
// verdict of no effect: a few polls of a quick app.
constexpr auto kLateRead = std::chrono::milliseconds(50);
// Tile size of the change areas reported.
constexpr int kAreaTile = 16;
// The least time between the before capture and the second look that finds
// what animates on its own (Verifier::NoteAnimation): more than a frame at
// 60 Hz, so a spinner has moved.
constexpr auto kAnimationSample = std::chrono::milliseconds(20);

Rect Inflate(const Rect& r, int m) { return Rect{r.x - m, r.y - m, r.w + 2 * m, r.h + 2 * m}; }

bool CaretLike(const Rect& r) { return r.w <= kCaretMaxWidth; }

// Whether a change of a node is one that is drawn: a name, value, bounds or
// state such as checked — not only its action list or description, nor the
// focus alone (a focus ring is not always drawn).
bool Drawn(const NodeChange& c) {
  for (const FieldChange& f : c.fields) {
    if (f.field == "name" || f.field == "value" || f.field == "bounds") return true;
  }
  for (const auto* states : {&c.states_added, &c.states_removed}) {
    for (const std::string& s : *states) {
      if (s != "focused" && s != "active") return true;
    }
  }
  return false;
}

// Where the nodes a diff mentions are (after the change for added and
// changed nodes, before it for removed ones): the repaint an effect causes
// lands there. With `drawn_only`, only changes that are drawn (Drawn).
std::vector<Rect> TreeChangeAreas(const TreeDiff& diff, const std::vector<Node>& before,
                                  const std::vector<Node>& after, bool drawn_only) {
  std::vector<Rect> out;
  for (const AddedNode& a : diff.added) {
    if (a.node.bounds) out.push_back(*a.node.bounds);
  }
  for (const RemovedNode& r : diff.removed) {
    if (const Node* n = FindById(before, r.id); n && n->bounds) out.push_back(*n->bounds);
  }
  for (const NodeChange& c : diff.changed) {
    if (drawn_only && !Drawn(c)) continue;
    if (const Node* n = FindById(after, c.id); n && n->bounds) out.push_back(*n->bounds);
    if (const Node* n = FindById(before, c.id); n && n->bounds) out.push_back(*n->bounds);
  }
  return out;
}

// Whether pixels changed inside any of `areas` (screen pixels, widened by
// the evidence margin); `region` is where the images sit on screen. With
// `ignore_caret`, a change no wider than a text caret does not count.
bool ChangedWithin(const Image& before, const Image& after, const Rect& region,
                   const std::vector<Rect>& areas, bool ignore_caret) {
  for (const Rect& a : areas) {
    const Rect local = Inflate(a, kEvidenceMargin).Translated(-region.x, -region.y);
    auto diff = DiffImagesWithin(before, after, local);
    if (!diff.ok() || !diff->bounds) continue;
    if (ignore_caret && CaretLike(*diff->bounds)) continue;
    return true;
  }
  return false;
}

// Whether the diff shows a node that became "pressed": a click still in
// progress. Qt's Press action is QAbstractButton::animateClick(): the
// button shows pressed for 100 ms and only then emits clicked, so the
// effect (a status line changing) comes after the first change of the tree.
// Toggle buttons may stay pressed, hence a bound on the wait (kPressMax).
bool MidPress(const TreeDiff& d) {
  for (const NodeChange& c : d.changed) {
    if (std::find(c.states_added.begin(), c.states_added.end(), "pressed") !=
        c.states_added.end()) {
      return true;
    }
  }
  return false;
}

// Whether the diff shows nothing but focus moving: a pointer press focuses
// a button before its release activates it, and a tree read between the two
// sees only the focus move (GTK 3: "Add row" focused, its row not yet added).
bool FocusOnly(const TreeDiff& d) {
  if (!d.added.empty() || !d.removed.empty() || d.changed.empty()) return false;
  for (const NodeChange& c : d.changed) {
    for (const FieldChange& f : c.fields) {
      if (f.field != "states") return false;
    }
    for (const auto* states : {&c.states_added, &c.states_removed}) {
      for (const std::string& s : *states) {
        if (s != "focused") return false;
      }
    }
  }
  return true;
}

// Whether the tree's only change is `target` gaining "enabled" (and
// nothing else about it).
bool OwnEnablingOnly(const TreeDiff& d, const std::string& target) {
  if (target.empty() || !d.added.empty() || !d.removed.empty() || d.changed.size() != 1) {
    return false;
  }
  const NodeChange& c = d.changed[0];
  // A state change is also listed as the field "states".
  const bool states_only = std::all_of(c.fields.begin(), c.fields.end(),
                                       [](const FieldChange& f) { return f.field == "states"; });
  return c.id == target && states_only && c.states_removed.empty() &&
         c.states_added == std::vector<std::string>{"enabled"};
}

std::string Counts(const TreeDiff& d) {
  return std::to_string(d.added.size()) + " added, " + std::to_string(d.removed.size()) +
         " removed, " + std::to_string(d.changed.size()) + " changed";
}

}  // namespace

std::string HexHash(uint64_t hash) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(hash));
  return buf;
}

std::pair<std::vector<WindowChange>, std::vector<WindowChange>> CompareWindows(
    const std::vector<WindowInfo>& before, const std::vector<WindowInfo>& after) {
  auto shown = [](const std::vector<WindowInfo>& list, uint64_t id) {
    return std::any_of(list.begin(), list.end(),
                       [&](const WindowInfo& w) { return w.id == id && w.visible; });
  };
  std::pair<std::vector<WindowChange>, std::vector<WindowChange>> out;
  for (const WindowInfo& w : after) {
    if (w.visible && !shown(before, w.id)) out.first.push_back({w.id, w.title, w.bounds, 0});
  }
  for (const WindowInfo& w : before) {
    if (w.visible && !shown(after, w.id)) out.second.push_back({w.id, w.title, w.bounds, 0});
  }
  return out;
}

namespace {

// One poll's view of the pixels: what was compared, the before pixels of
// that box (cut from the screen captured before) and the after pixels, in
// which everything outside the compared windows is the before's.
struct PixelPoll {
  Rect region;                 // screen pixels of both images
  std::vector<Rect> compared;  // screen pixels, clipped to the screen
  Image before;
  Image after;
};

// Copies `area` (clamped to the images, which have one size) of `from`
// into `to`.
void CopyArea(const Image& from, Image& to, const Rect& area) {
  const Rect r = ClampToFrame(area, to.width, to.height);
  for (int y = r.y; y < r.Bottom(); ++y) {
    std::copy_n(from.Pixel(r.x, y), static_cast<size_t>(r.w) * 3, to.Pixel(r.x, y));
  }
}

// `after` with everything outside `keep` (image coordinates) taken from
// `before`: a change on the desktop between two windows is not theirs.
void KeepOnly(Image& after, const Image& before, const std::vector<Rect>& keep) {
  if (keep.size() == 1 && keep[0] == Rect{0, 0, after.width, after.height}) return;
  Image out = before;
  for (const Rect& k : keep) CopyArea(after, out, k);
  after = std::move(out);
}

// `after` with the areas `drop` (image coordinates) taken from `before`:
// what was animating before the action is not its effect.
void MaskOut(Image& after, const Image& before, const std::vector<Rect>& drop) {
  for (const Rect& d : drop) CopyArea(before, after, d);
}

std::vector<Rect> Localised(const std::vector<Rect>& rects, const Rect& region) {
  std::vector<Rect> out;
  for (const Rect& r : rects) out.push_back(r.Translated(-region.x, -region.y));
  return out;
}

WindowChange Clipped(WindowChange w, int width, int height) {
  w.bounds = ClampToFrame(w.bounds, width, height);
  return w;
}

}  // namespace

std::optional<std::vector<Rect>> AnimationMemory::Recall(uint64_t window, const Rect& bounds,
                                                         Clock::time_point now) const {
  for (const auto& [id, entry] : entries_) {
    if (id != window) continue;
    if (entry.bounds != bounds || now - entry.learned > kAnimationMemory) return std::nullopt;
    return entry.areas;
  }
  return std::nullopt;
}

void AnimationMemory::Learn(uint64_t window, const Rect& bounds, std::vector<Rect> areas,
                            Clock::time_point when) {
  Forget(window);
  if (entries_.size() >= kAnimationWindows) entries_.erase(entries_.begin());
  entries_.push_back({window, Entry{bounds, std::move(areas), when}});
}

void AnimationMemory::Forget(uint64_t window) {
  std::erase_if(entries_, [&](const auto& e) { return e.first == window; });
}

Verifier::Verifier(Observer& observer, ScreenCapture* capture, WindowSystem* windows,
                   Snapshot before, VerifyScope scope, VerifyOptions options, Accessibility* events,
                   AnimationMemory* animations)
    : observer_(observer),
      capture_(capture),
      windows_(windows),
      before_(std::move(before)),
      scope_(scope),
      options_(options),
      events_(events),
      animations_(animations) {
  CaptureBefore();
}

void Verifier::CaptureBefore() {
  before_screen_.reset();
  animating_.clear();
  hash_before_.clear();
  before_windows_.clear();
  windows_listed_ = false;
  if (!options_.pixels || capture_ == nullptr || !scope_.region) return;
  if (windows_ != nullptr) {
    auto listed = windows_->ListWindows();
    if (listed.ok()) {
      before_windows_ = std::move(listed).value();
      windows_listed_ = true;
    } else {
      warnings_.push_back("windows opened or closed are not compared: " + listed.error().message);
    }
  }
  // The whole screen: a window the action opens may appear anywhere, and
  // its before pixels are what it covers.
  auto frame = capture_->CaptureScreen();
  if (!frame.ok()) {
    warnings_.push_back("no pixel diff: " + frame.error().message);
    return;
  }
  scope_.region = Intersect(*scope_.region, frame->region);  // as clipped to the screen
  if (scope_.region->Empty()) {
    warnings_.push_back("no pixel diff: the target's window is off screen");
    return;
  }
  if (frame->frame_hash != 0) hash_before_ = HexHash(frame->frame_hash);
  before_screen_ = std::move(frame->image);
  before_taken_ = Clock::now();
}

void Verifier::JustBeforeAction() {
  events_at_action_.reset();
  if (events_ != nullptr && scope_.pid > 0) events_at_action_ = events_->EventsFrom(scope_.pid);
  animating_.clear();
  if (!before_screen_ || !scope_.region) return;
  // Never the evidence area: a hover highlight still fading there is
  // exactly where the action's own effect is looked for.
  const std::optional<Rect> evidence =
      scope_.evidence ? std::optional<Rect>(Inflate(*scope_.evidence, kEvidenceMargin))
                      : std::nullopt;
  auto leave_out = [&](const std::vector<Rect>& areas) {
    for (const Rect& area : areas) {
      if (evidence && !Intersect(area, *evidence).Empty()) continue;
      if (std::find(animating_.begin(), animating_.end(), area) == animating_.end()) {
        animating_.push_back(area);
      }
    }
  };
  const bool remembered = animations_ != nullptr && scope_.window != 0;
  if (remembered && evidence) {
    if (auto known = animations_->Recall(scope_.window, *scope_.region, Clock::now())) {
      leave_out(*known);
      return;
    }
  }
  const auto since = Clock::now() - before_taken_;
  if (since < kAnimationSample) std::this_thread::sleep_for(kAnimationSample - since);
  auto frame = capture_->CaptureRegion(*scope_.region);
  if (!frame.ok()) return;  // the polls will say if capturing keeps failing
  const Image before = CropImage(*before_screen_, frame->region);
  if (before.width != frame->image.width || before.height != frame->image.height) return;
  std::vector<Rect> found;  // wherever they are, evidence area or not
  const int64_t window_area = static_cast<int64_t>(scope_.region->w) * scope_.region->h;
  for (const Rect& local : ChangedAreas(before, frame->image, kAreaTile)) {
    // A caret blinking: never evidence on its own anyway (CaretLike), and
    // its field may well be where the effect shows.
    if (auto d = DiffImagesWithin(before, frame->image, local); d.ok() && d->bounds &&
                                                                CaretLike(*d->bounds)) {
      continue;
    }
    Rect area = local.Translated(frame->region.x, frame->region.y);
    // A pulsing progress bar's block moves along the bar: what animates is
    // the element, so the whole of the smallest element holding the change
    // is left out, when it is a leaf small beside the window (a canvas
    // playing an animation is not left out whole).
    const Node* holder = nullptr;
    ForEachNode(before_.roots, [&](const Node& n, int) {
      if (!n.bounds || !n.children.empty() || Intersect(*n.bounds, area) != area) return;
      if (holder == nullptr || n.bounds->Area() < holder->bounds->Area()) holder = &n;
    });
    if (holder != nullptr && holder->bounds->Area() * 8 <= window_area) area = *holder->bounds;
    area = Inflate(area, kEvidenceMargin);
    if (std::find(found.begin(), found.end(), area) == found.end()) found.push_back(area);
  }
  leave_out(found);
  if (remembered) animations_->Learn(scope_.window, *scope_.region, std::move(found), Clock::now());
}

Status Verifier::Retake() {
  if (options_.tree) {
    auto obs = observer_.RefreshApp(scope_.pid, options_.tree_timeout);
    if (!obs.ok()) return obs.error();
    before_ = std::move(obs->snapshot);
  }
  CaptureBefore();
  return OkStatus();
}

Verification Verifier::Wait(const std::function<bool()>& cancelled) {
  Verification v;
  v.warnings = warnings_;
  if (!animating_.empty()) {
    std::string areas;
    for (size_t i = 0; i < animating_.size() && i < 4; ++i) {
      const Rect& r = animating_[i];
      areas += (i ? " " : "") + std::to_string(r.x) + ',' + std::to_string(r.y) + ',' +
               std::to_string(r.w) + ',' + std::to_string(r.h);
    }
    if (animating_.size() > 4) areas += " …";
    v.warnings.push_back("pixels not compared in " + std::to_string(animating_.size()) +
                         " area" + (animating_.size() == 1 ? "" : "s") +
                         " changing before the action (an animation): " + areas);
  }
  const auto start = Clock::now();
  const auto deadline = start + options_.settle;
  std::optional<Clock::time_point> first_evidence;
  // When the pixels last differed from the poll before (or the area
  // compared changed).
  std::optional<Clock::time_point> last_pixel_change;
  bool tree_changed = false;
  // The tree's only change is the target enabling itself (VerifyScope::
  // target_id): neither it nor the target's repaint is evidence.
  bool own_enabling = false;
  bool pixel_evidence = false;
  bool tree_warned = false;
  bool windows_warned = false;
  std::vector<Node> after_roots;
  std::optional<PixelPoll> poll;  // the latest capture
  // For a moving effect: when the tree last read differently.
  std::optional<Clock::time_point> last_tree_change;
  const int screen_w = before_screen_ ? before_screen_->width : 0;
  const int screen_h = before_screen_ ? before_screen_->height : 0;
  // When the latest tree read began: a read that began long before the
  // deadline (a slow app's walk) says nothing about the state at the end.
  std::optional<Clock::time_point> last_read_started;
  // The application's events counted so far (nullopt: not counted): at the
  // end of the latest tree read, and just before the latest capture.
  auto events_now = [&]() -> std::optional<uint64_t> {
    if (!events_at_action_) return std::nullopt;
    return events_->EventsFrom(scope_.pid);
  };
  std::optional<uint64_t> events_at_read;
  std::optional<uint64_t> events_at_capture;
  auto refresh_tree = [&]() -> bool {
    last_read_started = Clock::now();
    auto obs = observer_.RefreshApp(scope_.pid, options_.tree_timeout);
    events_at_read = events_now();
    if (!obs.ok()) {
      if (!tree_warned) {
        v.warnings.push_back("re-observing the tree failed: " + obs.error().message);
        tree_warned = true;
      }
      return false;
    }
    if (scope_.moving &&
        !DiffTrees(after_roots.empty() ? before_.roots : after_roots, obs->snapshot.roots)
             .empty()) {
      last_tree_change = Clock::now();
    }
    after_roots = std::move(obs->snapshot.roots);
    v.tree = DiffTrees(before_.roots, after_roots);
    own_enabling = OwnEnablingOnly(v.tree, scope_.target_id);
    tree_changed = !v.tree.empty() && !own_enabling;
    return true;
  };
  // The windows now against those before: opened and closed ones into `v`,
  // and the screen areas to compare.
  bool windows_moved = false;  // a window kept open moved or was resized
  auto areas_to_compare = [&]() -> std::vector<Rect> {
    std::vector<Rect> areas{*scope_.region};
    if (!windows_listed_) return areas;
    auto listed = windows_->ListWindows();
    if (!listed.ok()) {
      if (!windows_warned) {
        v.warnings.push_back("listing the windows failed: " + listed.error().message);
        windows_warned = true;
      }
      return areas;
    }
    auto [opened, closed] = CompareWindows(before_windows_, *listed);
    v.windows_opened.clear();
    v.windows_closed.clear();
    for (WindowChange& w : opened) v.windows_opened.push_back(Clipped(w, screen_w, screen_h));
    for (WindowChange& w : closed) v.windows_closed.push_back(Clipped(w, screen_w, screen_h));
    for (const auto* list : {&v.windows_opened, &v.windows_closed}) {
      for (const WindowChange& w : *list) {
        if (!w.bounds.Empty()) areas.push_back(w.bounds);
      }
    }
    // A window moved or resized: where it was and where it is.
    for (const WindowInfo& after : *listed) {
      for (const WindowInfo& before : before_windows_) {
        if (after.id != before.id || !after.visible || !before.visible ||
            after.bounds == before.bounds) {
          continue;
        }
        windows_moved = true;
        for (const Rect& r : {before.bounds, after.bounds}) {
          const Rect c = ClampToFrame(r, screen_w, screen_h);
          if (!c.Empty()) areas.push_back(c);
        }
      }
    }
    return areas;
  };
  // Captures the areas to compare and diffs them against the screen before
  // into `v.pixels`; false when no capture could be taken.
  auto capture_after = [&]() -> bool {
    std::vector<Rect> compared = areas_to_compare();
    events_at_capture = events_now();
    auto frame = capture_->CaptureRegion(BoundingBox(compared));
    if (!frame.ok()) {
      if (v.warnings.size() < 4) v.warnings.push_back("capture failed: " + frame.error().message);
      return false;
    }
    PixelPoll next;
    next.region = frame->region;
    next.compared = std::move(compared);
    next.before = CropImage(*before_screen_, next.region);
    if (next.before.width != frame->image.width || next.before.height != frame->image.height) {
      return false;
    }
    next.after = std::move(frame->image);
    const std::vector<Rect> local = Localised(DisjointUnion(next.compared), next.region);
    KeepOnly(next.after, next.before, local);
    MaskOut(next.after, next.before, Localised(animating_, next.region));
    auto diff = DiffImages(next.before, next.after);
    if (!diff.ok()) return false;
    if (!poll || poll->region != next.region || poll->after.rgb != next.after.rgb) {
      last_pixel_change = Clock::now();
    }
    v.pixels.captured = true;
    v.pixels.region = next.region;
    v.pixels.compared = next.compared;
    v.pixels.compared_pixels = TotalArea(local);
    v.pixels.changed_pixels = diff->changed_pixels;
    v.pixels.score = v.pixels.compared_pixels > 0
                         ? static_cast<double>(diff->changed_pixels) /
                               static_cast<double>(v.pixels.compared_pixels)
                         : 0.0;
    v.pixels.bounds.reset();
    if (diff->bounds) v.pixels.bounds = diff->bounds->Translated(next.region.x, next.region.y);
    if (frame->frame_hash != 0) v.screen_hash_after = HexHash(frame->frame_hash);
    poll = std::move(next);
    return true;
  };
  auto expectation_met = [&] {
    if (!scope_.expect_value) return true;
    const Node* n = FindById(after_roots, scope_.expect_id);
    return n != nullptr && n->value == *scope_.expect_value;
  };
  // Each poll captures first and reads the tree after, so a tree read after
  // a capture shows at least what that frame shows. Once the tree has
  // changed, polls only capture (cheap) until the repaint lands, then the
  // tree is read once more: what the same frame mapped (a row a click
  // added) is in the report.
  bool tree_after_capture = false;
  bool pressing = false;  // the last tree read shows a click in progress
  while (true) {
    ++v.polls;
    bool pixels_settled = true;  // the repaint of what changed has landed
    const bool captured = before_screen_ && capture_after();
    // A moving effect is quiet once its tree has not changed for a while
    // since the first evidence (or its last change).
    auto moving = [&] {
      if (!scope_.moving || !first_evidence) return false;
      const auto since = std::max(*first_evidence, last_tree_change.value_or(*first_evidence));
      return Clock::now() - since < kMovingQuiet;
    };
    // Events the last read did not see: the tree is read again (from the
    // mirror, cheaply), so it is as current as the events say.
    const std::optional<uint64_t> events = events_now();
    const bool events_unread = events && (!events_at_read || *events > *events_at_read);
    const bool read_tree = options_.tree && (!tree_changed || !expectation_met() || pressing ||
                                             moving() || events_unread);
    if (read_tree) refresh_tree();
    tree_after_capture = read_tree || (tree_after_capture && !captured);
    // This poll's capture shows the repaint of what the tree says changed
    // (drawn changes only: not a focus or an action list).
    bool repaint_seen = false;
    if (v.pixels.captured && poll) {
      const std::vector<Rect> evidence_areas{scope_.evidence ? *scope_.evidence : *scope_.region};
      pixel_evidence = !own_enabling && v.pixels.bounds.has_value() &&
                       ChangedWithin(poll->before, poll->after, poll->region, evidence_areas,
                                     /*ignore_caret=*/true);
      if (tree_changed) {
        // The repaint of what the tree says changed; when nothing it says
        // is drawn, any change there or at the target. Not the target
        // alone: a button's pressed look is drawn before the display it
        // changes (gnome-calculator's "=").
        std::vector<Rect> areas = TreeChangeAreas(v.tree, before_.roots, after_roots, true);
        const bool drawn = !areas.empty();
        if (!drawn) {
          areas = TreeChangeAreas(v.tree, before_.roots, after_roots, false);
          areas.insert(areas.end(), evidence_areas.begin(), evidence_areas.end());
        }
        pixels_settled = v.pixels.bounds.has_value() &&
                         ChangedWithin(poll->before, poll->after, poll->region, areas,
                                       /*ignore_caret=*/false);
        repaint_seen = captured && drawn && pixels_settled;
      }
    }
    const bool windows_changed = !v.windows_opened.empty() || !v.windows_closed.empty();
    const bool evidence = tree_changed || pixel_evidence || windows_changed;
    const auto now = Clock::now();
    if (evidence && !first_evidence) first_evidence = now;
    pressing =
        (tree_changed ? MidPress(v.tree) ||
                            ((scope_.button_press || scope_.pointer_on_button) && FocusOnly(v.tree))
                      : scope_.button_press && pixel_evidence) &&
        now - *first_evidence < kPressMax;
    const bool complete = (tree_changed || !options_.tree) && (pixels_settled || !before_screen_);
    // Pixels are quiet when no capture since the first evidence differed
    // from the one before it for kPixelQuiet.
    const bool quiet =
        !first_evidence || !poll ||
        now - std::max(*first_evidence, last_pixel_change.value_or(*first_evidence)) >= kPixelQuiet;
    const auto since_evidence = first_evidence ? now - *first_evidence : Clock::duration::zero();
    // The other half of the effect: the tree after pixel evidence (lag),
    // the repaint after a tree change (kRepaintMax).
    const bool other_half_due =
        complete ||
        since_evidence >= (tree_changed && !pixels_settled
                               ? std::chrono::duration_cast<Clock::duration>(kRepaintMax)
                               : std::chrono::duration_cast<Clock::duration>(options_.lag));
    // The verdict from events (verify.h): the app sent events after the
    // action, the tree read from them changed, and this poll's capture,
    // taken after the last event that read saw (none came between the
    // capture and the end of the read), shows the repaint. No window
    // opened, closed, moved or resized: those keep the quiet. The tree is
    // as current as the events, so it is not read again.
    const bool from_events =
        tree_changed && events_at_action_ && events_at_read && *events_at_read > *events_at_action_;
    const bool capture_after_events =
        events_at_capture && events_at_read && *events_at_capture >= *events_at_read;
    if (evidence && expectation_met() && !pressing && !moving() && from_events &&
        capture_after_events && repaint_seen && !windows_changed && !windows_moved) {
      v.ended_by = "events+pixels";
      break;
    }
    if (evidence && expectation_met() && !pressing && !moving() && other_half_due && quiet) {
      if (options_.tree && !tree_after_capture) refresh_tree();
      v.ended_by = before_screen_ ? "pixels quiet" : "tree";
      break;
    }
    // Past the deadline, an effect still landing (pixels changing, a
    // repaint due) is waited for up to kSettleMax from its start.
    const bool landing = evidence && (!quiet || !other_half_due) && since_evidence < kSettleMax;
    // "Nothing changed" needs a look at the tree begun near the deadline:
    // gnome-calculator's walk takes 150 ms and a GTK 4 button clicks 250 ms
    // after its action, so one read begun at the start and ended past the
    // deadline saw the state before the click.
    const bool looked_late = !options_.tree || evidence ||
                             (last_read_started && *last_read_started >= deadline - kLateRead);
    if (now >= deadline && !landing && looked_late) {
      if (evidence && !quiet) {
        v.warnings.push_back("the pixels were still changing " +
                             std::to_string(kSettleMax.count()) +
                             " ms after the first effect (an animation?); reported as they were");
        // What was learned of the window's animations missed this one:
        // the next action looks again.
        if (animations_ != nullptr && scope_.window != 0) animations_->Forget(scope_.window);
      }
      if (options_.tree && !tree_after_capture) refresh_tree();
      v.ended_by = "deadline";
      break;
    }
    if (cancelled && cancelled()) {
      v.warnings.push_back("cancelled before the verdict");
      v.ended_by = "cancelled";
      break;
    }
    std::this_thread::sleep_for(kPollPause);
  }
  if (poll && v.pixels.bounds) {
    for (const Rect& a : ChangedAreas(poll->before, poll->after, kAreaTile)) {
      v.pixels.areas.push_back(a.Translated(poll->region.x, poll->region.y));
    }
    for (auto* list : {&v.windows_opened, &v.windows_closed}) {
      for (WindowChange& w : *list) {
        auto d = DiffImagesWithin(poll->before, poll->after,
                                  w.bounds.Translated(-poll->region.x, -poll->region.y));
        if (d.ok()) w.changed = d->score;
      }
    }
  }
  if (!expectation_met()) {
    const Node* n = FindById(after_roots, scope_.expect_id);
    v.warnings.push_back("element " + scope_.expect_id +
                         (n ? " shows \"" + SanitiseForDisplay(n->value, 200) + "\"" : " is gone") +
                         ", not the expected \"" + SanitiseForDisplay(*scope_.expect_value, 200) +
                         "\" after " + std::to_string(options_.settle.count()) + " ms");
  }
  v.waited_ms = MsSince(start);
  auto titles = [](const std::vector<WindowChange>& list) {
    std::string out;
    for (const WindowChange& w : list) {
      out += (out.empty() ? "\"" : ", \"") + SanitiseForDisplay(w.title, 60) + "\"";
    }
    return out;
  };
  // The text expected in a field that still shows what it showed before:
  // nothing read back says whether it arrived (a field exposing no text
  // reads "" whatever it shows), so the verdict is "unverified", not
  // "observed" on the strength of other changes.
  const Node* expect_before =
      scope_.expect_value ? FindById(before_.roots, scope_.expect_id) : nullptr;
  const Node* expect_after =
      scope_.expect_value ? FindById(after_roots, scope_.expect_id) : nullptr;
  if ((tree_changed || pixel_evidence) && !expectation_met() && expect_before && expect_after &&
      expect_after->value == expect_before->value) {
    v.effect = "unverified";
    v.reason = "element " + scope_.expect_id + " still reads \"" +
               SanitiseForDisplay(expect_after->value, 60) +
               "\" as before, so whether the text arrived cannot be read back (the element "
               "may expose no text); " +
               (tree_changed ? "the tree changed (" + Counts(v.tree) + ")"
                             : std::string("pixels changed at the target"));
  } else if (tree_changed) {
    v.effect = "observed";
    v.reason = "the tree changed (" + Counts(v.tree) + ")";
  } else if (!v.windows_opened.empty()) {
    v.effect = "observed";
    v.reason = "a window opened (" + titles(v.windows_opened) + ")";
  } else if (!v.windows_closed.empty()) {
    v.effect = "observed";
    v.reason = "a window closed (" + titles(v.windows_closed) + ")";
  } else if (pixel_evidence) {
    v.effect = "observed";
    v.reason = "pixels changed at the target; the accessibility tree shows no change";
  } else if (own_enabling) {
    v.effect = "none";
    v.reason = "only the target itself changed: it became enabled within " +
               std::to_string(options_.settle.count()) +
               " ms, which is its own state, not the action's effect";
  } else {
    v.effect = "none";
    v.reason = "nothing changed in the tree" +
               std::string(before_screen_ ? ", the windows or at the target's pixels" : "") +
               " within " + std::to_string(options_.settle.count()) + " ms";
  }
  return v;
}

std::string XWindowText(uint64_t id) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(id));
  return buf;
}

std::string FormatPixelChange(const Verification& v) {
  std::string out;
  char line[200];
  if (v.pixels.captured) {
    if (v.pixels.bounds) {
      const Rect& b = *v.pixels.bounds;
      std::snprintf(line, sizeof(line),
                    "pixels: %.2f%% of %lld px compared changed, in %d,%d,%d,%d",
                    v.pixels.score * 100, static_cast<long long>(v.pixels.compared_pixels), b.x,
                    b.y, b.w, b.h);
      out += line;
      if (v.pixels.areas.size() > 1) {
        out += " (" + std::to_string(v.pixels.areas.size()) + " areas:";
        for (const Rect& a : v.pixels.areas) {
          std::snprintf(line, sizeof(line), " %d,%d,%d,%d", a.x, a.y, a.w, a.h);
          out += line;
        }
        out += ")";
      }
      out += "\n";
    } else {
      out += "pixels: unchanged in the " + std::to_string(v.pixels.compared.size()) +
             (v.pixels.compared.size() == 1 ? " window" : " windows") + " compared\n";
    }
  }
  for (const auto& [what, list] :
       {std::pair{"opened", &v.windows_opened}, std::pair{"closed", &v.windows_closed}}) {
    for (const WindowChange& w : *list) {
      std::snprintf(line, sizeof(line), " %s at %d,%d,%d,%d (%.0f%% of it changed)\n",
                    XWindowText(w.id).c_str(), w.bounds.x, w.bounds.y, w.bounds.w, w.bounds.h,
                    w.changed * 100);
      out += std::string("window ") + what + ": \"" + SanitiseForDisplay(w.title, 60) + "\"" + line;
    }
  }
  return out;
}

}  // namespace uiscope
