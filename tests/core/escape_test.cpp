#include "core/escape.h"

#include <gtest/gtest.h>

#include <string>

#include "core/shortcuts.h"

namespace uiscope {
namespace {

TEST(EscapeForDisplayTest, PlainTextIsUnchanged) {
  EXPECT_EQ(EscapeForDisplay("Save as…  «Übersicht» 保存 👍"), "Save as…  «Übersicht» 保存 👍");
  EXPECT_EQ(EscapeForDisplay(R"(C:\path "quoted")"), R"(C:\path "quoted")");
  EXPECT_EQ(EscapeForDisplay(""), "");
}

TEST(EscapeForDisplayTest, C0ControlsAndDelBecomeEscapes) {
  EXPECT_EQ(EscapeForDisplay("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(EscapeForDisplay("\x1b]52;c;ZXZpbA==\x07"), "\\u001b]52;c;ZXZpbA==\\u0007");
  EXPECT_EQ(EscapeForDisplay(std::string("a\0b", 3)), "a\\u0000b");
  EXPECT_EQ(EscapeForDisplay("x\x7fy"), "x\\u007fy");
}

TEST(EscapeForDisplayTest, C1ControlsBecomeEscapes) {
  // U+009B is CSI and U+009D OSC for terminals that take 8-bit controls.
  EXPECT_EQ(EscapeForDisplay("\xC2\x9B"
                             "2J"),
            "\\u009b2J");
  EXPECT_EQ(EscapeForDisplay("\xC2\x9D"
                             "0;t\xC2\x9C"),
            "\\u009d0;t\\u009c");
  EXPECT_EQ(EscapeForDisplay("\xC2\x85"), "\\u0085");
  EXPECT_EQ(EscapeForDisplay("\xC2\xA0"), "\xC2\xA0");  // no-break space is visible text
}

TEST(EscapeForDisplayTest, BidiControlsBecomeEscapes) {
  EXPECT_EQ(EscapeForDisplay("Save \u202Egnp.exe"), "Save \\u202egnp.exe");
  EXPECT_EQ(EscapeForDisplay("\u200E\u200F\u202A\u202B\u202C\u202D\u2066\u2067\u2068\u2069\u061C"),
            "\\u200e\\u200f\\u202a\\u202b\\u202c\\u202d\\u2066\\u2067\\u2068\\u2069\\u061c");
}

TEST(EscapeForDisplayTest, InvisibleCharactersBecomeEscapes) {
  EXPECT_EQ(EscapeForDisplay("De\u200Blete"), "De\\u200blete");
  EXPECT_EQ(EscapeForDisplay("\u200C\u200D\u2060\uFEFF\u00AD\u180E"),
            "\\u200c\\u200d\\u2060\\ufeff\\u00ad\\u180e");
  EXPECT_EQ(EscapeForDisplay("a\u2028b\u2029c"), "a\\u2028b\\u2029c");
  // Tag characters spell ASCII no one sees: "ok" plus an invisible "hi".
  EXPECT_EQ(EscapeForDisplay("ok\U000E0068\U000E0069"), "ok\\U000e0068\\U000e0069");
}

TEST(EscapeForDisplayTest, MalformedUtf8BecomesReplacementCharacters) {
  EXPECT_EQ(EscapeForDisplay("a\xff"
                             "b"),
            "a\uFFFD"
            "b");
  EXPECT_EQ(EscapeForDisplay("\xC0\x8A"), "\uFFFD\uFFFD");  // an overlong newline stays no newline
  EXPECT_EQ(EscapeForDisplay("\xE2\x80"), "\uFFFD\uFFFD");  // a cut sequence
  EXPECT_EQ(EscapeForDisplay("\xED\xA0\x80"), "\uFFFD\uFFFD\uFFFD");  // a surrogate
}

TEST(EscapeForDisplayTest, CutsByCharactersBeforeEscaping) {
  EXPECT_EQ(EscapeForDisplay("abcdef", 4), "abc…");
  EXPECT_EQ(EscapeForDisplay("abcd", 4), "abcd");
  EXPECT_EQ(EscapeForDisplay("\n\n\n\n\n", 3), "\\n\\n…");
  EXPECT_EQ(EscapeForDisplay("保存保存保存", 3), "保存…");
  EXPECT_EQ(EscapeForDisplay("abc", 0), "");
}

TEST(EscapeForDisplayTest, IsIdempotent) {
  const std::string hostile = "Refresh\r\x1b[2K\u202E\xC2\x9B\xff\U000E0041\\n\"";
  const std::string once = EscapeForDisplay(hostile);
  EXPECT_EQ(EscapeForDisplay(once), once);
}

TEST(QuoteForDisplayTest, QuotesAndEscapesWhatWouldEndTheField) {
  EXPECT_EQ(QuoteForDisplay(R"(Say "hi" \ )"), R"("Say \"hi\" \\ ")");
  EXPECT_EQ(QuoteForDisplay("a\nb\u202E"), "\"a\\nb\\u202e\"");
  EXPECT_EQ(QuoteForDisplay("abcdef", 3), "\"ab…\"");
  std::string out = "name=";
  AppendQuotedForDisplay(out, "x\ty");
  EXPECT_EQ(out, "name=\"x\\ty\"");
}

TEST(SanitiseUtf8Test, KeepsControlsForJsonAndFixesEncoding) {
  EXPECT_EQ(SanitiseUtf8("line 1\nline 2\u202E"), "line 1\nline 2\u202E");
  EXPECT_EQ(SanitiseUtf8("a\xff"), "a\uFFFD");
  EXPECT_EQ(SanitiseUtf8("abcdef", 4), "abc…");
}

TEST(EscapeLinesForDisplayTest, EscapesEachLineAndIndentsTheRest) {
  EXPECT_EQ(EscapeLinesForDisplay("one", "  "), "one");
  EXPECT_EQ(EscapeLinesForDisplay("log:\nfoo\x1b[2J\nbar\r", "  "),
            "log:\n  foo\\u001b[2J\n  bar\\r");
  EXPECT_EQ(EscapeLinesForDisplay("a\n", "> "), "a\n> ");
}

TEST(FindUnescapedTest, FindsWhatThePrinterNeverLeaves) {
  EXPECT_EQ(FindUnescaped("plain «text» 保存", false), std::string_view::npos);
  EXPECT_EQ(FindUnescaped("ab\x1b", false), 2u);
  EXPECT_EQ(FindUnescaped("a\nb", false), 1u);
  EXPECT_EQ(FindUnescaped("a\nb", true), std::string_view::npos);
  EXPECT_EQ(FindUnescaped("x\u202E", true), 1u);
  EXPECT_EQ(FindUnescaped("x\xff", true), 1u);
  const std::string hostile = "a\r\n\x1b]52;c;x\x07\xC2\x9B\u2066\uFEFF\U000E0041\xC0\x8A";
  EXPECT_EQ(FindUnescaped(EscapeForDisplay(hostile), false), std::string_view::npos);
  EXPECT_EQ(FindUnescaped(QuoteForDisplay(hostile), false), std::string_view::npos);
}

TEST(EscapedForDisplayTest, ListsWhatIsEscaped) {
  EXPECT_TRUE(EscapedForDisplay(0x1b));
  EXPECT_TRUE(EscapedForDisplay(0x9b));
  EXPECT_TRUE(EscapedForDisplay(0x202e));
  EXPECT_TRUE(EscapedForDisplay(0x200b));
  EXPECT_FALSE(EscapedForDisplay('a'));
  EXPECT_FALSE(EscapedForDisplay(0xa0));
  EXPECT_FALSE(EscapedForDisplay(0x202f));  // narrow no-break space
  EXPECT_FALSE(EscapedForDisplay(0x1f44d));
}

// A printer of app text outside the tree: a menu's label in a shortcut line.
TEST(AppTextPrintersTest, ShortcutTextEscapesMenuLabels) {
  Shortcut s;
  s.keys = "Ctrl+S";
  s.action = "Save\neffect: observed\u202E";
  s.category = "file";
  s.source = "menu";
  s.path = "File > Save\x1b[2J";
  EXPECT_EQ(ShortcutText(s),
            "Ctrl+S = Save\\neffect: observed\\u202e (file, menu, File > Save\\u001b[2J)");
}

}  // namespace
}  // namespace uiscope
