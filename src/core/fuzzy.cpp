#include "core/fuzzy.h"

#include <algorithm>
#include <cstdint>

namespace uiscope {
namespace {

// Base letters of U+00C0..U+00FF; '*' = more than one letter or not a
// letter (handled in FoldCodePoint).
constexpr std::string_view kLatin1 =
    "aaaaaa*ceeeeiiii"   // C0-CF
    "dnooooo*ouuuuy**"   // D0-DF
    "aaaaaa*ceeeeiiii"   // E0-EF
    "dnooooo*ouuuuy*y";  // F0-FF
// Base letters of U+0100..U+017F (Latin Extended-A), same convention.
constexpr std::string_view kLatinExtendedA =
    "aaaaaa"        // 0100-0105
    "cccccccc"      // 0106-010D
    "dddd"          // 010E-0111
    "eeeeeeeeee"    // 0112-011B
    "gggggggg"      // 011C-0123
    "hhhh"          // 0124-0127
    "iiiiiiiiii"    // 0128-0131
    "**"            // 0132-0133 IJ ij
    "jj"            // 0134-0135
    "kkk"           // 0136-0138
    "llllllllll"    // 0139-0142
    "nnnnnnn"       // 0143-0149
    "nn"            // 014A-014B
    "oooooo"        // 014C-0151
    "**"            // 0152-0153 OE oe
    "rrrrrr"        // 0154-0159
    "ssssssss"      // 015A-0161
    "tttttt"        // 0162-0167
    "uuuuuuuuuuuu"  // 0168-0173
    "ww"            // 0174-0175
    "yyy"           // 0176-0178
    "zzzzzz"        // 0179-017E
    "s";            // 017F long s
static_assert(kLatin1.size() == 64);
static_assert(kLatinExtendedA.size() == 128);

// An invalid byte B decodes to the lone surrogate 0xDC00 + B (Python's
// "surrogateescape"): no valid text decodes there, so it can neither fold
// into a letter nor fuse with its neighbours, and Encode writes B back.
constexpr char32_t kEscapedByte = 0xDC00;

// Decodes one code point at `i` (advanced past it).
char32_t Decode(std::string_view s, size_t& i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  int extra = 0;
  char32_t cp = 0;
  if (c < 0x80) {
    ++i;
    return c;
  } else if ((c & 0xE0) == 0xC0) {
    extra = 1;
    cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    extra = 2;
    cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    extra = 3;
    cp = c & 0x07;
  } else {
    ++i;
    return kEscapedByte + c;
  }
  for (int k = 1; k <= extra; ++k) {
    if (i + k >= s.size() || (byte(i + k) & 0xC0) != 0x80) {
      ++i;
      return kEscapedByte + c;
    }
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  i += static_cast<size_t>(extra) + 1;
  return cp;
}

void Encode(char32_t cp, std::string& out) {
  if (cp >= kEscapedByte + 0x80 && cp <= kEscapedByte + 0xFF) {
    out.push_back(static_cast<char>(cp - kEscapedByte));
  } else if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::u32string CodePoints(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) out.push_back(Decode(s, i));
  return out;
}

bool IsCombiningMark(char32_t cp) {
  return (cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x1AB0 && cp <= 0x1AFF) ||
         (cp >= 0x1DC0 && cp <= 0x1DFF) || (cp >= 0x20D0 && cp <= 0x20FF);
}

// Letters and digits of the scripts folded here, plus everything above
// Latin Extended-A that is not punctuation or a symbol we know of, so
// unknown scripts keep their text.
bool IsWordCodePoint(char32_t cp) {
  if (cp < 0x80) {
    return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
  }
  if (cp < 0xC0) return cp == 0xAA || cp == 0xB5 || cp == 0xBA;  // ª µ º
  if (cp == 0xD7 || cp == 0xF7) return false;                    // × ÷
  if (cp >= 0x2000 && cp <= 0x2BFF) return false;                // punctuation, arrows, symbols
  if (cp >= 0x3000 && cp <= 0x303F) return false;                // CJK punctuation
  if (cp >= 0xFE30 && cp <= 0xFE4F) return false;
  if (cp >= 0xFF00 && cp <= 0xFF0F) return false;
  return true;
}

// Appends the folded form of a word code point.
void FoldCodePoint(char32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp >= 'A' && cp <= 'Z' ? cp - 'A' + 'a' : cp));
    return;
  }
  if (cp >= 0xC0 && cp <= 0xFF) {
    const char base = kLatin1[cp - 0xC0];
    if (base != '*') {
      out.push_back(base);
    } else if (cp == 0xC6 || cp == 0xE6) {
      out += "ae";
    } else if (cp == 0xDE || cp == 0xFE) {
      out += "th";
    } else if (cp == 0xDF) {
      out += "ss";
    }
    return;
  }
  if (cp >= 0x100 && cp <= 0x17F) {
    const char base = kLatinExtendedA[cp - 0x100];
    if (base != '*') {
      out.push_back(base);
    } else if (cp == 0x132 || cp == 0x133) {
      out += "ij";
    } else {
      out += "oe";
    }
    return;
  }
  // Greek and Cyrillic capitals to small letters.
  if (cp >= 0x391 && cp <= 0x3A9) cp += 0x20;
  if (cp >= 0x410 && cp <= 0x42F) cp += 0x20;
  if (cp >= 0x400 && cp <= 0x40F) cp += 0x50;
  Encode(cp, out);
}

size_t Length(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size();) {
    Decode(s, i);
    ++n;
  }
  return n;
}

std::string WithoutSpaces(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c != ' ') out.push_back(c);
  }
  return out;
}

// How well one query word matches one label word, in [0, 1]; 0 = not at all.
double WordScore(std::string_view query, std::string_view word) {
  if (query == word) return 1.0;
  if (word.starts_with(query)) return 0.9;
  if (query.size() >= 2 && word.find(query) != std::string_view::npos) return 0.75;
  const size_t length = Length(query);
  const int allowed = AllowedTypos(length);
  if (allowed == 0) return 0;
  // A typo anywhere, or in a prefix of a longer word ("passwrd" / "password").
  // The distance is at least the difference in length: past `allowed` it is
  // not worth computing.
  const size_t word_length = Length(word);
  const size_t apart = word_length > length ? word_length - length : length - word_length;
  size_t d = apart > static_cast<size_t>(allowed) ? apart : EditDistance(query, word);
  if (word_length > length) {
    const std::u32string w = CodePoints(word);
    std::string prefix;
    for (size_t k = 0; k < length && k < w.size(); ++k) Encode(w[k], prefix);
    d = std::min(d, EditDistance(query, prefix) + 1);
  }
  if (d > static_cast<size_t>(allowed)) return 0;
  return 0.75 - 0.1 * static_cast<double>(d);
}

// FoldText of at most `limit` code points of output: it stops reading
// `text` there, so the cost is bounded by `limit`, not by the text's size
// (a run of combining marks or punctuation is still read through, linearly).
std::string FoldPrefix(std::string_view text, size_t limit) {
  std::string out;
  out.reserve(std::min(text.size(), limit));
  size_t code_points = 0;
  bool space = false;
  for (size_t i = 0; i < text.size() && code_points < limit;) {
    const char32_t cp = Decode(text, i);
    if (IsCombiningMark(cp)) continue;
    if (!IsWordCodePoint(cp)) {
      space = true;
      continue;
    }
    const size_t before = out.size();
    if (space && !out.empty()) out.push_back(' ');
    space = false;
    FoldCodePoint(cp, out);
    for (size_t k = before; k < out.size(); ++k)
      code_points += (static_cast<unsigned char>(out[k]) & 0xC0) != 0x80;
  }
  // A fold of two letters ("ae") may overshoot by one: cut at a code point.
  while (code_points > limit) {
    size_t end = out.size() - 1;
    while (end > 0 && (static_cast<unsigned char>(out[end]) & 0xC0) == 0x80) --end;
    out.resize(end);
    --code_points;
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace

std::string FoldText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool space = false;
  for (size_t i = 0; i < text.size();) {
    const char32_t cp = Decode(text, i);
    if (IsCombiningMark(cp)) continue;
    if (!IsWordCodePoint(cp)) {
      space = true;
      continue;
    }
    if (space && !out.empty()) out.push_back(' ');
    space = false;
    FoldCodePoint(cp, out);
  }
  return out;
}

std::vector<std::string_view> FoldedWords(std::string_view folded) {
  std::vector<std::string_view> words;
  size_t start = 0;
  while (start < folded.size()) {
    size_t end = folded.find(' ', start);
    if (end == std::string_view::npos) end = folded.size();
    if (end > start) words.push_back(folded.substr(start, end - start));
    start = end + 1;
  }
  return words;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  const std::u32string x = CodePoints(a);
  const std::u32string y = CodePoints(b);
  // Three rows: the one two back holds what a transposition starts from.
  std::vector<size_t> before(y.size() + 1), prev(y.size() + 1), cur(y.size() + 1);
  for (size_t j = 0; j <= y.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= x.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= y.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x[i - 1] != y[j - 1])});
      if (i > 1 && j > 1 && x[i - 1] == y[j - 2] && x[i - 2] == y[j - 1]) {
        cur[j] = std::min(cur[j], before[j - 2] + 1);
      }
    }
    std::swap(before, prev);
    std::swap(prev, cur);
  }
  return prev[y.size()];
}

double Similarity(std::string_view a, std::string_view b) {
  const size_t longest = std::max(Length(a), Length(b));
  if (longest == 0) return 1.0;
  return 1.0 - static_cast<double>(EditDistance(a, b)) / static_cast<double>(longest);
}

int AllowedTypos(size_t length) { return length <= 4 ? 0 : length <= 8 ? 1 : 2; }

double MatchScore(std::string_view query, std::string_view label) {
  const std::string q = FoldPrefix(query, kMaxMatchedCodePoints);
  const std::string l = FoldPrefix(label, kMaxMatchedCodePoints);
  if (q.empty() || l.empty()) return 0;
  if (q == l) return 1.0;
  if (WithoutSpaces(q) == WithoutSpaces(l)) return 0.95;
  const std::vector<std::string_view> qw = FoldedWords(q);
  const std::vector<std::string_view> lw = FoldedWords(l);
  // Each query word takes the best still-free label word, so "ok ok" does not
  // match "OK" twice.
  std::vector<bool> taken(lw.size(), false);
  double sum = 0;
  bool all = true;
  for (std::string_view word : qw) {
    double best = 0;
    size_t best_at = 0;
    for (size_t k = 0; k < lw.size(); ++k) {
      if (taken[k]) continue;
      const double s = WordScore(word, lw[k]);
      if (s > best) {
        best = s;
        best_at = k;
      }
    }
    if (best == 0) {
      all = false;
      break;
    }
    taken[best_at] = true;
    sum += best;
  }
  if (all) {
    const double words = sum / static_cast<double>(qw.size());
    const double coverage = static_cast<double>(qw.size()) / static_cast<double>(lw.size());
    return 0.5 + 0.45 * words * (0.5 + 0.5 * std::min(1.0, coverage));
  }
  if (l.find(q) != std::string::npos) return 0.5;
  return 0;
}

double SuggestionScore(std::string_view query, std::string_view label) {
  const std::string q = FoldPrefix(query, kMaxMatchedCodePoints);
  const std::string l = FoldPrefix(label, kMaxMatchedCodePoints);
  if (q.empty() || l.empty()) return 0;
  // Similarity is at most 1 - (difference in length) / (longer length): a
  // word that cannot beat the best so far is not compared (the answer is
  // the same, and a long query against many short words costs little).
  const size_t q_length = Length(q);
  auto at_most = [q_length](size_t length) {
    const size_t longest = std::max(q_length, length);
    const size_t apart = longest - std::min(q_length, length);
    return longest == 0 ? 1.0 : 1.0 - static_cast<double>(apart) / static_cast<double>(longest);
  };
  double best = Similarity(q, l);
  for (std::string_view word : FoldedWords(l)) {
    if (0.9 * at_most(Length(word)) <= best) continue;
    best = std::max(best, 0.9 * Similarity(q, word));
  }
  return best;
}

}  // namespace uiscope
