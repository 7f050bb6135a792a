#include "core/keys.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <string>
#include <unordered_map>

namespace uiscope {
namespace {

struct NamedKey {
  const char* name;  // normalised: lower case, no '_' or '-'
  Keysym sym;
};

// Names a person or an agent writes for keys, normalised (see Normalise).
// Values from X11's keysymdef.h / XF86keysym.h.
constexpr NamedKey kNamedKeys[] = {
    // Modifiers (left keys; the right ones by their X names).
    {"ctrl", 0xffe3},
    {"control", 0xffe3},
    {"controll", 0xffe3},
    {"controlr", 0xffe4},
    {"shift", 0xffe1},
    {"shiftl", 0xffe1},
    {"shiftr", 0xffe2},
    {"alt", 0xffe9},
    {"altl", 0xffe9},
    {"altr", 0xffea},
    {"super", 0xffeb},
    {"superl", 0xffeb},
    {"superr", 0xffec},
    {"win", 0xffeb},
    {"windows", 0xffeb},
    {"cmd", 0xffeb},
    {"meta", 0xffeb},  // what most keyboards call Meta is the Super key under X
    {"metal", 0xffe7},
    {"metar", 0xffe8},
    {"hyper", 0xffed},
    {"hyperl", 0xffed},
    {"hyperr", 0xffee},
    {"altgr", 0xfe03},
    {"isolevel3shift", 0xfe03},
    // Editing and navigation.
    {"return", 0xff0d},
    {"enter", 0xff0d},
    {"tab", 0xff09},
    {"backspace", 0xff08},
    {"escape", 0xff1b},
    {"esc", 0xff1b},
    {"delete", 0xffff},
    {"del", 0xffff},
    {"insert", 0xff63},
    {"ins", 0xff63},
    {"home", 0xff50},
    {"end", 0xff57},
    {"left", 0xff51},
    {"up", 0xff52},
    {"right", 0xff53},
    {"down", 0xff54},
    {"prior", 0xff55},
    {"pageup", 0xff55},
    {"pgup", 0xff55},
    {"next", 0xff56},
    {"pagedown", 0xff56},
    {"pgdn", 0xff56},
    {"begin", 0xff58},
    {"space", 0x20},
    {"menu", 0xff67},
    {"print", 0xff61},
    {"printscreen", 0xff61},
    {"pause", 0xff13},
    {"break", 0xff6b},
    {"scrolllock", 0xff14},
    {"capslock", 0xffe5},
    {"numlock", 0xff7f},
    {"sysreq", 0xff15},
    {"help", 0xff6a},
    {"undo", 0xff65},
    {"redo", 0xff66},
    {"find", 0xff68},
    {"cancel", 0xff69},
    {"clear", 0xff0b},
    {"linefeed", 0xff0a},
    // Keypad.
    {"kpenter", 0xff8d},
    {"kpadd", 0xffab},
    {"kpsubtract", 0xffad},
    {"kpmultiply", 0xffaa},
    {"kpdivide", 0xffaf},
    {"kpdecimal", 0xffae},
    {"kpequal", 0xffbd},
    {"kp0", 0xffb0},
    {"kp1", 0xffb1},
    {"kp2", 0xffb2},
    {"kp3", 0xffb3},
    {"kp4", 0xffb4},
    {"kp5", 0xffb5},
    {"kp6", 0xffb6},
    {"kp7", 0xffb7},
    {"kp8", 0xffb8},
    {"kp9", 0xffb9},
    // ASCII punctuation by its X name, for chords where the character itself
    // would be awkward ("ctrl+plus", "ctrl+minus").
    {"exclam", 0x21},
    {"quotedbl", 0x22},
    {"numbersign", 0x23},
    {"dollar", 0x24},
    {"percent", 0x25},
    {"ampersand", 0x26},
    {"apostrophe", 0x27},
    {"parenleft", 0x28},
    {"parenright", 0x29},
    {"asterisk", 0x2a},
    {"plus", 0x2b},
    {"comma", 0x2c},
    {"minus", 0x2d},
    {"period", 0x2e},
    {"slash", 0x2f},
    {"colon", 0x3a},
    {"semicolon", 0x3b},
    {"less", 0x3c},
    {"equal", 0x3d},
    {"greater", 0x3e},
    {"question", 0x3f},
    {"at", 0x40},
    {"bracketleft", 0x5b},
    {"backslash", 0x5c},
    {"bracketright", 0x5d},
    {"asciicircum", 0x5e},
    {"underscore", 0x5f},
    {"grave", 0x60},
    {"braceleft", 0x7b},
    {"bar", 0x7c},
    {"braceright", 0x7d},
    {"asciitilde", 0x7e},
    // Media keys (XF86keysym.h).
    {"xf86audiolowervolume", 0x1008ff11},
    {"volumedown", 0x1008ff11},
    {"xf86audiomute", 0x1008ff12},
    {"mute", 0x1008ff12},
    {"xf86audioraisevolume", 0x1008ff13},
    {"volumeup", 0x1008ff13},
    {"xf86audioplay", 0x1008ff14},
    {"xf86audiostop", 0x1008ff15},
    {"xf86audioprev", 0x1008ff16},
    {"xf86audionext", 0x1008ff17},
};

constexpr Keysym kF1 = 0xffbe;
constexpr int kMaxFunctionKey = 35;

// Lower case without '_' and '-', so "Page_Up", "page-up" and "PageUp" meet.
std::string Normalise(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    if (c == '_' || c == '-') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

const std::unordered_map<std::string, Keysym>& NameTable() {
  static const auto* table = [] {
    auto* t = new std::unordered_map<std::string, Keysym>();
    for (const NamedKey& k : kNamedKeys) t->emplace(k.name, k.sym);
    return t;
  }();
  return *table;
}

bool ParseHex(std::string_view digits, uint32_t* out) {
  if (digits.empty() || digits.size() > 8) return false;
  uint32_t v = 0;
  for (char c : digits) {
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      return false;
    }
    v = v * 16 + static_cast<uint32_t>(d);
  }
  *out = v;
  return true;
}

std::string Utf8(char32_t cp) {
  std::string out;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
  return out;
}

constexpr char kChordSyntax[] =
    "write a chord as keys joined by '+', modifiers first: ctrl+shift+s, Return, F5, alt+F4, "
    "super, shift+Tab, ctrl+plus";

}  // namespace

std::optional<Keysym> KeysymFromName(std::string_view name) {
  if (name.empty()) return std::nullopt;
  // One character (any Unicode code point) is that character's key.
  if (auto cps = DecodeUtf8(name); cps.ok() && cps->size() == 1) {
    return KeysymForCodePoint((*cps)[0]);
  }
  if (name.size() > 2 && (name[0] == 'U' || name[0] == 'u') && name[1] == '+') {
    uint32_t cp = 0;
    if (!ParseHex(name.substr(2), &cp)) return std::nullopt;
    return KeysymForCodePoint(static_cast<char32_t>(cp));
  }
  if (name.size() > 2 && name[0] == '0' && (name[1] == 'x' || name[1] == 'X')) {
    uint32_t sym = 0;
    if (!ParseHex(name.substr(2), &sym) || sym == 0) return std::nullopt;
    return sym;
  }
  std::string key = Normalise(name);
  if (key.size() >= 2 && key[0] == 'f' &&
      std::all_of(key.begin() + 1, key.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    int n = std::stoi(key.substr(1));
    if (n >= 1 && n <= kMaxFunctionKey) return kF1 + static_cast<Keysym>(n - 1);
    return std::nullopt;
  }
  const auto& table = NameTable();
  if (auto it = table.find(key); it != table.end()) return it->second;
  return std::nullopt;
}

bool IsModifierKeysym(Keysym sym) {
  return (sym >= 0xffe1 && sym <= 0xffee) || sym == keysym::kIsoLevel3Shift || sym == 0xff7e;
}

bool TypesACharacter(const KeyChord& chord) {
  if (!chord.key) return false;
  for (Keysym m : chord.modifiers) {
    if (m != keysym::kShiftL && m != 0xffe2 && m != keysym::kIsoLevel3Shift) return false;
  }
  const Keysym k = *chord.key;
  return (k >= 0x20 && k <= 0x7e) || (k >= 0xa0 && k <= 0xff) ||
         (k >= 0x01000100 && k <= 0x0110ffff) || (k >= 0xffaa && k <= 0xffb9);
}

std::string KeysymName(Keysym sym) {
  switch (sym) {
    case keysym::kControlL:
    case 0xffe4:
      return "ctrl";
    case keysym::kShiftL:
    case 0xffe2:
      return "shift";
    case keysym::kAltL:
    case 0xffea:
      return "alt";
    case keysym::kSuperL:
    case 0xffec:
      return "super";
    case keysym::kIsoLevel3Shift:
      return "altgr";
    case keysym::kReturn:
      return "Return";
    case keysym::kTab:
      return "Tab";
    case keysym::kBackSpace:
      return "BackSpace";
    case keysym::kEscape:
      return "Escape";
    case keysym::kDelete:
      return "Delete";
    case 0x20:
      return "space";
    default:
      break;
  }
  char buf[16];
  if (sym >= kF1 && sym < kF1 + kMaxFunctionKey) {
    std::snprintf(buf, sizeof(buf), "F%u", sym - kF1 + 1);
    return buf;
  }
  if ((sym > 0x20 && sym < 0x7f) || (sym >= 0xa0 && sym <= 0xff)) return Utf8(sym);
  if ((sym & 0xff000000) == 0x01000000) {
    std::snprintf(buf, sizeof(buf), "U+%04X", sym & 0x00ffffff);
    return buf;
  }
  std::snprintf(buf, sizeof(buf), "0x%x", sym);
  return buf;
}

std::optional<Keysym> KeysymForCodePoint(char32_t cp) {
  switch (cp) {
    case U'\n':
    case U'\r':
      return keysym::kReturn;
    case U'\t':
      return keysym::kTab;
    case U'\b':
      return keysym::kBackSpace;
    default:
      break;
  }
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return std::nullopt;  // C0 / C1 controls, DEL
  if (cp <= 0xff) return static_cast<Keysym>(cp);
  if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return std::nullopt;
  return 0x01000000u + static_cast<Keysym>(cp);
}

Result<std::u32string> DecodeUtf8(std::string_view text) {
  std::u32string out;
  out.reserve(text.size());
  size_t i = 0;
  auto bad = [&](size_t at) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the text is not valid UTF-8 (at byte " + std::to_string(at) + ")");
  };
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      out += static_cast<char32_t>(c);
      ++i;
      continue;
    }
    int extra;
    char32_t cp;
    char32_t min;
    if ((c & 0xe0) == 0xc0) {
      extra = 1;
      cp = c & 0x1f;
      min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
      extra = 2;
      cp = c & 0x0f;
      min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
      extra = 3;
      cp = c & 0x07;
      min = 0x10000;
    } else {
      return bad(i);
    }
    if (i + static_cast<size_t>(extra) >= text.size()) return bad(i);
    for (int k = 1; k <= extra; ++k) {
      unsigned char cc = static_cast<unsigned char>(text[i + k]);
      if ((cc & 0xc0) != 0x80) return bad(i);
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return bad(i);
    out += cp;
    i += static_cast<size_t>(extra) + 1;
  }
  return out;
}

std::string EncodeUtf8(std::u32string_view code_points) {
  std::string out;
  for (char32_t c : code_points) out += Utf8(c);
  return out;
}

Result<std::vector<Keysym>> KeysymsForText(std::string_view text) {
  auto cps = DecodeUtf8(text);
  if (!cps.ok()) return cps.error();
  std::vector<Keysym> out;
  out.reserve(cps->size());
  for (size_t i = 0; i < cps->size(); ++i) {
    auto sym = KeysymForCodePoint((*cps)[i]);
    if (!sym) {
      char buf[16];
      std::snprintf(buf, sizeof(buf), "U+%04X", static_cast<unsigned>((*cps)[i]));
      return MakeError(ErrorCode::kInvalidArgument,
                       std::string("character ") + buf + " (code point " + std::to_string(i) +
                           " of the text) is a control character that no key types; send keys "
                           "such as Return or Tab with press_keys instead");
    }
    out.push_back(*sym);
  }
  return out;
}

Result<KeyChord> ParseKeyChord(std::string_view chord) {
  KeyChord out;
  out.text = std::string(chord);
  if (chord.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, std::string("empty key chord: ") + kChordSyntax);
  }
  // '+' joins keys, so a '+' key is written "plus", or last as "ctrl++".
  std::vector<std::string_view> parts;
  std::string_view rest = chord;
  bool plus_key = false;
  if (rest == "+") {
    rest = "";
    plus_key = true;
  } else if (rest.size() >= 2 && rest.substr(rest.size() - 2) == "++") {
    rest.remove_suffix(2);
    plus_key = true;
  }
  while (!rest.empty()) {
    size_t at = rest.find('+');
    std::string_view part = rest.substr(0, at);
    if (part.empty()) {
      return MakeError(
          ErrorCode::kInvalidArgument,
          "key chord \"" + out.text + "\" has an empty key between '+' signs: " + kChordSyntax);
    }
    parts.push_back(part);
    if (at == std::string_view::npos) break;
    rest.remove_prefix(at + 1);
    if (rest.empty()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "key chord \"" + out.text + "\" ends with '+': " + kChordSyntax);
    }
  }
  // "U+20AC" names a code point: its '+' does not join keys.
  std::vector<std::string> names;
  for (size_t i = 0; i < parts.size(); ++i) {
    uint32_t ignored = 0;
    if ((parts[i] == "U" || parts[i] == "u") && i + 1 < parts.size() && parts[i + 1].size() <= 6 &&
        ParseHex(parts[i + 1], &ignored)) {
      names.push_back(std::string(parts[i]) + "+" + std::string(parts[i + 1]));
      ++i;
    } else {
      names.emplace_back(parts[i]);
    }
  }
  std::vector<Keysym> syms;
  for (const std::string& part : names) {
    auto sym = KeysymFromName(part);
    if (!sym) {
      return MakeError(ErrorCode::kInvalidArgument, "unknown key \"" + part + "\" in chord \"" +
                                                        out.text + "\": " + kChordSyntax);
    }
    syms.push_back(*sym);
  }
  if (plus_key) syms.push_back('+');
  for (size_t i = 0; i < syms.size(); ++i) {
    const bool last = i + 1 == syms.size();
    if (IsModifierKeysym(syms[i])) {
      if (std::find(out.modifiers.begin(), out.modifiers.end(), syms[i]) == out.modifiers.end()) {
        out.modifiers.push_back(syms[i]);
      }
      continue;
    }
    if (!last) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "key chord \"" + out.text + "\" presses two keys (" + KeysymName(syms[i]) +
                           " and " + KeysymName(syms.back()) +
                           "); a chord is modifiers plus one key, so send them as separate "
                           "chords (e.g. \"ctrl+a\" \"Delete\")");
    }
    out.key = syms[i];
  }
  return out;
}

}  // namespace uiscope
