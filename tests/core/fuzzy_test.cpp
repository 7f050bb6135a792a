#include "core/fuzzy.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace uiscope
