#include "vision/painted.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <vector>

namespace uiscope::vision {
namespace {

constexpr int kInk = 24;              // a channel this far from the ground is ink
constexpr int kRing = 3;              // the ground is read in a ring up to this far outside
constexpr double kPlainGround = 0.5;  // this share of the ring at the ground colour: plain
constexpr int kMinSide = 8;           // smaller boxes: kUnknown
constexpr double kFilled = 0.4;       // its own ink over this share of the box: a fill
constexpr double kCovered = 0.6;      // any ink over this share of the box: a fill
constexpr double kTextAspect = 1.5;   // a row of glyphs is at least this much wider than tall
constexpr size_t kMinGlyphs = 3;      // and has at least this many blobs (two-letter words stay)
constexpr int kApart = 3;             // a mark is this far from the glyphs at least
constexpr double kTallMark = 1.25;    // a mark this much taller than the tallest glyph is an icon
constexpr double kMarkHole = 0.15;    // a hollow mark: its hole is this share of its box
constexpr double kMarkSolid = 0.6;    // a solid mark: its ink is this share of its box
constexpr double kSpanned = 0.9;      // a frame line spans this share of what it frames
constexpr double kAround = 1.3;       // a blob around another is this much larger each way
constexpr double kSquare = 0.75;      // an open box's width / height is within this and its inverse
constexpr double kDrawnSide = 0.8;    // a side of an open box is this share ink

struct Blob {
  cv::Rect box;
  int area = 0;
  bool foreign = false;  // touches the region's edge: a neighbour's, or a frame's
};

// The ground: the most common colour (to 4 bits a channel) in the ring
// between 2 and kRing pixels outside `box`, and whether at least
// kPlainGround of the ring is that colour.
bool PlainGround(const cv::Mat& rgb, const cv::Rect& box, cv::Vec3b* ground) {
  const cv::Rect image(0, 0, rgb.cols, rgb.rows);
  const cv::Rect outer =
      cv::Rect(box.x - kRing, box.y - kRing, box.width + 2 * kRing, box.height + 2 * kRing) & image;
  const cv::Rect inner = cv::Rect(box.x - 1, box.y - 1, box.width + 2, box.height + 2);
  std::vector<int> bins(4096, 0);
  std::vector<cv::Vec3b> ring;
  for (int y = outer.y; y < outer.y + outer.height; ++y) {
    const bool across = y < inner.y || y >= inner.y + inner.height;
    const cv::Vec3b* row = rgb.ptr<cv::Vec3b>(y);
    for (int x = outer.x; x < outer.x + outer.width; ++x) {
      // Inside the inner rectangle's rows, only its left and right strips.
      if (!across && x >= inner.x && x < inner.x + inner.width) {
        x = inner.x + inner.width;
        if (x >= outer.x + outer.width) break;
      }
      const cv::Vec3b& p = row[x];
      ++bins[(p[0] >> 4) << 8 | (p[1] >> 4) << 4 | (p[2] >> 4)];
      ring.push_back(p);
    }
  }
  if (ring.size() < 16) return false;
  const int mode = static_cast<int>(std::max_element(bins.begin(), bins.end()) - bins.begin());
  std::array<long, 3> sum{};
  int n = 0;
  for (const cv::Vec3b& p : ring) {
    if (((p[0] >> 4) << 8 | (p[1] >> 4) << 4 | (p[2] >> 4)) != mode) continue;
    for (int c = 0; c < 3; ++c) sum[c] += p[c];
    ++n;
  }
  for (int c = 0; c < 3; ++c) (*ground)[c] = static_cast<uchar>(sum[c] / n);
  const auto near = [&](const cv::Vec3b& p) {
    for (int c = 0; c < 3; ++c) {
      if (std::abs(int(p[c]) - int((*ground)[c])) > kInk) return false;
    }
    return true;
  };
  const auto plain = std::count_if(ring.begin(), ring.end(), near);
  return static_cast<double>(plain) >= kPlainGround * static_cast<double>(ring.size());
}

// Whether the ground around the glyphs (inside their bounding box `text`)
// is closed off from the region's edge by ink: the text sits inside a frame.
bool Enclosed(const cv::Mat& ink, const cv::Rect& text) {
  cv::Mat ground = ink == 0;
  cv::Mat labels;
  const int count = cv::connectedComponents(ground, labels, 4, CV_32S);
  std::vector<bool> at_edge(static_cast<size_t>(count), false);
  for (int x = 0; x < labels.cols; ++x) {
    at_edge[labels.at<int>(0, x)] = true;
    at_edge[labels.at<int>(labels.rows - 1, x)] = true;
  }
  for (int y = 0; y < labels.rows; ++y) {
    at_edge[labels.at<int>(y, 0)] = true;
    at_edge[labels.at<int>(y, labels.cols - 1)] = true;
  }
  for (int y = text.y; y < text.y + text.height; ++y) {
    for (int x = text.x; x < text.x + text.width; ++x) {
      if (ink.at<uchar>(y, x) == 0 && labels.at<int>(y, x) != 0 && at_edge[labels.at<int>(y, x)]) {
        return false;
      }
    }
  }
  return true;
}

// Whether a row of ink, not part of the glyphs, spans the text's width
// somewhere in rows [from, to) of the region.
bool LineAcross(const cv::Mat& ink, const cv::Mat& labels, const std::vector<bool>& glyph,
                const cv::Rect& text, int from, int to) {
  for (int y = std::max(0, from); y < std::min(ink.rows, to); ++y) {
    int covered = 0;
    for (int x = text.x; x < text.x + text.width; ++x) {
      const int l = labels.at<int>(y, x);
      if (ink.at<uchar>(y, x) != 0 && !glyph[static_cast<size_t>(l)]) ++covered;
    }
    if (covered >= kSpanned * text.width) return true;
  }
  return false;
}

// Whether a row of ink within `slack` rows of row `y` spans kSpanned of the
// middle of `box` (its ends left out: rounded corners).
bool LineNear(const cv::Mat& ink, const cv::Rect& box, int y, int slack) {
  const int from = box.x + box.width / 8, width = box.width - box.width / 4;
  for (int r = std::max(0, y - slack); r <= std::min(ink.rows - 1, y + slack); ++r) {
    if (cv::countNonZero(ink(cv::Rect(from, r, width, 1))) >= kSpanned * width) return true;
  }
  return false;
}

// The share of `count` pixels from (x, y) stepping (dx, dy), best of the
// line and the one next to it inward (ix, iy), that belong to `label`.
double SideShare(const cv::Mat& labels, int label, int x, int y, int dx, int dy, int count, int ix,
                 int iy) {
  int best = 0;
  for (int inward = 0; inward < 2; ++inward) {
    int on = 0;
    for (int i = 0; i < count; ++i) {
      on += labels.at<int>(y + dy * i + iy * inward, x + dx * i + ix * inward) == label;
    }
    best = std::max(best, on);
  }
  return static_cast<double>(best) / count;
}

// Whether two sides of blob `b`'s box that meet are drawn: an open box, a
// bevelled indicator whose light half is the colour of the ground (Motif,
// CDE, Windows 95).
bool TwoSidesMeet(const Blob& b, const cv::Mat& labels, int label) {
  const cv::Rect& r = b.box;
  const int right = r.x + r.width - 1, bottom = r.y + r.height - 1;
  const double top = SideShare(labels, label, r.x, r.y, 1, 0, r.width, 0, 1);
  const double low = SideShare(labels, label, r.x, bottom, 1, 0, r.width, 0, -1);
  const double left = SideShare(labels, label, r.x, r.y, 0, 1, r.height, 1, 0);
  const double rise = SideShare(labels, label, right, r.y, 0, 1, r.height, -1, 0);
  const auto drawn = [](double a, double b) { return a >= kDrawnSide && b >= kDrawnSide; };
  return drawn(top, left) || drawn(top, rise) || drawn(low, left) || drawn(low, rise);
}

// Whether blob `b` is a mark a control paints beside its text (an indicator,
// an icon): square-ish, set apart from the ink beside it on its row, and
// taller than the tallest glyph, or hollow, or solid, or an open box.
bool IsMark(const Blob& b, const cv::Mat& labels, int label, const std::vector<Blob>& blobs,
            int tallest) {
  const double aspect = static_cast<double>(b.box.width) / b.box.height;
  if (b.box.height < kMinSide || aspect < 0.6 || aspect > 1.6) return false;
  for (const Blob& o : blobs) {
    if (&o == &b || o.area == 0) continue;
    const bool same_row = o.box.y < b.box.y + b.box.height && b.box.y < o.box.y + o.box.height;
    const int gap = std::max(o.box.x - (b.box.x + b.box.width), b.box.x - (o.box.x + o.box.width));
    if (same_row && gap < kApart) return false;
  }
  if (b.box.height >= kTallMark * tallest) return true;
  if (b.area >= kMarkSolid * b.box.area()) return true;
  if (aspect >= kSquare && aspect <= 1 / kSquare && TwoSidesMeet(b, labels, label)) return true;
  // Hollow: ground inside the mark that is not connected to its outside.
  cv::Mat shape(b.box.height + 2, b.box.width + 2, CV_8U, cv::Scalar(0));
  for (int y = 0; y < b.box.height; ++y) {
    for (int x = 0; x < b.box.width; ++x) {
      if (labels.at<int>(b.box.y + y, b.box.x + x) == label) shape.at<uchar>(y + 1, x + 1) = 255;
    }
  }
  cv::floodFill(shape, cv::Point(0, 0), cv::Scalar(128));
  return cv::countNonZero(shape == 0) >= kMarkHole * b.box.area();
}

}  // namespace

Painted WhatIsPainted(const Image& image, const Rect& box_in) {
  if (!image.Valid()) return Painted::kUnknown;
  const cv::Mat rgb(image.height, image.width, CV_8UC3, const_cast<uint8_t*>(image.rgb.data()));
  const cv::Rect box =
      cv::Rect(box_in.x, box_in.y, box_in.w, box_in.h) & cv::Rect(0, 0, image.width, image.height);
  if (box.width < kMinSide || box.height < kMinSide) return Painted::kUnknown;
  cv::Vec3b ground;
  if (!PlainGround(rgb, box, &ground)) return Painted::kUnknown;

  // The region: the box and a margin, as much as a detector's box is off;
  // sideways a box's height more, so that an indicator the box cuts (or
  // leaves just outside) is seen whole.
  const int slack = std::max(4, std::min(box.width, box.height) / 5);
  const int side = slack + box.height;
  const cv::Rect region =
      cv::Rect(box.x - side, box.y - slack, box.width + 2 * side, box.height + 2 * slack) &
      cv::Rect(0, 0, image.width, image.height);
  cv::Mat diff;
  cv::absdiff(rgb(region), cv::Scalar(ground[0], ground[1], ground[2]), diff);
  cv::Mat channels[3];
  cv::split(diff, channels);
  const cv::Mat ink = cv::max(cv::max(channels[0], channels[1]), channels[2]) > kInk;
  // The box in region pixels.
  const cv::Rect inside(box.x - region.x, box.y - region.y, box.width, box.height);
  // The common case first, without labelling: lines along the box's top
  // and bottom (a framed button, a field).
  if (LineNear(ink, inside, inside.y, slack) &&
      LineNear(ink, inside, inside.y + inside.height - 1, slack)) {
    return Painted::kControl;
  }
  cv::Mat labels, stats, centroids;
  const int count = cv::connectedComponentsWithStats(ink, labels, stats, centroids, 8, CV_32S);
  std::vector<Blob> blobs(static_cast<size_t>(count));
  for (int l = 1; l < count; ++l) {
    Blob& b = blobs[static_cast<size_t>(l)];
    b.box = cv::Rect(stats.at<int>(l, cv::CC_STAT_LEFT), stats.at<int>(l, cv::CC_STAT_TOP),
                     stats.at<int>(l, cv::CC_STAT_WIDTH), stats.at<int>(l, cv::CC_STAT_HEIGHT));
    b.area = stats.at<int>(l, cv::CC_STAT_AREA);
    b.foreign = b.box.x == 0 || b.box.y == 0 || b.box.x + b.box.width == region.width ||
                b.box.y + b.box.height == region.height;
  }
  // The glyphs: the blobs centred in the box that do not reach the
  // region's edge (what does is a neighbour's, or a frame the box cuts).
  std::vector<bool> glyph(static_cast<size_t>(count), false);
  std::vector<int> which;
  cv::Rect text;
  std::vector<int> heights;
  int own_ink = 0;
  for (int l = 1; l < count; ++l) {
    const Blob& b = blobs[static_cast<size_t>(l)];
    const cv::Point centre(b.box.x + b.box.width / 2, b.box.y + b.box.height / 2);
    if (b.foreign || b.area < 2 || !inside.contains(centre)) continue;
    glyph[static_cast<size_t>(l)] = true;
    which.push_back(l);
    text = text.area() == 0 ? b.box : (text | b.box);
    heights.push_back(b.box.height);
    own_ink += b.area;
  }
  // A fill: the box's own ink, or any ink over most of it (a field or a
  // filled button the box cuts).
  if (own_ink >= kFilled * box.area() || cv::countNonZero(ink(inside)) >= kCovered * box.area()) {
    return Painted::kControl;
  }
  // A blob around another (a frame around the text, a check box's square
  // around its tick) is a control's.
  for (int outer : which) {
    const cv::Rect& o = blobs[static_cast<size_t>(outer)].box;
    const cv::Rect core(o.x + 1, o.y + 1, o.width - 2, o.height - 2);
    for (int inner : which) {
      const cv::Rect& i = blobs[static_cast<size_t>(inner)].box;
      if (inner != outer && (i & core) == i && o.width >= kAround * i.width &&
          o.height >= kAround * i.height) {
        return Painted::kControl;
      }
    }
  }
  // Not a row of glyphs: nothing, a shape or two (an icon, a glyph), strokes
  // of different sizes (a symbolic icon's parts), or a column. Glyphs are at
  // least half as tall as the tallest (dots and dashes are not glyphs).
  if (heights.empty()) return Painted::kControl;
  const int tallest = *std::max_element(heights.begin(), heights.end());
  const auto glyph_sized =
      std::count_if(heights.begin(), heights.end(), [&](int h) { return 2 * h >= tallest; });
  if (static_cast<size_t>(glyph_sized) < kMinGlyphs || text.width < kTextAspect * text.height) {
    return Painted::kControl;
  }

  // A frame: the glyphs' ground closed off by ink, or lines above and below them.
  if (Enclosed(ink, text)) return Painted::kControl;
  if (LineAcross(ink, labels, glyph, text, 0, text.y) &&
      LineAcross(ink, labels, glyph, text, text.y + text.height, region.height)) {
    return Painted::kControl;
  }
  // An underline: a link.
  for (int l : which) {
    const cv::Rect& b = blobs[static_cast<size_t>(l)].box;
    if (b.height <= 3 && b.width >= 0.6 * text.width) return Painted::kControl;
  }
  // A mark on the box's row, in it or just beside it: an indicator or an
  // icon (a box may reach well past a check box's square, or stop short of it).
  for (int l = 1; l < count; ++l) {
    const Blob& b = blobs[static_cast<size_t>(l)];
    const int centre_y = b.box.y + b.box.height / 2;
    const bool on_the_row = centre_y >= inside.y && centre_y < inside.y + inside.height;
    if (!b.foreign && on_the_row && IsMark(b, labels, l, blobs, tallest)) {
      return Painted::kControl;
    }
  }
  return Painted::kText;
}

}  // namespace uiscope::vision
