// Verification (DESIGN §7): did an action do anything? Every action takes a
// "before" state — the tree it was resolved in, the top-level windows and
// the pixels of the screen — then, after the input, polls the tree of the
// target's application, the windows and the pixels until an effect shows
// and has settled, or a deadline passes. Effects are asynchronous (the app
// handles the event, updates its accessibility objects, repaints at its
// next frame, maps a dialog), so the answer is "observed" once the evidence
// is in and the pixels have stopped changing, and "none" only after the
// deadline.
//
// Where pixels are compared: the target's window, and every window the
// action opened, closed, moved or resized (the window lists before and
// after), each clipped to the screen. A dialog a click opens, or the main
// window a Return uncovers when it closes a dialog, is part of the report.
//
// What counts as evidence:
// - any change of the tree (core/diff.h: added, removed or changed nodes);
// - a window opened or closed;
// - a pixel change that touches the action's evidence area (the target's
//   bounds, or where a point action landed), so a caret blinking in another
//   field or a hover highlight elsewhere is reported but does not count.
//   A change no larger than a text caret (at most 3 px wide) never counts
//   on its own.
// Once evidence appears, polling goes on until the rest of the effect has
// landed: the tree after a repaint (`lag`), the repaint after a tree change
// (up to kRepaintMax: GTK 4 repaints at its next frame, which on a loaded
// machine came more than 80 ms after the tree), and the pixels quiet for a
// few frames (kPixelQuiet) — a dialog is mapped, then painted. Then the tree
// is read once more, so the report shows the whole effect. An expected value
// (VerifyScope) is waited for until the deadline.
//
// Read from the events (issue 16): where the accessibility backend counts
// the application's events (Accessibility::EventsFrom: the mirror), the
// verdict does not wait for the pixels to be quiet when the effect is read
// from the events the action caused: the app sent events after the action,
// the tree read from them changed, no top-level window opened, closed, moved
// or resized, and a capture taken after the last of those events shows the
// repaint of what the tree says changed. The events say what changed and
// that the app has handled the action; the capture, that the repaint landed.
// The quiet stays where a window appeared, disappeared, moved or resized (a
// window is mapped, then painted), where only pixels changed, and where no
// events are counted (a walk per poll, a toolkit that sends none).
// Verification::ended_by says which ended the wait.
//
// Not thread-safe: use under the workspace lease it was made with.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/diff.h"
#include "core/node.h"
#include "core/result.h"
#include "engine/observe.h"
#include "image/image.h"
#include "platform/accessibility.h"
#include "platform/capture.h"
#include "platform/windows.h"

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
  // The X window of the target (0 = not known): what animates in it is
  // remembered under this ID (AnimationMemory).
  uint64_t window = 0;
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
  // The element acted on ("" = none). Its own enabling (the tree's only
  // change: it gained "enabled") is not the action's effect, nor is its
  // repaint: a Save button clicked while still disabled became enabled
  // during the settle, and that was reported as the click's effect.
  std::string target_id;
};

// A top-level window the action opened or closed.
struct WindowChange {
  uint64_t id = 0;  // X window ID
  std::string title;
  Rect bounds;  // screen pixels, clipped to the screen: after for an opened window, before for a
                // closed one
  double changed = 0;  // fraction of `bounds` whose pixels changed, 0..1
};

struct PixelChange {
  bool captured = false;  // both captures were taken
  // Screen pixels compared: the target's window and the windows opened,
  // closed, moved or resized, each clipped to the screen (may overlap).
  std::vector<Rect> compared;
  Rect region;                  // the box holding `compared`
  int64_t compared_pixels = 0;  // area of the union of `compared`
  double score = 0;             // changed pixels / compared_pixels
  int changed_pixels = 0;
  std::optional<Rect> bounds;  // screen pixels of the changed area
  // Where it changed, as separate boxes (screen pixels, largest first):
  // changed 16-px tiles that touch form one box (image_diff.h ChangedAreas).
  std::vector<Rect> areas;
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
  std::vector<WindowChange> windows_opened;
  std::vector<WindowChange> windows_closed;
  double waited_ms = 0;  // from the end of the action to the verdict
  int polls = 0;
  // What ended the wait: "events+pixels" (the effect read from the app's
  // events and its repaint seen), "pixels quiet" (evidence, then the pixels
  // unchanged for kPixelQuiet), "tree" (evidence with no pixels compared),
  // "deadline" (the settle deadline, or kSettleMax while still landing),
  // "cancelled".
  std::string ended_by;
  std::vector<std::string> warnings;  // a poll that failed, a capture that could not be taken
  std::string screen_hash_after;      // frame hash of the last capture (hex), "" without one
};

// What animates on its own in each top-level window, as the last look
// before an action found it (Verifier::JustBeforeAction), so that the next
// action on the same window soon after does not wait kAnimationSample for
// it again. An entry is used only for the same window at the same place and
// size, within kAnimationMemory of being learned; a verification that saw
// pixels still changing forgets its window's. At most kAnimationWindows
// windows are kept (the oldest learned goes first).
// Not thread-safe: kept in the workspace's Hands, used under its lease.
class AnimationMemory {
 public:
  // How long what was learned is used. A window's own animations (a
  // spinner, a pulsing bar, a clock) run as long as the state that shows
  // them, seconds and more; what an earlier action set moving (a hover
  // fade, a pressed look, a 200-250 ms toolkit transition) is over well
  // within it. Long enough for a script's or a plan's actions and an
  // agent's quick follow-ups; short enough that an animation that stopped
  // keeps its area out of the comparison for a few seconds at most (which
  // costs time, kRepaintMax, never a verdict: the area is left out, not
  // counted).
  static constexpr std::chrono::seconds kAnimationMemory{5};
  static constexpr size_t kAnimationWindows = 64;

  // The areas (screen pixels) learned for `window` at `bounds`, when fresh.
  std::optional<std::vector<Rect>> Recall(uint64_t window, const Rect& bounds,
                                          std::chrono::steady_clock::time_point now) const;
  void Learn(uint64_t window, const Rect& bounds, std::vector<Rect> areas,
             std::chrono::steady_clock::time_point when);
  void Forget(uint64_t window);

 private:
  struct Entry {
    Rect bounds;
    std::vector<Rect> areas;
    std::chrono::steady_clock::time_point learned;
  };
  std::vector<std::pair<uint64_t, Entry>> entries_;
};

// The before state of one action, then its verification.
class Verifier {
 public:
  // `before` is the observation the action was resolved in (IDs assigned by
  // `observer`); the screen is captured now through `capture` (may be null:
  // no pixel diff) and the windows listed through `windows` (may be null:
  // only the target's window is compared). `events` (may be null) counts
  // the application's events (the verdict from events, above); `animations`
  // (may be null: every action samples) is what was learned of the windows'
  // own animations, kept between actions.
  Verifier(Observer& observer, ScreenCapture* capture, WindowSystem* windows, Snapshot before,
           VerifyScope scope, VerifyOptions options, Accessibility* events = nullptr,
           AnimationMemory* animations = nullptr);

  // Takes the before state again (after the window was raised, say): the
  // tree of the scope and the pixels.
  Status Retake();

  // Hex frame hash of the before capture of the whole screen ("" when
  // none), for the gate.
  const std::string& screen_hash_before() const { return hash_before_; }
  const Snapshot& before() const { return before_; }
  const std::vector<std::string>& warnings() const { return warnings_; }

  // Called just before the action. Counts the application's events so far
  // (those after it are the action's), and looks at the target's window once
  // more: what changed since the before capture (a spinner, a pulsing
  // progress bar, a clock) animates on its own, and those areas are left out
  // of the pixel comparison (outside the evidence area only), so an
  // animation neither counts as the effect nor keeps the verdict waiting for
  // pixels to settle. That look waits until kAnimationSample has passed
  // since the before capture, unless the AnimationMemory knows the window
  // (same place and size, learned within kAnimationMemory) and the action
  // has an evidence area (an effect looked for anywhere in the window, as
  // for a window no tree describes, always samples: an animation begun
  // since would be taken for the effect).
  void JustBeforeAction();

  // Polls until evidence shows (see above) or the settle deadline passes.
  // `cancelled` (may be empty) is asked between polls.
  Verification Wait(const std::function<bool()>& cancelled = {});

 private:
  void CaptureBefore();

  Observer& observer_;
  ScreenCapture* capture_;
  WindowSystem* windows_;
  Snapshot before_;
  VerifyScope scope_;
  VerifyOptions options_;
  std::optional<Image> before_screen_;  // the whole screen
  std::chrono::steady_clock::time_point before_taken_;
  Accessibility* events_;
  AnimationMemory* animations_;
  std::vector<Rect> animating_;               // screen pixels left out (JustBeforeAction)
  std::optional<uint64_t> events_at_action_;  // EventsFrom(pid) just before the action
  std::vector<WindowInfo> before_windows_;
  bool windows_listed_ = false;  // before_windows_ is a real listing
  std::string hash_before_;
  std::vector<std::string> warnings_;
};

// The windows in `after` that are not in `before` (by ID, visible ones
// only), and those in `before` no longer in `after`: {opened, closed}.
// Bounds are left unclipped, `changed` 0.
std::pair<std::vector<WindowChange>, std::vector<WindowChange>> CompareWindows(
    const std::vector<WindowInfo>& before, const std::vector<WindowInfo>& after);

// The pixel lines of a human-readable action result: how much of what was
// compared changed and where, then each window opened or closed.
std::string FormatPixelChange(const Verification& v);

// "0x1e00007".
std::string XWindowText(uint64_t id);

// Hex of a 64-bit hash, 16 digits.
std::string HexHash(uint64_t hash);

}  // namespace uiscope
