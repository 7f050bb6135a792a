// Rectangles in screen pixels of the captured display (DESIGN §3: one
// coordinate frame for tree, screenshot and input).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace uiscope {

struct Point {
  int x = 0;
  int y = 0;
  bool operator==(const Point&) const = default;
};

struct Rect {
  int x = 0;
  int y = 0;
  int w = 0;  // width in pixels; <= 0 means empty
  int h = 0;  // height in pixels; <= 0 means empty

  bool operator==(const Rect&) const = default;

  bool Empty() const { return w <= 0 || h <= 0; }
  int Right() const { return x + w; }   // exclusive
  int Bottom() const { return y + h; }  // exclusive
  int64_t Area() const { return Empty() ? 0 : int64_t{w} * h; }
  Point Center() const { return {x + w / 2, y + h / 2}; }
  bool Contains(Point p) const {
    return !Empty() && p.x >= x && p.x < Right() && p.y >= y && p.y < Bottom();
  }
  bool Contains(const Rect& r) const {
    return !Empty() && !r.Empty() && r.x >= x && r.y >= y && r.Right() <= Right() &&
           r.Bottom() <= Bottom();
  }
  Rect Translated(int dx, int dy) const { return {x + dx, y + dy, w, h}; }
};

// Overlap of two rectangles; empty (w or h <= 0) when they do not overlap.
Rect Intersect(const Rect& a, const Rect& b);
// Smallest rectangle holding both; an empty input is ignored.
Rect Union(const Rect& a, const Rect& b);
// Intersection over union in [0, 1]; 0 when either is empty.
double IoU(const Rect& a, const Rect& b);
// Whether `a` and `b` overlap by at least half of the smaller one's area:
// one lies mostly on the other (a box around a widget and the widget, a
// widget and a part of it). False when either is empty.
bool SharesHalfOfTheSmaller(const Rect& a, const Rect& b);
// Clamps r to the frame (0, 0, width, height).
Rect ClampToFrame(const Rect& r, int width, int height);
// The parts of `a` that none of `holes` covers, as disjoint rectangles
// (empty when the holes cover all of it).
std::vector<Rect> Subtract(const Rect& a, const std::vector<Rect>& holes);
// Smallest rectangle holding every non-empty one of `rects`; empty when none.
Rect BoundingBox(const std::vector<Rect>& rects);
// The area `rects` cover together as disjoint rectangles: each one less
// what the ones before it cover, so an overlap counts once. Its total area
// is the union's.
std::vector<Rect> DisjointUnion(const std::vector<Rect>& rects);
int64_t TotalArea(const std::vector<Rect>& disjoint);
// What of `r`, drawn on layer `layer` of `stack` (what each window covers
// on screen, bottom to top: the stacking order), no layer above covers: the
// parts of an element that are seen. All of `r` for a layer out of range.
std::vector<Rect> UncoveredParts(const Rect& r, const std::vector<Rect>& stack, size_t layer);

}  // namespace uiscope
