#include "platform/vnc/vnc_events.h"

#include <cstdio>

namespace uiscope {

std::vector<VncKeyEvent> VncChordEvents(const KeyChord& chord) {
  std::vector<VncKeyEvent> out;
  for (Keysym m : chord.modifiers) out.push_back({m, true});
  if (chord.key) {
    out.push_back({*chord.key, true});
    out.push_back({*chord.key, false});
  }
  for (auto it = chord.modifiers.rbegin(); it != chord.modifiers.rend(); ++it) {
    out.push_back({*it, false});
  }
  return out;
}

Result<std::vector<VncKeyEvent>> VncTextEvents(std::string_view utf8) {
  auto keysyms = KeysymsForText(utf8);
  if (!keysyms.ok()) return keysyms.error();
  std::vector<VncKeyEvent> out;
  out.reserve(keysyms->size() * 2);
  for (Keysym k : *keysyms) {
    out.push_back({k, true});
    out.push_back({k, false});
  }
  return out;
}

uint8_t VncButtonBit(MouseButton button) {
  switch (button) {
    case MouseButton::kLeft:
      return 1;
    case MouseButton::kMiddle:
      return 2;
    case MouseButton::kRight:
      return 4;
  }
  return 1;
}

uint8_t VncWheelBit(int dx, int dy) {
  if (dy < 0) return 1 << 3;
  if (dy > 0) return 1 << 4;
  if (dx < 0) return 1 << 5;
  return 1 << 6;
}

Result<std::string> Utf8ToLatin1(std::string_view utf8) {
  auto code_points = DecodeUtf8(utf8);
  if (!code_points.ok()) return code_points.error();
  std::string out;
  out.reserve(code_points->size());
  for (size_t i = 0; i < code_points->size(); ++i) {
    const char32_t c = (*code_points)[i];
    if (c > 0xff) {
      char name[16];
      std::snprintf(name, sizeof name, "U+%04X", static_cast<unsigned>(c));
      return MakeError(ErrorCode::kUnsupported,
                       "VNC cut text is ISO 8859-1 (Latin-1) in the classic protocol, and "
                       "character " +
                           std::to_string(i) + " (" + name +
                           ") is outside it; libvncclient has no UTF-8 (extended) clipboard");
    }
    out.push_back(static_cast<char>(c));
  }
  return out;
}

std::string Latin1ToUtf8(std::string_view latin1) {
  std::u32string code_points;
  code_points.reserve(latin1.size());
  for (char c : latin1) code_points.push_back(static_cast<unsigned char>(c));
  return EncodeUtf8(code_points);
}

}  // namespace uiscope
