// What a box's pixels show (vision/painted.h): captions on a real GTK 3
// screenshot (tests/fixtures/images/ui.png) are bare text, its framed
// buttons, check box and field are controls; on synthesised screens, each
// cue a control paints (frame, fill, indicator, underline, icon) keeps a
// row of glyphs a control, on light and dark grounds alike.
#include "vision/painted.h"

#include <gtest/gtest.h>

#include "../ocr/ocr_test_support.h"
#include "image/draw.h"

namespace uiscope::vision {
namespace {

const std::string kImages = UISCOPE_TEST_IMAGES;

// Boxes around parts of ui.png, as loose as a detector's: a few pixels past
// the text or the control on each side.
TEST(PaintedTest, CaptionsOnARealWindowAreText) {
  const Image image = test::LoadPng(kImages + "/ui.png");
  ASSERT_TRUE(image.Valid());
  // Left of a field, left of a slider, and a status line under a button.
  EXPECT_EQ(WhatIsPainted(image, Rect{104, 37, 62, 33}), Painted::kText) << "Email";
  EXPECT_EQ(WhatIsPainted(image, Rect{88, 79, 76, 33}), Painted::kText) << "Password";
  EXPECT_EQ(WhatIsPainted(image, Rect{100, 228, 64, 26}), Painted::kText) << "Volume";
  EXPECT_EQ(WhatIsPainted(image, Rect{158, 189, 102, 24}), Painted::kText) << "Not logged in";
}

TEST(PaintedTest, ControlsOnARealWindowAreControls) {
  const Image image = test::LoadPng(kImages + "/ui.png");
  ASSERT_TRUE(image.Valid());
  EXPECT_EQ(WhatIsPainted(image, Rect{165, 151, 331, 34}), Painted::kControl) << "Login";
  EXPECT_EQ(WhatIsPainted(image, Rect{32, 552, 90, 36}), Painted::kControl) << "OK";
  EXPECT_EQ(WhatIsPainted(image, Rect{814, 82, 72, 36}), Painted::kControl) << "Open";
  EXPECT_EQ(WhatIsPainted(image, Rect{596, 37, 292, 34}), Painted::kControl) << "Add row";
  // The box reaches past the check box's square on the left: still its
  // indicator, beside the text.
  EXPECT_EQ(WhatIsPainted(image, Rect{150, 118, 142, 26}), Painted::kControl) << "Remember me";
  // Boxes a few pixels off a button are never bare text: its frame is seen,
  // or the ring around the box falls on the button's fill (not plain).
  EXPECT_NE(WhatIsPainted(image, Rect{270, 556, 100, 30}), Painted::kText) << "Apply, inside";
  EXPECT_NE(WhatIsPainted(image, Rect{600, 31, 292, 34}), Painted::kText) << "Add row, off";
  EXPECT_NE(WhatIsPainted(image, Rect{820, 88, 72, 36}), Painted::kText) << "Open, off";
}

constexpr Rgb kLight{246, 245, 244};
constexpr Rgb kDark{45, 45, 48};
constexpr Rgb kInk{30, 30, 30};
constexpr Rgb kPale{230, 230, 230};

Image Ground(Rgb ground) {
  Image image = MakeImage(400, 120);
  FillRect(image, Rect{0, 0, 400, 120}, ground);
  return image;
}

// "Harbour" in the built-in font at scale 2 (10x18 glyphs) at x 100, y 40:
// the text spans about 100..182 x 40..58; the detector's box is looser.
constexpr Rect kCaptionBox{92, 32, 100, 34};

TEST(PaintedTest, ARowOfGlyphsAloneIsTextOnLightAndDarkGrounds) {
  Image light = Ground(kLight);
  DrawText(light, 100, 40, "Harbour", kInk, 2);
  EXPECT_EQ(WhatIsPainted(light, kCaptionBox), Painted::kText);
  Image dark = Ground(kDark);
  DrawText(dark, 100, 40, "Harbour", kPale, 2);
  EXPECT_EQ(WhatIsPainted(dark, kCaptionBox), Painted::kText);
}

TEST(PaintedTest, EachCueAControlPaintsMakesItAControl) {
  {
    Image framed = Ground(kLight);
    DrawRectOutline(framed, Rect{90, 30, 104, 38}, Rgb{160, 160, 165}, 1);
    DrawText(framed, 100, 40, "Harbour", kInk, 2);
    EXPECT_EQ(WhatIsPainted(framed, kCaptionBox), Painted::kControl) << "a frame";
  }
  {
    Image filled = Ground(kLight);
    FillRect(filled, Rect{90, 30, 104, 38}, Rgb{180, 200, 240});
    DrawText(filled, 100, 40, "Harbour", kInk, 2);
    EXPECT_EQ(WhatIsPainted(filled, kCaptionBox), Painted::kControl) << "a fill";
  }
  {
    Image check = Ground(kLight);
    DrawRectOutline(check, Rect{70, 41, 16, 16}, Rgb{120, 120, 120}, 1);
    DrawText(check, 100, 40, "Harbour", kInk, 2);
    EXPECT_EQ(WhatIsPainted(check, kCaptionBox), Painted::kControl) << "a hollow square";
  }
  {
    Image radio = Ground(kLight);
    FillRect(radio, Rect{74, 42, 15, 15}, Rgb{50, 110, 220});
    DrawText(radio, 100, 40, "Harbour", kInk, 2);
    EXPECT_EQ(WhatIsPainted(radio, kCaptionBox), Painted::kControl) << "a solid mark";
  }
  {
    // Motif's check box: its light bevel is the ground's colour, so only
    // the dark bottom and right sides show.
    Image bevel = Ground(kLight);
    FillRect(bevel, Rect{70, 55, 14, 2}, Rgb{150, 150, 150});
    FillRect(bevel, Rect{82, 43, 2, 14}, Rgb{150, 150, 150});
    DrawText(bevel, 100, 40, "Harbour", kInk, 2);
    EXPECT_EQ(WhatIsPainted(bevel, kCaptionBox), Painted::kControl) << "an open box";
  }
  {
    Image link = Ground(kLight);
    DrawText(link, 100, 40, "Harbour", Rgb{30, 60, 200}, 2);
    FillRect(link, Rect{100, 60, 82, 2}, Rgb{30, 60, 200});
    EXPECT_EQ(WhatIsPainted(link, kCaptionBox), Painted::kControl) << "an underline";
  }
  {
    Image icon = Ground(kLight);
    FillRect(icon, Rect{120, 36, 26, 26}, Rgb{200, 90, 20});
    EXPECT_EQ(WhatIsPainted(icon, kCaptionBox), Painted::kControl) << "one shape";
  }
}

TEST(PaintedTest, AGlyphSetApartDoesNotMakeAMark) {
  // A digit beside the text (a slider's value, a shortcut) is not an
  // indicator: not hollow, not solid, no taller than the glyphs.
  Image image = Ground(kLight);
  DrawText(image, 100, 40, "Harbour", kInk, 2);
  DrawText(image, 200, 40, "7", kInk, 2);
  EXPECT_EQ(WhatIsPainted(image, kCaptionBox), Painted::kText);
}

TEST(PaintedTest, NoPlainGroundOrNoRoomIsUnknown) {
  Image stripes = MakeImage(400, 120);
  for (int x = 0; x < 400; ++x) {
    const auto v = static_cast<uint8_t>((x * 37) % 256);
    FillRect(stripes, Rect{x, 0, 1, 120}, Rgb{v, static_cast<uint8_t>(255 - v), v});
  }
  DrawText(stripes, 100, 40, "Harbour", kInk, 2);
  EXPECT_EQ(WhatIsPainted(stripes, kCaptionBox), Painted::kUnknown);
  const Image light = Ground(kLight);
  EXPECT_EQ(WhatIsPainted(light, Rect{10, 10, 5, 30}), Painted::kUnknown) << "too small";
  EXPECT_EQ(WhatIsPainted(light, Rect{500, 10, 40, 30}), Painted::kUnknown) << "off the image";
  EXPECT_EQ(WhatIsPainted(Image{}, kCaptionBox), Painted::kUnknown) << "no image";
}

}  // namespace
}  // namespace uiscope::vision
