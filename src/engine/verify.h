// Verification (DESIGN §7): did an action do anything? Every action takes a
// "before" state — the tree it was resolved in and the pixels of its window
// — then, after the input, polls the tree of the target's application and
// the same pixels until an effect shows or a settle deadline passes. Effects
// are asynchronous (the app handles the event, updates its accessibility
// objects, repaints at its next frame), so the answer is "observed" as soon
// as the evidence is in, and "none" only after the deadline.
//
// What counts as evidence:
// - any change of the tree (core/diff.h: added, removed or changed nodes);
// - a pixel change that touches the action's evidence area (the target's
//   bounds, or where a point action landed), so a caret blinking in another
//   field or a hover highlight elsewhere is reported but does not count.
//   A change no larger than a text caret (at most 3 px wide) never counts
//   on its own.
// Once evidence appears, polling goes on briefly (`lag`) so that the other
// half can land too — the repaint after a tree change, the tree after a
// repaint — and the tree is read once more after the pixels settled (a row
// a click added is mapped in the same frame that repaints the button), so
// the report shows the whole effect. An expected value (VerifyScope) is
// waited for until the deadline.
//
// Not thread-safe: use under the workspace lease it was made with.
#pragma once

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/diff.h"
#include "core/node.h"
#include "core/result.h"
#include "engine/observe.h"
#include "image/image.h"
#include "platform/capture.h"

namespace uiscope {

struct VerifyOptions {
  // How long to wait for an effect before reporting none.
  std::chrono::milliseconds settle{500};
  // After the first evidence, how long to wait for the rest of the effect.
  std::chrono::milliseconds lag{80};
  // Per accessibility walk while polling.
  std::chrono::milliseconds tree_timeout{2000};
  bool tree = true;    // re-observe the tree
  bool pixels = true;  // compare captures
};

struct VerifyScope {
  // The application re-observed (its process); 0 = every application.
  int pid = 0;
  // Screen area captured for the pixel diff (the target's window); nullopt
  // = no pixel diff.
  std::optional<Rect> region;
  // Where a pixel change counts as the action's effect (screen pixels);
  // nullopt = anywhere in `region`.
  std::optional<Rect> evidence;
  // The action's known outcome, when it has one (typing into a field,
  // replacing its text): element `expect_id` shows `expect_value`. The
  // verdict waits for it until the deadline, and a warning says so when it
  // never shows.
  std::string expect_id;
  std::optional<std::string> expect_value;
  // A button was activated through accessibility: a change of pixels alone
  // (its pressed look) holds the verdict back for a change of the tree, up
  // to a bound. GTK 4 activates a button by showing it pressed for 250 ms
  // and only then emitting clicked.
  bool button_press = false;
  // A button is clicked through the pointer: a tree that shows nothing but
  // the focus moving to it holds the verdict back (up to the same bound)
  // for the click's effect — the press focuses, the release activates.
  bool pointer_on_button = false;
  // The effect moves for a while (a scroll, a drag): after the first
  // evidence the tree is read until it has stopped changing for a moment,
  // so the report shows where the effect ended, not a step on the way.
  // Chromium scrolls smoothly, and its tree showed a dragged slider's
  // value at the press before the one at the release.
  bool moving = false;
};

struct PixelChange {
  bool captured = false;  // both captures were taken
  Rect region;            // screen pixels compared
  double score = 0;       // changed pixels / pixels compared
  int changed_pixels = 0;
  std::optional<Rect> bounds;  // screen pixels of the changed area
};

struct Verification {
  // "observed", "none", or "unverified": an expected text (VerifyScope)
  // does not show and the element reads back as it did before, so nothing
  // can tell whether the text arrived.
  std::string effect = "none";
  // Why: "the tree changed", "pixels changed at the target", "nothing changed
  // within 500 ms".
  std::string reason;
  TreeDiff tree;
  PixelChange pixels;
  double waited_ms = 0;  // from the end of the action to the verdict
  int polls = 0;
  std::vector<std::string> warnings;  // a poll that failed, a capture that could not be taken
  std::string screen_hash_after;      // frame hash of the last capture (hex), "" without one
};

// The before state of one action, then its verification.
class Verifier {
 public:
  // `before` is the observation the action was resolved in (IDs assigned by
  // `observer`); the pixels of `scope.region` are captured now through
  // `capture` (may be null: no pixel diff).
  Verifier(Observer& observer, ScreenCapture* capture, Snapshot before, VerifyScope scope,
           VerifyOptions options);

  // Takes the before state again (after the window was raised, say): the
  // tree of the scope and the pixels.
  Status Retake();

  // Hex frame hash of the before capture ("" when none), for the gate.
  const std::string& screen_hash_before() const { return hash_before_; }
  const Snapshot& before() const { return before_; }
  const std::vector<std::string>& warnings() const { return warnings_; }

  // Polls until evidence shows (see above) or the settle deadline passes.
  // `cancelled` (may be empty) is asked between polls.
  Verification Wait(const std::function<bool()>& cancelled = {});

 private:
  void CaptureBefore();

  Observer& observer_;
  ScreenCapture* capture_;
  Snapshot before_;
  VerifyScope scope_;
  VerifyOptions options_;
  std::optional<Image> before_pixels_;
  std::string hash_before_;
  std::vector<std::string> warnings_;
};

// {"effect", "reason", "tree": DiffToJson, "pixels": {"captured", "score",
// "changed_pixels", "region", "bounds"}, "waited_ms", "polls"}
nlohmann::json VerificationToJson(const Verification& v);

// Hex of a 64-bit hash, 16 digits.
std::string HexHash(uint64_t hash);

}  // namespace uiscope
