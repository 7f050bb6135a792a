#include "core/keys.h"

#include <gtest/gtest.h>

namespace uiscope {
namespace {

TEST(KeysTest, ParsesChordsWithModifiersFirst) {
  auto chord = ParseKeyChord("ctrl+shift+s");
  ASSERT_TRUE(chord.ok()) << chord.error().message;
  EXPECT_EQ(chord->modifiers, (std::vector<Keysym>{keysym::kControlL, keysym::kShiftL}));
  EXPECT_EQ(chord->key, Keysym{'s'});
  EXPECT_EQ(chord->text, "ctrl+shift+s");
}

TEST(KeysTest, ChordsThatTypeCharactersAreTellable) {
  for (const char* typing : {"g", "shift+p", "ü", "space", "7", "U+20AC", "altgr+e"}) {
    auto c = ParseKeyChord(typing);
    ASSERT_TRUE(c.ok()) << typing;
    EXPECT_TRUE(TypesACharacter(*c)) << typing;
  }
  for (const char* shortcut : {"ctrl+s", "Return", "alt+F4", "Tab", "super", "ctrl+shift+a",
                               "BackSpace", "Escape"}) {
    auto c = ParseKeyChord(shortcut);
    ASSERT_TRUE(c.ok()) << shortcut;
    EXPECT_FALSE(TypesACharacter(*c)) << shortcut;
  }
}

TEST(KeysTest, NamesAreCaseInsensitiveAndAliased) {
  EXPECT_EQ(*ParseKeyChord("Return")->key, keysym::kReturn);
  EXPECT_EQ(*ParseKeyChord("enter")->key, keysym::kReturn);
  EXPECT_EQ(*ParseKeyChord("ESC")->key, keysym::kEscape);
  EXPECT_EQ(*ParseKeyChord("Page_Up")->key, 0xff55u);
  EXPECT_EQ(*ParseKeyChord("pgdn")->key, 0xff56u);
  EXPECT_EQ(*ParseKeyChord("F5")->key, 0xffc2u);
  EXPECT_EQ(*ParseKeyChord("f12")->key, 0xffc9u);
  EXPECT_EQ(ParseKeyChord("Control+alt+Delete")->modifiers,
            (std::vector<Keysym>{keysym::kControlL, keysym::kAltL}));
  EXPECT_EQ(*ParseKeyChord("ctrl+alt+Delete")->key, keysym::kDelete);
}

TEST(KeysTest, AModifierAloneIsAChordWithoutKey) {
  auto super = ParseKeyChord("super");
  ASSERT_TRUE(super.ok());
  EXPECT_EQ(super->modifiers, std::vector<Keysym>{keysym::kSuperL});
  EXPECT_FALSE(super->key.has_value());
  EXPECT_EQ(ParseKeyChord("win")->modifiers, std::vector<Keysym>{keysym::kSuperL});
}

TEST(KeysTest, SingleCharactersKeepTheirCase) {
  EXPECT_EQ(*ParseKeyChord("a")->key, Keysym{'a'});
  EXPECT_EQ(*ParseKeyChord("A")->key, Keysym{'A'});
  EXPECT_EQ(*ParseKeyChord("ctrl+ü")->key, Keysym{0xfc});
  EXPECT_EQ(*ParseKeyChord("東")->key, 0x01000000u + 0x6771u);
}

TEST(KeysTest, PlusIsWrittenAsPlusOrLast) {
  EXPECT_EQ(*ParseKeyChord("ctrl+plus")->key, Keysym{'+'});
  auto last = ParseKeyChord("ctrl++");
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(*last->key, Keysym{'+'});
  EXPECT_EQ(last->modifiers, std::vector<Keysym>{keysym::kControlL});
  EXPECT_EQ(*ParseKeyChord("+")->key, Keysym{'+'});
}

TEST(KeysTest, RawKeysymsAndCodePoints) {
  EXPECT_EQ(*ParseKeyChord("0x1008ff12")->key, 0x1008ff12u);
  EXPECT_EQ(*ParseKeyChord("U+00FC")->key, 0xfcu);
  EXPECT_EQ(*ParseKeyChord("u+6771")->key, 0x01006771u);
  EXPECT_EQ(*ParseKeyChord("XF86AudioMute")->key, 0x1008ff12u);
}

TEST(KeysTest, BadChordsSayWhatIsWrong) {
  for (const char* bad : {"", "ctrl+", "ctrl++s", "+ctrl", "ctrl+nosuchkey", "F36", "0xzz", "U+"}) {
    auto chord = ParseKeyChord(bad);
    ASSERT_FALSE(chord.ok()) << bad;
    EXPECT_EQ(chord.error().code, ErrorCode::kInvalidArgument) << bad;
    EXPECT_NE(chord.error().message.find("ctrl+shift+s"), std::string::npos)
        << "the message shows the syntax: " << chord.error().message;
  }
  ASSERT_FALSE(ParseKeyChord("a+b").ok());
  EXPECT_NE(ParseKeyChord("a+b").error().message.find("separate"), std::string::npos);
}

TEST(KeysTest, ModifiersAreNotRepeated) {
  EXPECT_EQ(ParseKeyChord("ctrl+control+a")->modifiers, std::vector<Keysym>{keysym::kControlL});
}

TEST(KeysTest, CodePointsMapToKeysyms) {
  EXPECT_EQ(KeysymForCodePoint(U'a'), Keysym{'a'});
  EXPECT_EQ(KeysymForCodePoint(U' '), Keysym{0x20});
  EXPECT_EQ(KeysymForCodePoint(U'ü'), Keysym{0xfc});  // Latin-1: itself
  EXPECT_EQ(KeysymForCodePoint(U'ß'), Keysym{0xdf});
  EXPECT_EQ(KeysymForCodePoint(U'€'), Keysym{0x010020ac});
  EXPECT_EQ(KeysymForCodePoint(U'東'), Keysym{0x01006771});
  EXPECT_EQ(KeysymForCodePoint(U'😀'), Keysym{0x0101f600});
  EXPECT_EQ(KeysymForCodePoint(U'\n'), keysym::kReturn);
  EXPECT_EQ(KeysymForCodePoint(U'\t'), keysym::kTab);
  EXPECT_EQ(KeysymForCodePoint(U'\b'), keysym::kBackSpace);
  EXPECT_FALSE(KeysymForCodePoint(0x07).has_value());    // BEL
  EXPECT_FALSE(KeysymForCodePoint(0x7f).has_value());    // DEL
  EXPECT_FALSE(KeysymForCodePoint(0x85).has_value());    // C1 control
  EXPECT_FALSE(KeysymForCodePoint(0xd800).has_value());  // surrogate
  EXPECT_FALSE(KeysymForCodePoint(0x110000).has_value());
}

TEST(KeysTest, DecodesUtf8AndRejectsMalformedInput) {
  auto text = DecodeUtf8("Grüße, 東京 😀");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, U"Grüße, 東京 😀");
  for (std::string bad :
       {std::string("\xc3"), std::string("\xc0\xaf"), std::string("\xed\xa0\x80"),
        std::string("a\xffz"), std::string("\xf4\x90\x80\x80"), std::string("\xe6\x9d")}) {
    auto decoded = DecodeUtf8(bad);
    ASSERT_FALSE(decoded.ok());
    EXPECT_NE(decoded.error().message.find("byte"), std::string::npos);
  }
}

TEST(KeysTest, TextBecomesKeysymsInOrder) {
  auto syms = KeysymsForText("aÖ\n東");
  ASSERT_TRUE(syms.ok());
  EXPECT_EQ(*syms, (std::vector<Keysym>{'a', 0xd6, keysym::kReturn, 0x01006771}));
  auto bad = KeysymsForText("a\x01");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("U+0001"), std::string::npos);
}

TEST(KeysTest, KeysymNamesAreReadable) {
  EXPECT_EQ(KeysymName(keysym::kControlL), "ctrl");
  EXPECT_EQ(KeysymName(keysym::kReturn), "Return");
  EXPECT_EQ(KeysymName(0xffc2), "F5");
  EXPECT_EQ(KeysymName('a'), "a");
  EXPECT_EQ(KeysymName(0xfc), "ü");
  EXPECT_EQ(KeysymName(0x01006771), "U+6771");
  EXPECT_EQ(KeysymName(0x1008ff12), "0x1008ff12");
  EXPECT_TRUE(IsModifierKeysym(keysym::kShiftL));
  EXPECT_TRUE(IsModifierKeysym(keysym::kIsoLevel3Shift));
  EXPECT_FALSE(IsModifierKeysym('a'));
}

}  // namespace
}  // namespace uiscope
