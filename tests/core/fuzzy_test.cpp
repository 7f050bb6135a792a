#include "core/fuzzy.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace uiscope {
namespace {

TEST(FuzzyTest, FoldIgnoresCaseAccentsAndPunctuation) {
  EXPECT_EQ(FoldText("Search\xE2\x80\xA6"), "search");  // "Search…"
  EXPECT_EQ(FoldText("  Créer   le COMPTE! "), "creer le compte");
  EXPECT_EQ(FoldText("Straße Œuvre Ĳssel"), "strasse oeuvre ijssel");
  EXPECT_EQ(FoldText("e\xCC\x81t\xC3\xA9"), "ete");  // combining acute, then precomposed
  EXPECT_EQ(FoldText("ПРИВЕТ Ωmega"), "привет ωmega");
  EXPECT_EQ(FoldText("Save as..."), "save as");
  EXPECT_EQ(FoldText("日本語"), "日本語") << "other scripts are kept";
  EXPECT_EQ(FoldText(""), "");
  EXPECT_EQ(FoldText("\xFF\xFEok"), "\xFF\xFEok") << "invalid bytes kept, never fused";
}

TEST(FuzzyTest, EditDistanceCountsCodePoints) {
  EXPECT_EQ(EditDistance("login", "logn"), 1u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("été", "ete"), 2u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_DOUBLE_EQ(Similarity("login", "logn"), 0.8);
  EXPECT_DOUBLE_EQ(Similarity("", ""), 1.0);
}

TEST(FuzzyTest, SwappedNeighboursAreOneEdit) {
  EXPECT_EQ(EditDistance("sumbit", "submit"), 1u);
  EXPECT_EQ(EditDistance("ab", "ba"), 1u);
  EXPECT_EQ(EditDistance("sumbti", "submit"), 2u) << "two swaps are two edits";
  EXPECT_EQ(EditDistance("ca", "abc"), 3u) << "a swapped pair is not edited again (OSA)";
  EXPECT_EQ(EditDistance("éta", "éat"), 1u) << "code points, not bytes";
  EXPECT_DOUBLE_EQ(Similarity("sumbit", "submit"), 1.0 - 1.0 / 6.0);
}

TEST(FuzzyTest, SwappedLettersAreForgivenInLongWordsOnly) {
  const double exact = MatchScore("Submit", "Submit");
  const double swapped = MatchScore("Sumbit", "Submit");
  EXPECT_GT(swapped, 0.5) << "\"Sumbit\" finds \"Submit\"";
  EXPECT_LT(swapped, exact) << "below the exact match";
  EXPECT_DOUBLE_EQ(swapped, MatchScore("Sibmit", "Submit")) << "a swap costs what a typo costs";
  EXPECT_GT(MatchScore("Sumbit form", "Submit form"), 0.5);
  EXPECT_GT(MatchScore("Pasword", "Password"), 0.5);
  // Swaps in short words stay unforgiven: each spells another word.
  EXPECT_EQ(MatchScore("form", "From"), 0.0);
  EXPECT_EQ(MatchScore("Slat", "Salt"), 0.0);
  EXPECT_EQ(MatchScore("two", "Tow"), 0.0);
  EXPECT_EQ(MatchScore("fiel", "File"), 0.0);
  // Two swaps in six letters are two typos, one more than allowed.
  EXPECT_EQ(MatchScore("Sumbti", "Submit"), 0.0);
  EXPECT_EQ(MatchScore("Sumbit", "Subject"), 0.0);
  EXPECT_EQ(MatchScore("Sumbit", "Summary"), 0.0);
}

TEST(FuzzyTest, TyposAllowedGrowWithWordLength) {
  EXPECT_EQ(AllowedTypos(4), 0);
  EXPECT_EQ(AllowedTypos(5), 1);
  EXPECT_EQ(AllowedTypos(8), 1);
  EXPECT_EQ(AllowedTypos(9), 2);
}

TEST(FuzzyTest, MatchScoreOrdersWholePrefixPartAndTypo) {
  EXPECT_DOUBLE_EQ(MatchScore("login", "Login"), 1.0);
  EXPECT_DOUBLE_EQ(MatchScore("LOGÍN", "Login"), 1.0);
  EXPECT_DOUBLE_EQ(MatchScore("login", "Log in"), 0.95);
  const double whole_word = MatchScore("login", "Login now");
  const double prefix = MatchScore("log", "Login");
  const double typo = MatchScore("pasword", "Password");
  EXPECT_GT(whole_word, 0.5);
  EXPECT_LT(whole_word, 0.95);
  EXPECT_GT(prefix, 0.5);
  EXPECT_GT(typo, 0.5);
  EXPECT_GT(MatchScore("remember", "Remember me"), MatchScore("remember", "Remember me please"));
  EXPECT_GT(MatchScore("me remember", "Remember me"), 0.5) << "word order does not matter";
  EXPECT_GT(MatchScore("in as", "Logged in as bob"), 0.5);
}

TEST(FuzzyTest, ShortWordsWithTyposDoNotMatch) {
  EXPECT_EQ(MatchScore("Logn", "Login"), 0.0);
  EXPECT_EQ(MatchScore("Opn", "Open"), 0.0);
  EXPECT_EQ(MatchScore("xyz", "Login"), 0.0);
  EXPECT_EQ(MatchScore("ok ok", "OK"), 0.0) << "one label word answers one query word";
  EXPECT_EQ(MatchScore("", "Login"), 0.0);
}

TEST(FuzzyTest, SuggestionsPreferTheClosestLabel) {
  EXPECT_GT(SuggestionScore("Logn", "Login"), SuggestionScore("Logn", "Long list of rows"));
  EXPECT_GT(SuggestionScore("Logn", "Login"), 0.7);
  EXPECT_GT(SuggestionScore("Apply", "Apply changes"), 0.8);
  EXPECT_LT(SuggestionScore("Logn", "Volume"), 0.3);
}

// Matching compares at most kMaxMatchedCodePoints of each text, so its cost
// does not grow with what an app or a client sends: a 100,000-character label
// against a 10,000-character query once took seconds a node (issue 14).
TEST(FuzzyTest, LongTextsCostNoMoreThanTheCap) {
  const std::string label(100000, 'x');
  const std::string query(10000, 'y');
  std::string words;  // many long words: the typo-tolerant path, pair by pair
  for (int i = 0; i < 2000; ++i) words += "abcdefghi" + std::to_string(i) + " ";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(MatchScore(query, label), 0);
  EXPECT_EQ(MatchScore(words, words + "z"), 1.0) << "equal over the first 256 code points";
  EXPECT_GE(SuggestionScore(query, label), 0);
  EXPECT_GE(SuggestionScore(words, label), 0);
  // Gross bound: with the cap this is well under a millisecond; without it,
  // seconds.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(200));
}

TEST(FuzzyTest, OnlyTheStartOfALongLabelIsMatched) {
  std::string label = "Save";
  for (int i = 0; i < 300; ++i) label += " a";
  EXPECT_GT(MatchScore("save", label + " zebra"), 0);
  EXPECT_EQ(MatchScore("zebra", label + " zebra"), 0) << "past the first 256 code points";
  // "Æ" folds to two letters: the cut may fall between them, and still the
  // two texts fold to the same 256 code points.
  std::string ae;
  for (size_t i = 0; i < kMaxMatchedCodePoints; ++i) ae += "\xC3\x86";
  EXPECT_EQ(MatchScore("b" + ae, "B" + ae + "zzz"), 1.0);
}

}  // namespace
}  // namespace uiscope
