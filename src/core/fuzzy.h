// Fuzzy text matching for `find` (seed 000) and for comparing labels read
// from pixels with accessible names: case- and accent-insensitive, by words,
// tolerant of typos in long words.
//
// Folding: UTF-8 text is lower-cased (ASCII, Latin-1, Latin Extended-A,
// Greek, Cyrillic), Latin letters lose their accents ("É" -> "e", "ß" ->
// "ss", "Œ" -> "oe"; combining marks are dropped), and every run of
// characters that are neither letters nor digits becomes one space. So
// "Search…", "SEARCH" and " search " fold alike.
//
// All functions are pure and thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace uiscope {

// `text` folded as described above, without leading or trailing spaces.
std::string FoldText(std::string_view text);

// The words of folded text (split on spaces).
std::vector<std::string_view> FoldedWords(std::string_view folded);

// Edit distance in Unicode code points (invalid UTF-8 bytes count as one
// code point each): insertions, deletions, substitutions and transpositions
// of two neighbours ("Sumbit" / "Submit") cost one each, the optimal string
// alignment distance. Swapped neighbours are the commonest typo of a fast
// typist; Levenshtein counts them as two edits, more than a word of up to
// eight letters is allowed, so "Sumbit" found nothing.
size_t EditDistance(std::string_view a, std::string_view b);

// 1 - EditDistance / the longer length in code points: 1 for equal texts, 0
// for texts with nothing in common. 1 for two empty texts.
double Similarity(std::string_view a, std::string_view b);

// How many typos (edits) a query word of `length` code points may contain
// and still match: 0 up to 4, 1 up to 8, then 2. Short words get none on
// purpose: "Logn" could be "Login" or "Long", and a find whose answer feeds
// a click should ask back (a suggestion) rather than guess.
int AllowedTypos(size_t length);

// MatchScore and SuggestionScore compare at most this many code points of
// the folded query and of the folded label; what follows is ignored. Edit
// distances cost query length x label length, and both come from outside
// (a client's query, an app's label): a 100,000-character label once made one
// `find` burn a minute of CPU. 256 is far above any name worth finding; two
// texts that fold alike in their first 256 code points match as equal.
inline constexpr size_t kMaxMatchedCodePoints = 256;

// How well `query` matches `label`, in [0, 1]; 0 means no match.
//   1      the same folded text;
//   0.95   the same once spaces are ignored ("log in" / "Login");
//   0.5-0.95  every query word matches a different word of the label — the
//          same word, a prefix of it, a part of it, or (for long words) the
//          word with typos — scored by how good the word matches are and by
//          how much of the label the query covers;
//   0.5    the folded query is a substring of the folded label.
double MatchScore(std::string_view query, std::string_view label);

// How alike `query` and `label` look, in [0, 1], for "Similar:"
// suggestions when nothing matches: the similarity of the folded texts, or
// (a little less) of the query with the label's most similar word.
double SuggestionScore(std::string_view query, std::string_view label);

}  // namespace uiscope
