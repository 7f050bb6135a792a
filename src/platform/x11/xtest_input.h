// XTestInput: Input (platform/input.h) through the XTEST extension.
//
// Keys: a keysym is typed with the key code and shift level the live
// keymap gives it (level 1, or level 2 with Shift). A keysym the keymap
// lacks (ü on a US keymap, 東, emoji) is bound to a spare key code — one
// with no keysyms at all — with XChangeKeyboardMapping, and the code is
// restored to nothing afterwards. Binding several at once (one per distinct
// missing character of a text, as long as spare codes last) keeps remapping
// rare.
//
// Why it waits around remapping: a client translates a key event with the
// keymap it fetches when it handles the event, not the one in force when
// the event was sent (GDK re-reads the map lazily after a MappingNotify).
// Rebinding or restoring a code while the app has not yet handled the key
// events that used it turns them into other characters or none (seen: an
// 'ä' typed as '屋' by a busy GTK entry 60 ms after it was sent). So before
// a spare code is rebound, and before the keymap is restored, the backend
// first asks the app itself: a _NET_WM_PING (EWMH) sent to the window with
// the keyboard focus reaches the app after the key events, in order, and
// GDK, Qt and Chromium answer it from their event loop, after translating
// the keys before it; so the answer means the keys were read with the
// keymap as sent. Then it asks TypeOptions::wait_handled (the engine
// watches the element's text until the app shows what was sent). A window
// that does not answer pings (none has the focus, Tk), or an app that does
// not answer within `handled_timeout` (busy or hung), leaves the backend
// unsure: it says so (TypeOptions::unsure) and waits `remap_settle`. Seen
// before the ping: a GTK window whose main loop slept 300 ms on a key lost
// every 'ä' after it, restored 100 ms after it was sent.
// Texts within the spare-code budget pay that once, at the end. Beyond it,
// codes are rebound in batches (the next distinct characters the text
// needs), each after one such wait and followed by a pause
// (`rebind_settle`): Chromium translated the first key after a rebinding
// with the code's previous keysym now and then. Each wait also checks the
// characters sent since the last: from the first wrong one, they are
// erased with BackSpace and typed again.
//
// Repeated keys: the server stamps each event with its time in
// milliseconds, and a key release followed by a press of the same key code
// with the same time is how X reports autorepeat. Qt's xcb plugin
// (QXcbKeyboard::handleKeyEvent) marks both as autorepeat, and widgets that
// ignore repeats (kcalc's keypad: "100" arrived as "10") drop the second
// character; the Qt fixture saw 22 of 40 keys of "1000 aa bb ccc ZZ!! 100
// aaa…" marked so. So a key code is never pressed in the millisecond of its
// own release: the press waits until kSameKeyGap after the release was
// processed (2 ms per doubled letter).
//
// Thread safety: none (Xlib without XInitThreads); one thread at a time.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "platform/input.h"
#include "platform/x11/x11_display.h"

namespace uiscope::x11 {

struct XTestOptions {
  // Wait before rebinding a used spare key code and before restoring the
  // keymap when the caller gives no TypeOptions::wait_handled (see above).
  std::chrono::milliseconds remap_settle{250};
  // How long the app gets to answer a _NET_WM_PING sent after the keys
  // (see above) before the backend stops waiting for it for that call.
  std::chrono::milliseconds handled_timeout{3000};
  // Pause after rebinding spare codes, before the keys that use them.
  std::chrono::milliseconds rebind_settle{40};
  // Pause between the motion steps of a drag, so toolkits see each one.
  std::chrono::milliseconds drag_step_pause{4};
  // For tests: use at most this many spare key codes (0 = all there are), to
  // exercise rebinding with short texts.
  int max_spare_codes = 0;
};

class XTestInput final : public Input {
 public:
  // Opens its own connection to `display_name` ("" = $DISPLAY).
  static Result<std::unique_ptr<XTestInput>> Open(const std::string& display_name,
                                                  const XTestOptions& options = {});
  ~XTestInput() override;

  std::string_view kind() const override { return "xtest"; }

  Status MovePointer(Point to) override;
  Result<Point> PointerPosition() override;
  Status PressButton(MouseButton button) override;
  Status ReleaseButton(MouseButton button) override;
  Status Click(Point at, MouseButton button, int count) override;
  Status Scroll(Point at, int dx, int dy) override;
  Status Drag(Point from, Point to, MouseButton button) override;
  Status PressChord(const KeyChord& chord) override;
  Status TypeText(std::string_view utf8, const TypeOptions& options) override;
  using Input::TypeText;

  // For tests and benchmarks: one raw button event (press or release),
  // synced, bypassing everything above.
  Status RawButtonEvent(unsigned int x_button, bool press);
  // For tests: how many times a spare key code was (re)bound over the
  // object's life, and how many characters were erased and typed again
  // because the app translated them with a stale keymap.
  int spare_bindings() const { return spare_bindings_; }
  int retyped() const { return retyped_; }

 private:
  struct Keymap;
  XTestInput(std::unique_ptr<X11Display> display, XTestOptions options)
      : display_(std::move(display)), options_(options) {}

  // Each sends the events and flushes; Sync() makes the server process them.
  Status Sync();
  Status Button(unsigned int x_button, bool press);
  Status Key(unsigned int code, bool press);
  Status TypeKeysyms(const std::vector<Keysym>& syms, const TypeOptions& options);

  // One call's asking whether the app handled its keys (AppHandled).
  struct HandledCheck {
    std::function<void(std::string_view)> unsure;  // TypeOptions::unsure
    bool gave_up = false;                          // it could not be told once: not asked again
  };
  // Pings the window with the keyboard focus and waits for its answer
  // (see above): true once the app answered, after every key sent before.
  bool AppHandled(HandledCheck& check);
  long pings_ = 0;  // the last ping's stamp

  // What Key() needs to keep a press out of its code's release millisecond.
  static constexpr std::chrono::milliseconds kSameKeyGap{2};
  unsigned int last_release_code_ = 0;
  bool release_unsynced_ = false;  // a release was sent, not yet synced
  std::chrono::steady_clock::time_point last_release_synced_;

  std::unique_ptr<X11Display> display_;
  XTestOptions options_;
  int spare_bindings_ = 0;
  int retyped_ = 0;
};

}  // namespace uiscope::x11
