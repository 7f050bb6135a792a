#include "core/escape.h"

namespace uiscope {
namespace {

constexpr std::string_view kEllipsis = "…";
constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";  // U+FFFD

char32_t DecodeUtf8(std::string_view s, size_t i, size_t len) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  if (len == 1) return byte(0);
  static constexpr unsigned char kLeadMask[] = {0, 0, 0x1f, 0x0f, 0x07};
  char32_t cp = byte(0) & kLeadMask[len];
  for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (byte(k) & 0x3f);
  return cp;
}

// "\u202e" for the BMP, "\U000e0041" above it: the spelling JSON, C and
// Python readers already know.
void AppendCodePointEscape(std::string& out, char32_t cp) {
  static constexpr char kHex[] = "0123456789abcdef";
  const int digits = cp > 0xffff ? 8 : 4;
  out += '\\';
  out += cp > 0xffff ? 'U' : 'u';
  for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 0xf];
}

// Walks `s` as SanitiseUtf8 does and hands each kept piece to `emit`: a
// well-formed character with its code point, U+FFFD for a malformed byte, or
// the final "…".
template <typename Emit>
void ForEachDisplayChar(std::string_view s, size_t max_chars, Emit emit) {
  // The cut needs to know, at character `max_chars`, whether anything
  // follows; characters are held back one step so the last kept one can be
  // replaced by "…".
  if (max_chars == 0) return;
  size_t chars = 0;
  for (size_t i = 0; i < s.size();) {
    const size_t len = Utf8SequenceLength(s, i);
    const bool malformed = len == 0;
    const size_t step = malformed ? 1 : len;
    if (chars + 1 == max_chars && i + step < s.size()) {
      emit(kEllipsis, char32_t{0x2026});
      return;
    }
    if (malformed) {
      emit(kReplacementChar, char32_t{0xfffd});
    } else {
      emit(s.substr(i, len), DecodeUtf8(s, i, len));
    }
    i += step;
    ++chars;
    if (chars == max_chars) return;
  }
}

void AppendEscaped(std::string& out, std::string_view s, size_t max_chars, bool quoted) {
  ForEachDisplayChar(s, max_chars, [&](std::string_view bytes, char32_t cp) {
    if (quoted && (cp == '"' || cp == '\\')) {
      out += '\\';
      out += static_cast<char>(cp);
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (EscapedForDisplay(cp)) {
      AppendCodePointEscape(out, cp);
    } else {
      out.append(bytes);
    }
  });
}

}  // namespace

size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  size_t len = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;  // allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    len = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    len = 3;
    if (lead == 0xE0) lo = 0xA0;
    if (lead == 0xED) hi = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    len = 4;
    if (lead == 0xF0) lo = 0x90;
    if (lead == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  return len;
}

bool EscapedForDisplay(char32_t cp) {
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return true;  // C0, DEL, C1
  switch (cp) {
    case 0x00ad:  // soft hyphen: invisible unless a line breaks there
    case 0x034f:  // combining grapheme joiner
    case 0x061c:  // Arabic letter mark
    case 0x115f:  // Hangul fillers: blank glyphs
    case 0x1160:
    case 0x180e:  // Mongolian vowel separator
    case 0x3164:
    case 0xfeff:  // BOM / zero-width no-break space
    case 0xffa0:
      return true;
    default:
      break;
  }
  if (cp >= 0x200b && cp <= 0x200f) return true;    // zero-width space, joiners, LRM, RLM
  if (cp >= 0x2028 && cp <= 0x202e) return true;    // line/para separators, LRE..RLO
  if (cp >= 0x2060 && cp <= 0x206f) return true;    // word joiner, invisible ops, LRI..PDI
  if (cp >= 0xfff9 && cp <= 0xfffb) return true;    // interlinear annotation
  if (cp >= 0xe0000 && cp <= 0xe007f) return true;  // tags: invisible ASCII
  return false;
}

size_t FindUnescaped(std::string_view text, bool allow_newline) {
  for (size_t i = 0; i < text.size();) {
    const size_t len = Utf8SequenceLength(text, i);
    if (len == 0) return i;
    const char32_t cp = DecodeUtf8(text, i, len);
    if (EscapedForDisplay(cp) && !(allow_newline && cp == '\n')) return i;
    i += len;
  }
  return std::string_view::npos;
}

std::string SanitiseUtf8(std::string_view s, size_t max_chars) {
  std::string out;
  out.reserve(s.size());
  ForEachDisplayChar(s, max_chars, [&](std::string_view bytes, char32_t) { out.append(bytes); });
  return out;
}

std::string EscapeForDisplay(std::string_view s, size_t max_chars) {
  std::string out;
  out.reserve(s.size());
  AppendEscaped(out, s, max_chars, /*quoted=*/false);
  return out;
}

std::string EscapeLinesForDisplay(std::string_view s, std::string_view indent) {
  std::string out;
  for (size_t start = 0;;) {
    const size_t end = s.find('\n', start);
    if (start > 0) {
      out += '\n';
      out += indent;
    }
    AppendEscaped(out, s.substr(start, end == std::string_view::npos ? end : end - start),
                  kNoDisplayLimit, /*quoted=*/false);
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

std::string QuoteForDisplay(std::string_view s, size_t max_chars) {
  std::string out;
  AppendQuotedForDisplay(out, s, max_chars);
  return out;
}

void AppendQuotedForDisplay(std::string& out, std::string_view s, size_t max_chars) {
  out += '"';
  AppendEscaped(out, s, max_chars, /*quoted=*/true);
  out += '"';
}

}  // namespace uiscope
