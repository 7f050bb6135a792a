#include "image/image_diff.h"

#include <gtest/gtest.h>

#include <vector>

namespace uiscope {
namespace {

void Paint(Image& img, const Rect& r, uint8_t v) {
  for (int y = r.y; y < r.Bottom(); ++y) {
    for (int x = r.x; x < r.Right(); ++x) {
      uint8_t* p = img.Pixel(x, y);
      p[0] = p[1] = p[2] = v;
    }
  }
}

TEST(ImageDiffTest, EqualImagesScoreZero) {
  Image a = MakeImage(64, 48);
  auto d = DiffImages(a, a);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->changed_pixels, 0);
  EXPECT_EQ(d->score, 0);
  EXPECT_FALSE(d->bounds.has_value());
}

TEST(ImageDiffTest, ScoreAndBoundsOfAChangedArea) {
  Image a = MakeImage(100, 50);
  Image b = a;
  Paint(b, Rect{10, 20, 30, 5}, 200);
  b.Pixel(90, 2)[1] = 7;  // one more pixel, one channel
  auto d = DiffImages(a, b);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->changed_pixels, 151);
  EXPECT_DOUBLE_EQ(d->score, 151.0 / 5000.0);
  ASSERT_TRUE(d->bounds.has_value());
  EXPECT_EQ(*d->bounds, (Rect{10, 2, 81, 23}));
}

TEST(ImageDiffTest, ThresholdIgnoresSmallDifferences) {
  Image a = MakeImage(20, 20);
  Image b = a;
  Paint(b, Rect{0, 0, 20, 20}, 3);
  Paint(b, Rect{5, 5, 2, 2}, 100);
  auto d = DiffImages(a, b, 4);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->changed_pixels, 4);
  EXPECT_EQ(*d->bounds, (Rect{5, 5, 2, 2}));
}

TEST(ImageDiffTest, DifferentSizesAreAnError) {
  auto d = DiffImages(MakeImage(10, 10), MakeImage(10, 11));
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code, ErrorCode::kInvalidArgument);
  EXPECT_FALSE(DiffImages(Image{}, Image{}).ok());
}

// A button's pressed look and a display far from it are two areas, each
// with its tight box; touching tiles are one.
TEST(ImageDiffTest, ChangedAreasSeparateDistantChanges) {
  const Image a = MakeImage(200, 120);
  Image b = a;
  Paint(b, {10, 10, 30, 12}, 255);   // a display
  Paint(b, {150, 90, 20, 20}, 128);  // a button
  Paint(b, {41, 10, 5, 5}, 7);       // next to the display: the same area
  EXPECT_EQ(ChangedAreas(a, b, 16), (std::vector<Rect>{{10, 10, 36, 12}, {150, 90, 20, 20}}));
  EXPECT_TRUE(ChangedAreas(a, a, 16).empty());
  EXPECT_TRUE(ChangedAreas(a, MakeImage(10, 10), 16).empty()) << "sizes differ";
  // Beyond max_areas the smallest are merged into the last box.
  Paint(b, {100, 10, 2, 2}, 9);
  EXPECT_EQ(ChangedAreas(a, b, 16, 2), (std::vector<Rect>{{10, 10, 36, 12}, {100, 10, 70, 100}}));
}

TEST(ImageDiffTest, CropImageClipsToTheImage) {
  Image a = MakeImage(20, 10);
  Paint(a, {5, 5, 1, 1}, 200);
  const Image c = CropImage(a, {4, 4, 30, 30});
  EXPECT_EQ(c.width, 16);
  EXPECT_EQ(c.height, 6);
  EXPECT_EQ(c.Pixel(1, 1)[0], 200);
  EXPECT_EQ(c.Pixel(0, 0)[0], 0);
  EXPECT_FALSE(CropImage(a, {30, 30, 5, 5}).Valid());
}

}  // namespace
}  // namespace uiscope
