// Input: synthetic pointer and keyboard events on a desktop (DESIGN §7), the
// hands of uiscope when an element offers no accessibility action.
//
// Abstract so the engine never sees a backend header and its tests can
// record what would have been sent (tests/support/fake_input.h). The real
// implementation is XTestInput (platform/x11/xtest_input.h): XTest fake
// events on its own X connection; a VNC backend can implement the same.
//
// Coordinates: screen pixels of the display, the frame of the accessibility
// tree and of screenshots (DESIGN §3).
//
// Every call returns once the display server has processed its events (an
// XSync for X11): the application may still be handling them, which is what
// the engine's verification waits for. Buttons and keys pressed by a call are
// released by it, also on failure, so no button or modifier stays stuck.
//
// Thread safety: none; one Input per thread, or serialise calls (the
// workspace lease does). Ownership: the backend owns its connection.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/geometry.h"
#include "core/keys.h"
#include "core/result.h"

namespace uiscope {

enum class MouseButton { kLeft, kMiddle, kRight };

// "left" | "middle" | "right"; InvalidArgument naming them otherwise.
Result<MouseButton> ParseMouseButton(std::string_view name);
std::string_view MouseButtonName(MouseButton button);

// What an application shows of the characters typed into it (see
// TypeOptions::wait_handled).
struct TypedShown {
  size_t right = 0;  // leading characters shown as they were sent
  size_t shown = 0;  // characters shown in all: those after `right` are wrong
};

struct TypeOptions {
  // Called when the backend must know that the application has handled the
  // keys sent so far — before a spare key code is rebound to another
  // character, and before the keymap is restored (see xtest_input.h) —
  // with the number of code points sent. Return once the app shows them
  // (the engine watches the element's text) what it shows: all of them
  // right, or a character other than sent (a key translated with the
  // code's previous binding) or none (a key dropped) from some position
  // on, which the backend then erases and types again. When unsure (the
  // app did not catch up in time and its text is not the one typed into),
  // return {typed, typed}. Empty = wait a fixed settle time.
  std::function<TypedShown(size_t typed)> wait_handled;
  // Told, in words, when the backend could not tell that the application
  // had handled the keys before it restored the keymap (it then waited a
  // fixed time, and characters it typed through spare key codes may be
  // lost). May be empty.
  std::function<void(std::string_view why)> unsure;
};

class Input {
 public:
  virtual ~Input() = default;

  // How the events travel, as action results name it (their `via`):
  // "xtest" (X11's XTest extension) or "vnc" (RFB pointer and key events).
  virtual std::string_view kind() const = 0;

  virtual Status MovePointer(Point to) = 0;
  virtual Result<Point> PointerPosition() = 0;
  virtual Status PressButton(MouseButton button) = 0;
  virtual Status ReleaseButton(MouseButton button) = 0;
  // Moves to `at`, then `count` press-release pairs (2 = a double click,
  // within the toolkits' double-click time).
  virtual Status Click(Point at, MouseButton button, int count) = 0;
  // Wheel steps at `at`: dy > 0 scrolls down (X button 5), dy < 0 up (4);
  // dx > 0 right (7), dx < 0 left (6). One step is one wheel click.
  virtual Status Scroll(Point at, int dx, int dy) = 0;
  // Presses `button` at `from`, moves to `to` in small steps (toolkits need
  // motion events to follow a drag), releases it there.
  virtual Status Drag(Point from, Point to, MouseButton button) = 0;

  // Presses the chord's modifiers in order, then its key, and releases
  // them in reverse. A keysym the keymap lacks is bound to a spare key code
  // for the chord and the mapping restored afterwards.
  virtual Status PressChord(const KeyChord& chord) = 0;
  // Types `utf8` character by character, in order, none lost: characters
  // the keymap lacks (ü, 東, emoji) are bound to spare key codes while they
  // are typed, and the keymap is restored afterwards. InvalidArgument for
  // malformed UTF-8 or control characters other than newline, tab and
  // backspace (core/keys.h).
  virtual Status TypeText(std::string_view utf8, const TypeOptions& options) = 0;
  Status TypeText(std::string_view utf8) { return TypeText(utf8, TypeOptions{}); }
};

// XTest input on X display `display` ("" = $DISPLAY), through its own X
// connection. Unavailable when the display cannot be opened or lacks the
// XTEST extension (with what to do).
Result<std::unique_ptr<Input>> OpenXTestInput(const std::string& display);

}  // namespace uiscope
