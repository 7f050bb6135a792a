// The pure half of the VNC backend: addresses and what input sends.
#include "platform/vnc/vnc_address.h"

#include <gtest/gtest.h>

#include "platform/vnc/vnc_events.h"

namespace uiscope {
namespace {

VncAddress Parsed(std::string_view text) {
  auto a = ParseVncAddress(text);
  EXPECT_TRUE(a.ok()) << text << ": " << (a.ok() ? "" : a.error().message);
  return a.ok() ? *a : VncAddress{};
}

TEST(VncAddress, UrlPortIsATcpPort) {
  EXPECT_EQ(Parsed("vnc://host"), (VncAddress{"host", 5900}));
  EXPECT_EQ(Parsed("vnc://127.0.0.1:5901"), (VncAddress{"127.0.0.1", 5901}));
  EXPECT_EQ(Parsed("vnc://127.0.0.1:1"), (VncAddress{"127.0.0.1", 1}));  // not display 1
  EXPECT_EQ(Parsed("vnc://vm.example.org:15900/"), (VncAddress{"vm.example.org", 15900}));
}

TEST(VncAddress, BareHostColonNIsADisplayBelow100) {
  EXPECT_EQ(Parsed("localhost"), (VncAddress{"localhost", 5900}));
  EXPECT_EQ(Parsed("localhost:0"), (VncAddress{"localhost", 5900}));
  EXPECT_EQ(Parsed("localhost:7"), (VncAddress{"localhost", 5907}));
  EXPECT_EQ(Parsed("localhost:99"), (VncAddress{"localhost", 5999}));
  EXPECT_EQ(Parsed("localhost:5901"), (VncAddress{"localhost", 5901}));
  EXPECT_EQ(Parsed("localhost::5"), (VncAddress{"localhost", 5}));
}

TEST(VncAddress, Ipv6InBrackets) {
  EXPECT_EQ(Parsed("vnc://[::1]:5902"), (VncAddress{"::1", 5902}));
  EXPECT_EQ(Parsed("[::1]:2"), (VncAddress{"::1", 5902}));
  EXPECT_EQ(Parsed("[fe80::1%lo]"), (VncAddress{"fe80::1%lo", 5900}));
  EXPECT_EQ((VncAddress{"::1", 5902}).Url(), "vnc://[::1]:5902");
  EXPECT_EQ((VncAddress{"h", 5900}).Url(), "vnc://h:5900");
}

TEST(VncAddress, BadFormsAreClearErrors) {
  for (std::string_view bad :
       {"", "vnc://", "vnc://:5901", ":1", "http://host:5900", "vnc://host:0", "vnc://host:65536",
        "host:abc", "host:-1", "vnc://host:5900/path", "[::1", "vnc://host::5900", "ho st:1"}) {
    auto a = ParseVncAddress(bad);
    ASSERT_FALSE(a.ok()) << bad;
    EXPECT_EQ(a.error().code, ErrorCode::kInvalidArgument) << bad;
    EXPECT_NE(a.error().message.find("vnc://HOST[:PORT]"), std::string::npos) << a.error().message;
  }
}

TEST(VncAddress, CredentialsAreRefusedWithoutBeingRepeated) {
  for (std::string_view bad : {"vnc://user:s3cret@host:5900", "vnc://host:5900?password=s3cret",
                               "s3cret@host", "vnc://host#s3cret"}) {
    auto a = ParseVncAddress(bad);
    ASSERT_FALSE(a.ok()) << bad;
    EXPECT_EQ(a.error().message.find("s3cret"), std::string::npos) << a.error().message;
    EXPECT_NE(a.error().message.find("password file"), std::string::npos) << a.error().message;
  }
}

TEST(VncEvents, ChordPressesModifiersInOrderAndReleasesInReverse) {
  auto chord = ParseKeyChord("ctrl+shift+s");
  ASSERT_TRUE(chord.ok());
  const std::vector<VncKeyEvent> expected = {
      {keysym::kControlL, true}, {keysym::kShiftL, true},   {'s', true}, {'s', false},
      {keysym::kShiftL, false},  {keysym::kControlL, false}};
  EXPECT_EQ(VncChordEvents(*chord), expected);
  auto super = ParseKeyChord("super");
  ASSERT_TRUE(super.ok());
  EXPECT_EQ(VncChordEvents(*super),
            (std::vector<VncKeyEvent>{{keysym::kSuperL, true}, {keysym::kSuperL, false}}));
}

TEST(VncEvents, TextIsLatin1KeysymsOrUnicodeKeysyms) {
  auto events = VncTextEvents("aGü東\n");
  ASSERT_TRUE(events.ok());
  const std::vector<VncKeyEvent> expected = {{'a', true},
                                             {'a', false},
                                             {'G', true},
                                             {'G', false},  // server adds Shift
                                             {0xfc, true},
                                             {0xfc, false},  // Latin-1: itself
                                             {0x01006771, true},
                                             {0x01006771, false},  // 0x01000000 + U+6771
                                             {keysym::kReturn, true},
                                             {keysym::kReturn, false}};
  EXPECT_EQ(*events, expected);
  EXPECT_FALSE(VncTextEvents("\x01").ok());
  EXPECT_FALSE(VncTextEvents("\xff").ok());
}

TEST(VncEvents, ButtonAndWheelBits) {
  EXPECT_EQ(VncButtonBit(MouseButton::kLeft), 1);
  EXPECT_EQ(VncButtonBit(MouseButton::kMiddle), 2);
  EXPECT_EQ(VncButtonBit(MouseButton::kRight), 4);
  EXPECT_EQ(VncWheelBit(0, -1), 8);   // X button 4
  EXPECT_EQ(VncWheelBit(0, 3), 16);   // 5
  EXPECT_EQ(VncWheelBit(-2, 0), 32);  // 6
  EXPECT_EQ(VncWheelBit(1, 0), 64);   // 7
}

TEST(VncEvents, CutTextIsLatin1) {
  auto latin1 = Utf8ToLatin1("Grüße");
  ASSERT_TRUE(latin1.ok());
  EXPECT_EQ(*latin1,
            "Gr\xfc\xdf"
            "e");
  EXPECT_EQ(Latin1ToUtf8(*latin1), "Grüße");
  auto wide = Utf8ToLatin1("ab東");
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(wide.error().message.find("U+6771"), std::string::npos) << wide.error().message;
}

}  // namespace
}  // namespace uiscope
