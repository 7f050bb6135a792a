#include "engine/verify.h"

#include <algorithm>
#include <cstdio>
#include <thread>

#include "core/clock.h"
#include "core/format.h"
#include "core/ids.h"
#include "image/image_diff.h"

namespace uiscope {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

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

Rect Inflate(const Rect& r, int m) { return Rect{r.x - m, r.y - m, r.w + 2 * m, r.h + 2 * m}; }

bool CaretLike(const Rect& r) { return r.w <= kCaretMaxWidth; }

// Where the nodes a diff mentions are (after the change for added and
// changed nodes, before it for removed ones): the repaint an effect causes
// lands there.
std::vector<Rect> ChangedAreas(const TreeDiff& diff, const std::vector<Node>& before,
                               const std::vector<Node>& after) {
  std::vector<Rect> out;
  for (const AddedNode& a : diff.added) {
    if (a.node.bounds) out.push_back(*a.node.bounds);
  }
  for (const RemovedNode& r : diff.removed) {
    if (const Node* n = FindById(before, r.id); n && n->bounds) out.push_back(*n->bounds);
  }
  for (const NodeChange& c : diff.changed) {
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

Verifier::Verifier(Observer& observer, ScreenCapture* capture, Snapshot before, VerifyScope scope,
                   VerifyOptions options)
    : observer_(observer),
      capture_(capture),
      before_(std::move(before)),
      scope_(scope),
      options_(options) {
  CaptureBefore();
}

void Verifier::CaptureBefore() {
  before_pixels_.reset();
  hash_before_.clear();
  if (!options_.pixels || capture_ == nullptr || !scope_.region) return;
  auto frame = capture_->CaptureRegion(*scope_.region);
  if (!frame.ok()) {
    warnings_.push_back("no pixel diff: " + frame.error().message);
    return;
  }
  scope_.region = frame->region;  // as clipped to the screen
  if (frame->frame_hash != 0) hash_before_ = HexHash(frame->frame_hash);
  before_pixels_ = std::move(frame->image);
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
  const auto start = Clock::now();
  const auto deadline = start + options_.settle;
  std::optional<Clock::time_point> first_evidence;
  bool tree_changed = false;
  bool pixel_evidence = false;
  bool tree_warned = false;
  std::vector<Node> after_roots;
  std::optional<Image> last_pixels;
  // For a moving effect: when the tree last read differently.
  std::optional<Clock::time_point> last_tree_change;
  auto refresh_tree = [&]() -> bool {
    auto obs = observer_.RefreshApp(scope_.pid, options_.tree_timeout);
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
    tree_changed = !v.tree.empty();
    return true;
  };
  // Captures the region and diffs it against the before pixels into `out`;
  // false when no capture could be taken.
  auto capture_after = [&](Verification* out, std::optional<Image>* pixels) -> bool {
    auto frame = capture_->CaptureRegion(*scope_.region);
    if (!frame.ok()) {
      if (out->warnings.size() < 4)
        out->warnings.push_back("capture failed: " + frame.error().message);
      return false;
    }
    if (frame->image.width != before_pixels_->width ||
        frame->image.height != before_pixels_->height) {
      return false;
    }
    auto diff = DiffImages(*before_pixels_, frame->image);
    if (!diff.ok()) return false;
    out->pixels.captured = true;
    out->pixels.region = *scope_.region;
    out->pixels.score = diff->score;
    out->pixels.changed_pixels = diff->changed_pixels;
    out->pixels.bounds.reset();
    if (diff->bounds)
      out->pixels.bounds = diff->bounds->Translated(scope_.region->x, scope_.region->y);
    if (frame->frame_hash != 0) out->screen_hash_after = HexHash(frame->frame_hash);
    *pixels = std::move(frame->image);
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
    const bool captured = before_pixels_ && capture_after(&v, &last_pixels);
    // A moving effect is quiet once its tree has not changed for a while
    // since the first evidence (or its last change).
    auto moving = [&] {
      if (!scope_.moving || !first_evidence) return false;
      const auto since = std::max(*first_evidence, last_tree_change.value_or(*first_evidence));
      return Clock::now() - since < kMovingQuiet;
    };
    const bool read_tree =
        options_.tree && (!tree_changed || !expectation_met() || pressing || moving());
    if (read_tree) refresh_tree();
    tree_after_capture = read_tree || (tree_after_capture && !captured);
    if (v.pixels.captured && last_pixels) {
      const std::vector<Rect> evidence_areas{scope_.evidence ? *scope_.evidence : *scope_.region};
      pixel_evidence = v.pixels.bounds.has_value() &&
                       ChangedWithin(*before_pixels_, *last_pixels, *scope_.region, evidence_areas,
                                     /*ignore_caret=*/true);
      if (tree_changed) {
        std::vector<Rect> areas = ChangedAreas(v.tree, before_.roots, after_roots);
        areas.insert(areas.end(), evidence_areas.begin(), evidence_areas.end());
        pixels_settled = v.pixels.bounds.has_value() &&
                         ChangedWithin(*before_pixels_, *last_pixels, *scope_.region, areas,
                                       /*ignore_caret=*/false);
      }
    }
    const bool evidence = tree_changed || pixel_evidence;
    if (evidence && !first_evidence) first_evidence = Clock::now();
    pressing =
        (tree_changed ? MidPress(v.tree) ||
                            ((scope_.button_press || scope_.pointer_on_button) && FocusOnly(v.tree))
                      : scope_.button_press && pixel_evidence) &&
        Clock::now() - *first_evidence < kPressMax;
    const bool past_deadline = Clock::now() >= deadline;
    const bool complete = (tree_changed || !options_.tree) && (pixels_settled || !before_pixels_);
    if (evidence && expectation_met() && !pressing && !moving() &&
        (complete || Clock::now() - *first_evidence >= options_.lag)) {
      if (options_.tree && !tree_after_capture) refresh_tree();
      break;
    }
    if (past_deadline) {
      if (options_.tree && !tree_after_capture) refresh_tree();
      break;
    }
    if (cancelled && cancelled()) {
      v.warnings.push_back("cancelled before the verdict");
      break;
    }
    std::this_thread::sleep_for(kPollPause);
  }
  if (!expectation_met()) {
    const Node* n = FindById(after_roots, scope_.expect_id);
    v.warnings.push_back("element " + scope_.expect_id +
                         (n ? " shows \"" + SanitiseForDisplay(n->value, 200) + "\"" : " is gone") +
                         ", not the expected \"" + SanitiseForDisplay(*scope_.expect_value, 200) +
                         "\" after " + std::to_string(options_.settle.count()) + " ms");
  }
  v.waited_ms = MsSince(start);
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
  } else if (pixel_evidence) {
    v.effect = "observed";
    v.reason = "pixels changed at the target; the accessibility tree shows no change";
  } else {
    v.effect = "none";
    v.reason = "nothing changed in the tree" +
               std::string(before_pixels_ ? " or at the target's pixels" : "") + " within " +
               std::to_string(options_.settle.count()) + " ms";
  }
  return v;
}

json VerificationToJson(const Verification& v) {
  json pixels = {{"captured", v.pixels.captured},
                 {"score", v.pixels.score},
                 {"changed_pixels", v.pixels.changed_pixels}};
  if (v.pixels.captured) pixels["region"] = RectToJson(v.pixels.region);
  if (v.pixels.bounds) pixels["bounds"] = RectToJson(*v.pixels.bounds);
  return {
      {"effect", v.effect},          {"reason", v.reason},       {"tree", DiffToJson(v.tree, 200)},
      {"pixels", std::move(pixels)}, {"waited_ms", v.waited_ms}, {"polls", v.polls},
      {"warnings", v.warnings}};
}

}  // namespace uiscope
