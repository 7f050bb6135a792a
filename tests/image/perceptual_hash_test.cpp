// The visual fingerprint of learned targets (image/perceptual_hash.h): the
// same pixels hash alike wherever they are, different ones do not, and the
// search re-finds an element that moved near its old place.
#include "image/perceptual_hash.h"

#include <gtest/gtest.h>

#include <random>

namespace uiscope {
namespace {

// A grey canvas with a few distinct "widgets": dark bars of different
// lengths (text-like) at given places.
Image Canvas(int width, int height, Point widget_at, uint32_t seed = 7) {
  Image image = MakeImage(width, height);
  for (auto& b : image.rgb) b = 220;
  std::mt19937 rng(seed);
  auto fill = [&](int x0, int y0, int w, int h, uint8_t v) {
    for (int y = y0; y < y0 + h && y < height; ++y) {
      for (int x = x0; x < x0 + w && x < width; ++x) {
        uint8_t* p = image.Pixel(x, y);
        p[0] = p[1] = p[2] = v;
      }
    }
  };
  // The widget: a framed box with "letters" of random widths.
  fill(widget_at.x, widget_at.y, 120, 2, 40);
  fill(widget_at.x, widget_at.y + 30, 120, 2, 40);
  int x = widget_at.x + 8;
  while (x < widget_at.x + 110) {
    const int w = 3 + static_cast<int>(rng() % 7);
    fill(x, widget_at.y + 8, w, 16, 30);
    x += w + 3;
  }
  // Something else elsewhere.
  fill(10, height - 40, 60, 30, 90);
  return image;
}

TEST(PerceptualHashTest, SamePixelsHashAlikeAnywhere) {
  Image a = Canvas(400, 300, {100, 100});
  Image b = Canvas(400, 300, {160, 140});
  EXPECT_EQ(DHash64(a, {100, 100, 120, 32}), DHash64(b, {160, 140, 120, 32}));
  EXPECT_GT(HammingDistance(DHash64(a, {100, 100, 120, 32}), DHash64(a, {10, 260, 120, 32})),
            kSameElementBits);
}

TEST(PerceptualHashTest, BrightnessChangesOnlyAFewBits) {
  Image a = Canvas(400, 300, {100, 100});
  Image b = a;
  for (auto& v : b.rgb) v = static_cast<uint8_t>(std::min(255, v + 20));
  EXPECT_LE(HammingDistance(DHash64(a, {100, 100, 120, 32}), DHash64(b, {100, 100, 120, 32})),
            kSameElementBits);
}

TEST(PerceptualHashTest, TheSearchRefindsAMovedElementNearItsOldPlace) {
  const uint64_t hash = DHash64(Canvas(400, 300, {100, 100}), {100, 100, 120, 32});
  Image moved = Canvas(400, 300, {130, 118});
  auto match = FindByHash(moved, hash, {100, 100, 120, 32}, 48, 1);
  ASSERT_TRUE(match.has_value());
  EXPECT_EQ(match->rect, (Rect{130, 118, 120, 32}));
  EXPECT_EQ(match->distance, 0);
  // Too far for the radius: not found rather than something else.
  Image far = Canvas(400, 300, {250, 200});
  EXPECT_FALSE(FindByHash(far, hash, {100, 100, 120, 32}, 48, 1).has_value());
  // Another widget where it was: not taken for it.
  Image other = Canvas(400, 300, {100, 100}, /*seed=*/99);
  auto wrong = FindByHash(other, hash, {100, 100, 120, 32}, 0, 1);
  if (wrong) {
    EXPECT_GT(wrong->distance, 0);
  }
}

TEST(PerceptualHashTest, DegenerateInputs) {
  Image empty;
  EXPECT_EQ(DHash64(empty, {0, 0, 10, 10}), 0u);
  Image a = Canvas(100, 100, {0, 0});
  EXPECT_EQ(DHash64(a, {200, 200, 10, 10}), 0u);
  (void)DHash64(a, {5, 5, 3, 2});  // smaller than the 9x8 grid: no crash
  EXPECT_FALSE(FindByHash(a, 0, {0, 0, 0, 0}, 10).has_value());
  EXPECT_FALSE(FindByHash(a, 0, {0, 0, 200, 200}, 10).has_value());
}

}  // namespace
}  // namespace uiscope
