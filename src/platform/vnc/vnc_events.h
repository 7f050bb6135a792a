// What VNC input sends for a chord, a text and a mouse button: the pure
// half of VncInput (vnc_backend.h), unit-tested without a server.
//
// RFB KeyEvent messages carry keysyms, not key codes: the server maps each
// to a key of its own keymap. Letters go as themselves ('A' is keysym 0x41;
// the server adds Shift), Latin-1 characters as their own keysym ('ü' is
// 0xfc), every other code point as 0x01000000 + code point (core/keys.h).
// Both x11vnc and TigerVNC's Xvnc bind a keysym their keymap lacks to a
// spare key code themselves (x11vnc: -add_keysyms, on by default; Xvnc:
// its keyboard code adds it), so no keymap juggling happens on this side.
//
// RFB PointerEvent carries a button mask: bit 0 left, 1 middle, 2 right,
// 3/4 wheel up/down (X buttons 4/5), 5/6 wheel left/right (X buttons 6/7).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/keys.h"
#include "core/result.h"
#include "platform/input.h"

namespace uiscope {

struct VncKeyEvent {
  Keysym keysym = 0;
  bool down = false;
  bool operator==(const VncKeyEvent&) const = default;
};

// Modifiers down in order, the key down and up, modifiers up in reverse.
std::vector<VncKeyEvent> VncChordEvents(const KeyChord& chord);

// A down and an up per character (KeysymsForText): InvalidArgument for
// malformed UTF-8 or a control character other than newline, tab and
// backspace.
Result<std::vector<VncKeyEvent>> VncTextEvents(std::string_view utf8);

// The RFB button-mask bit of `button`.
uint8_t VncButtonBit(MouseButton button);

// The mask bit of one wheel step: dy > 0 down (X button 5), dy < 0 up (4),
// dx > 0 right (7), dx < 0 left (6). Exactly one of dx, dy must be nonzero.
uint8_t VncWheelBit(int dx, int dy);

// UTF-8 to ISO 8859-1 for RFB cut text (the classic protocol's charset).
// Unsupported naming the first character outside Latin-1 (with its offset);
// InvalidArgument for malformed UTF-8.
Result<std::string> Utf8ToLatin1(std::string_view utf8);
// ISO 8859-1 to UTF-8 (every byte is a character).
std::string Latin1ToUtf8(std::string_view latin1);

}  // namespace uiscope
