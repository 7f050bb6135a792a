// What a box's pixels show (vision/painted.h): captions on a real GTK 3
// screenshot (tests/fixtures/images/ui.png) are bare text, its framed
// buttons, check box and field are controls; on synthesised screens, each
// cue a control paints (frame, fill, indicator, underline, icon) keeps a
// row of glyphs a control, on light and dark grounds alike.
#include "vision/painted.h"

#include <gtest/gtest.h>

#include <functional>
#include <vector>

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

// "Harbour" drawn over what `cue` painted on a light ground, read in kCaptionBox.
Painted CaptionWith(const std::function<void(Image&)>& cue, Rgb ink = kInk) {
  Image image = Ground(kLight);
  cue(image);
  DrawText(image, 100, 40, "Harbour", ink, 2);
  return WhatIsPainted(image, kCaptionBox);
}

TEST(PaintedTest, EachCueAControlPaintsMakesItAControl) {
  constexpr Rgb kEdge{150, 150, 150};
  constexpr Rgb kLink{30, 60, 200};
  struct Cue {
    const char* what;
    std::function<void(Image&)> paint;
    Rgb ink = kInk;
  };
  const std::vector<Cue> cues = {
      {"a frame",
       [&](Image& i) {
         DrawRectOutline(i, Rect{90, 30, 104, 38}, kEdge, 1);
       }},
      {"a fill",
       [](Image& i) {
         FillRect(i, Rect{90, 30, 104, 38}, Rgb{180, 200, 240});
       }},
      {"a hollow square",
       [&](Image& i) {
         DrawRectOutline(i, Rect{70, 41, 16, 16}, kEdge, 1);
       }},
      {"a solid mark",
       [](Image& i) {
         FillRect(i, Rect{74, 42, 15, 15}, Rgb{50, 110, 220});
       }},
      // Motif's check box: its light bevel is the ground's colour, so only
      // the dark bottom and right sides show.
      {"an open box",
       [&](Image& i) {
         FillRect(i, Rect{70, 55, 14, 2}, kEdge);
         FillRect(i, Rect{82, 43, 2, 14}, kEdge);
       }},
      {"an underline",
       [&](Image& i) {
         FillRect(i, Rect{100, 60, 82, 2}, kLink);
       },
       kLink},
  };
  for (const Cue& cue : cues) {
    EXPECT_EQ(CaptionWith(cue.paint, cue.ink), Painted::kControl) << cue.what;
  }
  Image icon = Ground(kLight);
  FillRect(icon, Rect{120, 36, 26, 26}, Rgb{200, 90, 20});
  EXPECT_EQ(WhatIsPainted(icon, kCaptionBox), Painted::kControl) << "one shape";
  // Nothing at all in the box is no text either (the detector saw something
  // the ground's colour hides: kept).
  EXPECT_EQ(WhatIsPainted(Ground(kLight), kCaptionBox), Painted::kControl) << "nothing";
}

TEST(PaintedTest, AGlyphSetApartDoesNotMakeAMark) {
  // A digit beside the text (a slider's value, a shortcut) is not an
  // indicator: not hollow, not solid, no taller than the glyphs.
  EXPECT_EQ(CaptionWith([](Image& i) { DrawText(i, 200, 40, "7", kInk, 2); }), Painted::kText);
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
