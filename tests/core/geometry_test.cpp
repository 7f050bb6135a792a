#include "core/geometry.h"

#include <gtest/gtest.h>

#include <climits>

namespace uiscope {
namespace {

TEST(GeometryTest, IntersectOverlapping) {
  EXPECT_EQ(Intersect({0, 0, 10, 10}, {5, 5, 10, 10}), (Rect{5, 5, 5, 5}));
}

TEST(GeometryTest, IntersectDisjointAndTouchingAreEmpty) {
  EXPECT_TRUE(Intersect({0, 0, 10, 10}, {20, 20, 5, 5}).Empty());
  // Right() is exclusive: rectangles sharing an edge do not overlap.
  EXPECT_TRUE(Intersect({0, 0, 10, 10}, {10, 0, 10, 10}).Empty());
  EXPECT_TRUE(Intersect({0, 0, 10, 10}, {0, 0, 0, 10}).Empty());
}

TEST(GeometryTest, IntersectContained) {
  EXPECT_EQ(Intersect({0, 0, 100, 100}, {10, 20, 30, 40}), (Rect{10, 20, 30, 40}));
}

TEST(GeometryTest, UnionBoundsBothAndIgnoresEmpty) {
  EXPECT_EQ(Union({0, 0, 10, 10}, {20, 30, 5, 5}), (Rect{0, 0, 25, 35}));
  EXPECT_EQ(Union({-5, -5, 10, 10}, {0, 0, 10, 10}), (Rect{-5, -5, 15, 15}));
  EXPECT_EQ(Union({}, {3, 4, 5, 6}), (Rect{3, 4, 5, 6}));
  EXPECT_EQ(Union({3, 4, 5, 6}, {100, 100, 0, 0}), (Rect{3, 4, 5, 6}));
  EXPECT_TRUE(Union({}, {}).Empty());
}

TEST(GeometryTest, IoUOverlap) {
  // 5x5 overlap of two 10x10 squares: 25 / (100 + 100 - 25).
  EXPECT_DOUBLE_EQ(IoU({0, 0, 10, 10}, {5, 5, 10, 10}), 25.0 / 175.0);
}

TEST(GeometryTest, IoUDisjointIsZero) { EXPECT_EQ(IoU({0, 0, 10, 10}, {50, 50, 10, 10}), 0.0); }

TEST(GeometryTest, IoUContained) { EXPECT_DOUBLE_EQ(IoU({0, 0, 10, 10}, {0, 0, 5, 10}), 0.5); }

TEST(GeometryTest, IoUIdenticalIsOne) {
  EXPECT_DOUBLE_EQ(IoU({7, 8, 30, 40}, {7, 8, 30, 40}), 1.0);
}

TEST(GeometryTest, IoUWithEmptyIsZero) {
  EXPECT_EQ(IoU({0, 0, 0, 0}, {0, 0, 0, 0}), 0.0);
  EXPECT_EQ(IoU({0, 0, 10, 10}, {0, 0, -5, 10}), 0.0);
}

TEST(GeometryTest, SharesHalfOfTheSmaller) {
  // A 10x10 box half on a 100x100 one: half of the smaller is shared.
  EXPECT_TRUE(SharesHalfOfTheSmaller({0, 0, 100, 100}, {95, 0, 10, 10}));
  EXPECT_TRUE(SharesHalfOfTheSmaller({95, 0, 10, 10}, {0, 0, 100, 100}));
  EXPECT_FALSE(SharesHalfOfTheSmaller({0, 0, 100, 100}, {96, 0, 10, 10}));
  EXPECT_TRUE(SharesHalfOfTheSmaller({0, 0, 100, 100}, {10, 10, 5, 5})) << "inside";
  EXPECT_FALSE(SharesHalfOfTheSmaller({0, 0, 10, 10}, {10, 0, 10, 10})) << "touching";
  EXPECT_FALSE(SharesHalfOfTheSmaller({0, 0, 10, 10}, {0, 0, 0, 0})) << "empty";
}

TEST(GeometryTest, ClampToFrame) {
  EXPECT_EQ(ClampToFrame({-10, -10, 50, 50}, 100, 100), (Rect{0, 0, 40, 40}));
  EXPECT_EQ(ClampToFrame({90, 95, 50, 50}, 100, 100), (Rect{90, 95, 10, 5}));
  EXPECT_EQ(ClampToFrame({10, 10, 20, 20}, 100, 100), (Rect{10, 10, 20, 20}));
  EXPECT_TRUE(ClampToFrame({200, 200, 10, 10}, 100, 100).Empty());
}

TEST(GeometryTest, HugeBoundsFromUntrustedDataDoNotOverflow) {
  const Rect huge{INT_MAX - 10, 0, INT_MAX, 10};
  EXPECT_EQ(Intersect(huge, {INT_MAX - 20, 0, 15, 10}), (Rect{INT_MAX - 10, 0, 5, 10}));
  const Rect u = Union({INT_MIN, 0, 10, 10}, huge);
  EXPECT_EQ(u.x, INT_MIN);
  EXPECT_EQ(u.w, INT_MAX);  // clamped, not wrapped negative
  EXPECT_TRUE(ClampToFrame(huge, 1920, 1080).Empty());
}

// The area verification compares: windows that overlap count once, and the
// box that holds them is what is captured.
TEST(GeometryTest, DisjointUnionCountsAnOverlapOnce) {
  const std::vector<Rect> windows{{100, 80, 600, 400}, {300, 200, 600, 400}, {0, 0, 0, 0}};
  const std::vector<Rect> parts = DisjointUnion(windows);
  EXPECT_EQ(TotalArea(parts), 600 * 400 * 2 - 400 * 280);
  for (size_t i = 0; i < parts.size(); ++i) {
    for (size_t j = i + 1; j < parts.size(); ++j)
      EXPECT_TRUE(Intersect(parts[i], parts[j]).Empty());
  }
  EXPECT_EQ(BoundingBox(windows), (Rect{100, 80, 800, 520}));
  EXPECT_TRUE(BoundingBox({}).Empty());
  EXPECT_EQ(TotalArea(DisjointUnion({{0, 0, 10, 10}, {2, 2, 3, 3}})), 100) << "nested";
  EXPECT_TRUE(DisjointUnion({}).empty());
}

// Marks of a covered window: what the windows stacked above it leave seen.
TEST(GeometryTest, UncoveredPartsAreWhatTheLayersAboveLeave) {
  // Bottom to top: a main window, a dialog over its middle, a menu over the
  // dialog's corner.
  const std::vector<Rect> stack{{0, 0, 1000, 800}, {300, 200, 400, 300}, {650, 450, 200, 200}};
  // A button of the main window under the dialog: nothing shows.
  EXPECT_TRUE(UncoveredParts({350, 250, 80, 30}, stack, 0).empty());
  // Half under the dialog's left edge: the left half shows.
  EXPECT_EQ(UncoveredParts({260, 250, 80, 30}, stack, 0), (std::vector<Rect>{{260, 250, 40, 30}}));
  // The same box on the dialog itself shows whole.
  EXPECT_EQ(UncoveredParts({350, 250, 80, 30}, stack, 1), (std::vector<Rect>{{350, 250, 80, 30}}));
  // The dialog's button under the menu's corner: an L of two parts.
  const std::vector<Rect> l = UncoveredParts({600, 400, 100, 100}, stack, 1);
  EXPECT_EQ(TotalArea(l), 100 * 100 - 50 * 50);
  // The top layer, or a layer unknown, is never covered.
  EXPECT_EQ(UncoveredParts({700, 500, 10, 10}, stack, 2), (std::vector<Rect>{{700, 500, 10, 10}}));
  EXPECT_EQ(UncoveredParts({700, 500, 10, 10}, stack, 7), (std::vector<Rect>{{700, 500, 10, 10}}));
  EXPECT_TRUE(UncoveredParts({}, stack, 7).empty());
}

}  // namespace
}  // namespace uiscope
