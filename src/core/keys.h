// Keys: key chords and text as X keysyms — the pure half of keyboard input
// (DESIGN §7). The input backend (platform/input.h) turns keysyms into key
// codes of the live keymap; everything that can be decided without a display
// is decided here and unit-tested.
//
// Chord syntax (`uiscope keys`, the press_keys tool): keys joined by '+',
// modifiers first: "ctrl+shift+s", "Return", "F5", "super", "alt+F4",
// "ctrl+alt+Delete", "shift+Tab". Names are case-insensitive except single
// characters ("a" and "A" are different keysyms; "A" is typed with Shift).
// Modifier aliases: ctrl / control, shift, alt, super / win / meta / cmd,
// altgr. Key aliases: enter = Return, esc = Escape, del = Delete, ins =
// Insert, pgup / pageup = Prior, pgdn / pagedown = Next, backspace,
// space, tab, up / down / left / right, home, end, menu, print, F1–F35,
// "plus" for '+', any single Unicode character, "U+20AC" and "0x1008ff12"
// (a raw keysym). A chord of modifiers only ("super") presses and releases
// them.
//
// Text: every Unicode code point maps to one keysym (Latin-1 directly, the
// rest as 0x01000000 + code point, per the X11 keysym encoding), and
// newline / tab / backspace to their function keys.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace uiscope {

using Keysym = uint32_t;

// The keysyms uiscope names itself (X11 keysymdef.h values).
namespace keysym {
constexpr Keysym kBackSpace = 0xff08;
constexpr Keysym kTab = 0xff09;
constexpr Keysym kReturn = 0xff0d;
constexpr Keysym kEscape = 0xff1b;
constexpr Keysym kDelete = 0xffff;
constexpr Keysym kShiftL = 0xffe1;
constexpr Keysym kControlL = 0xffe3;
constexpr Keysym kAltL = 0xffe9;
constexpr Keysym kSuperL = 0xffeb;
constexpr Keysym kIsoLevel3Shift = 0xfe03;  // AltGr
}  // namespace keysym

struct KeyChord {
  std::vector<Keysym> modifiers;  // pressed in order, released in reverse
  // The key pressed while the modifiers are held; nullopt for a chord of
  // modifiers only ("super").
  std::optional<Keysym> key;
  std::string text;  // the chord as written, for messages
};

// One chord ("ctrl+shift+s"). InvalidArgument naming the bad part and
// showing the syntax: an empty part, an unknown name, two non-modifier keys.
Result<KeyChord> ParseKeyChord(std::string_view chord);

// The keysym of one key name ("Return", "f5", "a", "ü", "U+00FC",
// "0xff0d"); nullopt when unknown. Modifier names give their left keysym.
std::optional<Keysym> KeysymFromName(std::string_view name);
// True for Shift, Control, Alt, Super, Meta, Hyper, AltGr keysyms.
bool IsModifierKeysym(Keysym sym);
// True when the chord types a character into a text field: a printable key
// (letters, digits, punctuation, space, any Unicode character, the keypad's
// digits) with no modifier but Shift or AltGr. "g", "shift+p", "ü" do;
// "ctrl+s", "Return", "alt+F4" do not. What is typed this way is as secret
// as typed text when it goes to a password field.
bool TypesACharacter(const KeyChord& chord);
// A readable name for messages ("Return", "ctrl", "a", "U+6771").
std::string KeysymName(Keysym sym);

// The keysym that types `code_point`: Latin-1 printable characters are their
// own keysym, '\n' / '\r' Return, '\t' Tab, '\b' BackSpace, other code points
// 0x01000000 + code point. nullopt for other control characters and for
// values outside Unicode.
std::optional<Keysym> KeysymForCodePoint(char32_t code_point);

// UTF-8 to code points. InvalidArgument (with the byte offset) for malformed
// UTF-8, overlong forms and surrogates.
Result<std::u32string> DecodeUtf8(std::string_view text);

// Code points to UTF-8 (the inverse of DecodeUtf8 for valid input).
std::string EncodeUtf8(std::u32string_view code_points);

// The keysyms that type `text` (DecodeUtf8, then KeysymForCodePoint).
// InvalidArgument for malformed UTF-8 or an untypeable control character.
Result<std::vector<Keysym>> KeysymsForText(std::string_view text);

}  // namespace uiscope
