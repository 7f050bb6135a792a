#include "image/image_diff.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace uiscope
