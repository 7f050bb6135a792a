// Workspace: the desktops a long-running client (the MCP server) works on,
// each opened once and kept: its display connection, its accessibility bus
// and an Observer whose IDs stay stable from one call to the next.
//
// The default desktop is `--display` if given, else $DISPLAY, else (with
// `start_headless`) a headless desktop the workspace starts on first need
// and stops when it is destroyed; the lease that started it carries a note
// saying so, for the tool result. Other uiscope sessions are reached by ID.
//
// Acting (DESIGN §7) needs more than the tree: input, the window system and
// a screen capture for verification. They are opened on the first lease
// that asks for them (Need::kHands) and kept with the desktop, as are the
// apps launched into it. Every action is decided by the workspace's
// ActionGate (engine/action_gate.h): AllowAllGate unless one is given in
// WorkspaceOptions or set with SetActionGate (the safety policy plugs in
// there).
//
// Thread safety: every method may be called from any thread; a Lease holds
// the workspace lock, so desktop work is serialised.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "engine/action_gate.h"
#include "engine/desktop.h"
#include "engine/learner.h"
#include "engine/observe.h"
#include "engine/verify.h"
#include "platform/capture.h"
#include "platform/input.h"
#include "platform/windows.h"
#include "session/headless_desktop.h"
#include "session/process.h"

namespace uiscope {

struct WorkspaceOptions {
  std::string display;  // --display; "" = $DISPLAY, else a headless desktop
  // --session: a registered session (headless or VNC) as the default
  // desktop; "" = $UISCOPE_SESSION, else `display` as above.
  std::string session;
  bool start_headless = true;  // start one when no display is known
  DesktopOptions headless;     // its size etc.
  // Applications no observer of this workspace reads (Observer::set_hide_app).
  std::function<bool(const std::string& app_name)> hide_app;
  // Decides every action before it reaches a desktop; null = AllowAllGate.
  std::shared_ptr<ActionGate> gate;
  // Keep a mirror of each application's accessibility tree, fed by its
  // events (AtspiOptions::mirror): for a long-running process (the MCP
  // server), never for a one-shot CLI call.
  bool accessibility_mirror = false;
  // Learns from observations and actions (engine/learner.h); null = nothing
  // is learned.
  std::shared_ptr<Learner> learner;
};

// What acting on a desktop needs besides its tree (see above).
struct Hands {
  std::unique_ptr<Input> input;
  std::unique_ptr<WindowSystem> windows;
  // For verification: the pixels before and after an action. Its own X
  // connection, separate from the screenshot service's.
  std::unique_ptr<ScreenCapture> capture;
  // What animates on its own in each window, learned before one action and
  // used for the next ones soon after (engine/verify.h).
  AnimationMemory animations;
  // Apps launched into the desktop by app_launch, by pid, kept so they are
  // reaped when they exit. Released (left running) when the workspace goes.
  std::map<int, std::unique_ptr<Process>> launched;
  // False on a fake desktop (unless its test allows it): there is no
  // display for an app to show on, and the fuzzer must never start programs.
  bool can_launch = true;
};

// For tests and fuzzing: the parts of a fake desktop (":fake"). Only
// `accessibility` is required; without input, windows or capture, actions
// that need them fail with Unavailable.
struct FakeDesktopParts {
  std::unique_ptr<Accessibility> accessibility;
  Frame frame;
  std::unique_ptr<Input> input;
  std::unique_ptr<WindowSystem> windows;
  std::unique_ptr<ScreenCapture> capture;
  // Tests only: app_launch really starts processes on the fake desktop.
  bool allow_launch = false;
};

class Workspace {
 public:
  explicit Workspace(WorkspaceOptions options);
  // For tests and fuzzing: one desktop, ":fake", served by `accessibility`.
  Workspace(std::unique_ptr<Accessibility> accessibility, Frame frame);
  explicit Workspace(FakeDesktopParts parts);
  ~Workspace();  // stops the headless desktop it started, if any
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  // The gate every action goes through; thread-safe by its contract.
  ActionGate& gate() const { return *gate_; }
  // Replaces the gate (null = AllowAllGate). Call before serving.
  void SetActionGate(std::shared_ptr<ActionGate> gate);
  // Sets the learner of every desktop (null = none). Call before serving.
  void SetLearner(std::shared_ptr<Learner> learner) { options_.learner = std::move(learner); }

  enum class Need { kObserve, kHands };

  struct Lease {
    Observer* observer = nullptr;
    // The desktop's accessibility backend, for acting on elements.
    Accessibility* accessibility = nullptr;
    Frame frame;  // the screen the tree, captures and input share
    // Input, windows, capture and launched apps; set when acquired with
    // Need::kHands.
    Hands* hands = nullptr;
    ActionGate* gate = nullptr;
    Learner* learner = nullptr;  // null: nothing is learned
    // The desktop (platform/desktop.h); null on a fake desktop. Check
    // broken(): a desktop whose server died needs Invalidate().
    Desktop* desktop = nullptr;
    // The desktop's screen, for observing by pixels (OCR, vision, read_text):
    // the desktop's own, or a fake desktop's capture; null without one.
    ScreenCapture* capture = nullptr;
    // The desktop's top-level windows, for observing (what is shown where,
    // what covers what); null on a fake desktop without them.
    WindowSystem* windows = nullptr;
    // Set by a PinnedWindows in scope: TopLevelWindows answers this list
    // instead of asking the window system again.
    std::optional<std::vector<WindowInfo>> pinned_windows;
    std::string display;             // ":N"
    std::string session_id;          // the uiscope session owning it ("" = none)
    std::vector<std::string> notes;  // things the caller should tell the user
    std::unique_lock<std::mutex> lock;
  };

  // The desktop of uiscope session `session_id` ("" = the default one),
  // connected on first use. NotFound for an unknown session, Unavailable for
  // a dead one or no desktop at all (with what to do).
  // With Need::kHands also opens (once) the desktop's input, windows and
  // capture; Unavailable when the display refuses them (no XTEST, say).
  Result<Lease> Acquire(const std::string& session_id = "", Need need = Need::kObserve);

  // Drops the connection to `display` after it failed (bus or X server
  // gone), so the next Acquire reconnects. Call with the lease released.
  void Invalidate(const std::string& display);

  // For fuzzing (fake workspaces only; a no-op otherwise): the fake desktop
  // starts over as in a new Workspace, served by `accessibility`, with
  // nothing observed, no IDs remembered and no deny list (set_hide_app), and
  // generation() grows, so what callers cached under the previous generation
  // no longer applies. Lets one registry of tools serve many independent
  // inputs.
  void ResetFake(std::unique_ptr<Accessibility> accessibility);
  uint64_t generation() const { return generation_.load(); }

 private:
  // One desktop the workspace serves. The observer's view of the windows
  // (Observer::set_windows) is the desktop's own, apart from the hands' so
  // that observing needs no input.
  struct Entry {
    DesktopConnection connection;
    std::unique_ptr<Observer> observer;
    std::unique_ptr<Hands> hands;  // opened on first need
    ~Entry();
  };
  Status OpenHands(Entry& entry);
  void Fill(Lease& lease, Entry& entry) const;

  Result<DesktopTarget> DefaultTarget(std::vector<std::string>* notes);
  Result<Entry*> Open(const DesktopTarget& target);

  WorkspaceOptions options_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Entry>> desktops_;  // by display
  std::unique_ptr<HeadlessDesktop> own_desktop_;            // started on first need
  bool fake_ = false;
  std::atomic<uint64_t> generation_{0};
  std::shared_ptr<ActionGate> gate_;
};

// Whether the lease's desktop lost its server (a fake desktop never does).
inline bool DesktopGone(const Workspace::Lease& lease) {
  return lease.desktop != nullptr && lease.desktop->broken();
}

// The top-level windows of the lease's desktop, bottom to top
// (WindowSystem::ListWindows); none without a window system. Unavailable
// when the display went away.
Result<std::vector<WindowInfo>> TopLevelWindows(const Workspace::Lease& lease);

// One window list for the passes of one perception (OCR targets, vision,
// OCR, the pixel IDs' record): listed once when it is made, answered by
// TopLevelWindows while it lives. The passes then agree on what is shown
// where, and a VNC desktop (windows found from title bars) or an X server
// with many windows is not asked four times. Not for code that waits on a
// change of the windows (verification, app launch: they ask the window
// system themselves).
class PinnedWindows {
 public:
  explicit PinnedWindows(Workspace::Lease& lease);
  ~PinnedWindows();
  PinnedWindows(const PinnedWindows&) = delete;
  PinnedWindows& operator=(const PinnedWindows&) = delete;

 private:
  Workspace::Lease& lease_;
  bool pinned_ = false;  // false: an outer one pinned them already, or listing failed
};

}  // namespace uiscope
