// The one printer for text an application controls: names, titles, values,
// descriptions, argv, app names. Every such string that leaves uiscope for a
// person's terminal or an agent's text goes through these functions.
//
// An application is not trusted to name its widgets honestly. A button named
// "Refresh\r\x1b[2K..." can rewrite another line of a terminal, set its title
// or its clipboard (OSC 52); a name with a newline can append a forged
// "effect: observed" line to what an agent reads; "Save \u202Egnp.exe" reads
// "Save exe.png". So what a terminal or a reader would act on is written out
// as a visible escape instead:
//   - C0 controls and DEL: "\n", "\r", "\t", else "\u001b";
//   - C1 controls (U+0080..U+009F, which some terminals take as CSI, OSC):
//     "\u009b";
//   - bidi embeddings, overrides, isolates and marks (U+061C, U+200E, U+200F,
//     U+202A..U+202E, U+2066..U+2069): "\u202e";
//   - invisible characters (soft hyphen, zero-width space / joiners, word
//     joiner, invisible operators, BOM, Mongolian vowel separator, the
//     Unicode tag block that can smuggle text past a reader) and the line /
//     paragraph separators U+2028, U+2029: "\u200b", "\U000e0041".
// Malformed UTF-8 becomes U+FFFD, so the output is always valid UTF-8.
//
// EscapeForDisplay leaves '\\' and '"' alone: its output is idempotent
// (escaping it again changes nothing), so a message built from escaped parts
// may pass through another printer without growing backslashes. Where a
// field is quoted, QuoteForDisplay also escapes '"' and '\\' so the field
// cannot end early: this is the compact tree's `[button "Play" ...]`.
//
// Pure functions, safe from any thread.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>

namespace uiscope {

// No cut: the whole string is kept.
inline constexpr size_t kNoDisplayLimit = std::numeric_limits<size_t>::max();

// `s` with malformed UTF-8 replaced by U+FFFD and cut to `max_chars` code
// points (the last one then "…"). No escaping: for strings that go into JSON
// objects, where the serialiser escapes and programs want the real text.
std::string SanitiseUtf8(std::string_view s, size_t max_chars = kNoDisplayLimit);

// `s` made valid UTF-8, cut to `max_chars` code points as SanitiseUtf8 cuts,
// then every control, bidi and invisible character escaped as above. The cut
// counts the original characters, so an escape never hides the "…".
std::string EscapeForDisplay(std::string_view s, size_t max_chars = kNoDisplayLimit);

// `"` + EscapeForDisplay(s, max_chars) with '"' and '\\' escaped too + `"`.
std::string QuoteForDisplay(std::string_view s, size_t max_chars = kNoDisplayLimit);

// Appends QuoteForDisplay(s, max_chars) to `out` without a temporary.
void AppendQuotedForDisplay(std::string& out, std::string_view s,
                            size_t max_chars = kNoDisplayLimit);

// Text of several lines (a message that quotes a log): each line
// EscapeForDisplay'd, and every line after the first starts with `indent`,
// so with a non-empty indent no line of it can pass for a line of its own.
std::string EscapeLinesForDisplay(std::string_view s, std::string_view indent);

// Whether EscapeForDisplay writes code point `cp` as an escape (newline, tab
// and carriage return included). For tests and fuzzers that check its output.
bool EscapedForDisplay(char32_t cp);

// Where `text` holds what EscapeForDisplay never leaves: a malformed UTF-8
// byte or a character it escapes ('\n' allowed when `allow_newline`, for
// text of several printed lines). npos when there is none. For tests and
// fuzzers that check a printer's output.
size_t FindUnescaped(std::string_view text, bool allow_newline);

// Length of the well-formed UTF-8 sequence starting at s[i] (RFC 3629: no
// overlongs, no surrogates, nothing above U+10FFFF), or 0 if it is malformed.
size_t Utf8SequenceLength(std::string_view s, size_t i);

}  // namespace uiscope
