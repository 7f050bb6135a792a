#include "ocr/line_finder.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <numeric>

namespace uiscope::ocr {
namespace {

// --- ink mask -----------------------------------------------------------------

// 1 where a pixel differs from its right or lower neighbour by at least the
// threshold. Only the upper / left pixel of each pair is marked, so a glyph
// grows by one pixel up and left instead of one on every side, which keeps
// tightly spaced terminal lines apart.
std::vector<uint8_t> InkMask(const GrayImage& image, int threshold) {
  const int w = image.width, h = image.height;
  std::vector<uint8_t> mask(static_cast<size_t>(w) * h, 0);
  for (int y = 0; y < h; ++y) {
    const uint8_t* row = image.Row(y);
    const uint8_t* below = y + 1 < h ? image.Row(y + 1) : row;
    uint8_t* out = mask.data() + static_cast<size_t>(y) * w;
    // No branch in the body: the compiler vectorises it.
    for (int x = 0; x + 1 < w; ++x) {
      const int right = std::abs(static_cast<int>(row[x]) - row[x + 1]);
      const int down = std::abs(static_cast<int>(row[x]) - below[x]);
      out[x] = static_cast<uint8_t>((right >= threshold) | (down >= threshold));
    }
    out[w - 1] = std::abs(static_cast<int>(row[w - 1]) - below[w - 1]) >= threshold;
  }
  return mask;
}

// Clears vertical runs of at least `max_run` marked pixels (window frames,
// entry borders, list rules); horizontal runs are dropped while labelling.
void ClearVerticalRuns(std::vector<uint8_t>& mask, int w, int h, int max_run) {
  // run[x]: marked pixels ending at the current row in column x. A run that
  // ends (or reaches the bottom) at max_run or more is cleared. Ends are
  // rare, so each row is first checked for one with a loop the compiler
  // vectorises, like the run update.
  std::vector<uint16_t> run(static_cast<size_t>(w), 0);
  auto clear = [&](int x, int end_y) {
    for (int y = end_y - run[x]; y < end_y; ++y) mask[static_cast<size_t>(y) * w + x] = 0;
  };
  for (int y = 0; y < h; ++y) {
    const uint8_t* row = mask.data() + static_cast<size_t>(y) * w;
    uint8_t any_end = 0;
    for (int x = 0; x < w; ++x) any_end |= static_cast<uint8_t>(!row[x] & (run[x] >= max_run));
    if (any_end) {
      for (int x = 0; x < w; ++x) {
        if (!row[x] && run[x] >= max_run) clear(x, y);
      }
    }
    for (int x = 0; x < w; ++x) run[x] = row[x] ? static_cast<uint16_t>(run[x] + 1) : 0;
  }
  for (int x = 0; x < w; ++x) {
    if (run[x] >= max_run) clear(x, h);
  }
}

// --- connected components over runs -------------------------------------------

struct Run {
  int x0, x1;  // [x0, x1)
  int label;
};

struct Component {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // [x0, x1) x [y0, y1)
  int pixels = 0;
  int Width() const { return x1 - x0; }
  int Height() const { return y1 - y0; }
};

class UnionFind {
 public:
  int Add() {
    parent_.push_back(static_cast<int>(parent_.size()));
    return parent_.back();
  }
  int Find(int a) {
    while (parent_[a] != a) {
      parent_[a] = parent_[parent_[a]];
      a = parent_[a];
    }
    return a;
  }
  void Unite(int a, int b) {
    a = Find(a);
    b = Find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }
  size_t size() const { return parent_.size(); }

 private:
  std::vector<int> parent_;
};

std::vector<Component> Components(const std::vector<uint8_t>& mask, int w, int h,
                                  int max_horizontal_run) {
  UnionFind sets;
  std::vector<Run> runs;  // every row's runs, row after row
  std::vector<size_t> row_start(static_cast<size_t>(h) + 1, 0);
  for (int y = 0; y < h; ++y) {
    row_start[y] = runs.size();
    const uint8_t* row = mask.data() + static_cast<size_t>(y) * w;
    for (int x = 0; x < w;) {
      // Skip blank stretches eight pixels at a time.
      while (x + 8 <= w) {
        uint64_t word;
        std::memcpy(&word, row + x, sizeof(word));
        if (word != 0) break;
        x += 8;
      }
      while (x < w && !row[x]) ++x;
      if (x >= w) break;
      const int x0 = x;
      while (x < w && row[x]) ++x;
      if (x - x0 >= max_horizontal_run) continue;  // a rule or border, not a glyph
      runs.push_back({x0, x, sets.Add()});
    }
    if (y == 0) continue;
    // 8-connectivity: runs touch when they overlap after widening by one.
    size_t j = row_start[y - 1];
    const size_t above_end = row_start[y];
    for (size_t i = row_start[y]; i < runs.size(); ++i) {
      const Run& r = runs[i];
      while (j < above_end && runs[j].x1 < r.x0) ++j;
      for (size_t k = j; k < above_end && runs[k].x0 <= r.x1; ++k) {
        sets.Unite(r.label, runs[k].label);
      }
    }
  }
  row_start[h] = runs.size();
  std::vector<int> index(sets.size(), -1);
  std::vector<Component> comps;
  for (int y = 0; y < h; ++y) {
    for (size_t i = row_start[y]; i < row_start[y + 1]; ++i) {
      const Run& r = runs[i];
      const int root = sets.Find(r.label);
      if (index[root] < 0) {
        index[root] = static_cast<int>(comps.size());
        comps.push_back({r.x0, y, r.x1, y + 1, 0});
      }
      Component& c = comps[index[root]];
      c.x0 = std::min(c.x0, r.x0);
      c.x1 = std::max(c.x1, r.x1);
      c.y1 = y + 1;
      c.pixels += r.x1 - r.x0;
    }
  }
  return comps;
}

// --- filtering ------------------------------------------------------------------

// A uniform grid of component indices by the cell of their top-left corner,
// for "which components lie inside this box" queries.
class Grid {
 public:
  static constexpr int kCell = 32;
  Grid(const std::vector<Component>& comps, int w, int h)
      : cols_((w + kCell - 1) / kCell),
        rows_((h + kCell - 1) / kCell),
        cells_(static_cast<size_t>(cols_) * rows_) {
    for (size_t i = 0; i < comps.size(); ++i) {
      cells_[static_cast<size_t>(comps[i].y0 / kCell) * cols_ + comps[i].x0 / kCell].push_back(
          static_cast<int>(i));
    }
  }
  template <typename Fn>
  void ForEachStartingIn(const Component& box, Fn&& fn) const {
    for (int cy = box.y0 / kCell; cy <= (box.y1 - 1) / kCell && cy < rows_; ++cy) {
      for (int cx = box.x0 / kCell; cx <= (box.x1 - 1) / kCell && cx < cols_; ++cx) {
        for (int i : cells_[static_cast<size_t>(cy) * cols_ + cx]) fn(i);
      }
    }
  }

 private:
  int cols_, rows_;
  std::vector<std::vector<int>> cells_;
};

bool StrictlyInside(const Component& inner, const Component& outer) {
  return inner.x0 > outer.x0 && inner.y0 > outer.y0 && inner.x1 < outer.x1 && inner.y1 < outer.y1;
}

// The outline of a box (an unchecked check box, a small frame): all four
// sides are straight, nearly full-length runs. Curved glyphs ("O", "0", "D")
// touch at least one side of their box only in its middle.
bool IsBoxOutline(const std::vector<uint8_t>& mask, int w, const Component& c) {
  if (c.Width() < 10 || c.Height() < 10) return false;
  auto row_cover = [&](int y) {
    int n = 0;
    for (int x = c.x0; x < c.x1; ++x) n += mask[static_cast<size_t>(y) * w + x];
    return n;
  };
  auto col_cover = [&](int x) {
    int n = 0;
    for (int y = c.y0; y < c.y1; ++y) n += mask[static_cast<size_t>(y) * w + x];
    return n;
  };
  // Hollow: a box holds nothing (a ticked one is a container, see below);
  // a word whose letters touch ("ERROR") is dense inside.
  int inside = 0;
  for (int y = c.y0 + 3; y < c.y1 - 3; ++y) {
    for (int x = c.x0 + 3; x < c.x1 - 3; ++x) inside += mask[static_cast<size_t>(y) * w + x];
  }
  if (inside * 20 > (c.Width() - 6) * (c.Height() - 6)) return false;
  const int need_w = c.Width() * 8 / 10, need_h = c.Height() * 8 / 10;
  return std::max(row_cover(c.y0), row_cover(c.y0 + 1)) >= need_w &&
         std::max(row_cover(c.y1 - 1), row_cover(c.y1 - 2)) >= need_w &&
         std::max(col_cover(c.x0), col_cover(c.x0 + 1)) >= need_h &&
         std::max(col_cover(c.x1 - 1), col_cover(c.x1 - 2)) >= need_h;
}

std::vector<Component> FilterGlyphs(std::vector<Component> comps, const std::vector<uint8_t>& mask,
                                    int w, int h, const LineFinderOptions& options) {
  std::vector<uint8_t> drop(comps.size(), 0);
  for (size_t i = 0; i < comps.size(); ++i) {
    const Component& c = comps[i];
    const int64_t area = int64_t{c.Width()} * c.Height();
    if (c.Height() > options.max_glyph_height) drop[i] = 1;
    // Thin long strokes: separators and underlines cut into pieces.
    if (c.Height() <= 3 && c.Width() > 12 * c.Height() + 12) drop[i] = 1;
    // Large sparse outlines: frames, circles, icon outlines.
    if (area > 2500 && c.pixels < area / 12) drop[i] = 1;
    if (!drop[i] && IsBoxOutline(mask, w, c)) drop[i] = 1;
  }
  // Containers: a component around another one is a box (check box, entry
  // corner pieces, a radio ring), not a glyph: glyph outlines hold no
  // separate component inside them.
  Grid grid(comps, w, h);
  for (size_t i = 0; i < comps.size(); ++i) {
    const Component& c = comps[i];
    if (drop[i] || c.Height() < 8 || c.Width() < 8) continue;
    bool holds = false;
    grid.ForEachStartingIn(c, [&](int j) {
      if (!holds && static_cast<size_t>(j) != i && comps[j].Height() >= 3 &&
          StrictlyInside(comps[j], c)) {
        holds = true;
      }
    });
    if (holds) drop[i] = 1;
  }
  std::vector<Component> kept;
  kept.reserve(comps.size());
  for (size_t i = 0; i < comps.size(); ++i) {
    if (!drop[i]) kept.push_back(comps[i]);
  }
  return kept;
}

// --- grouping -------------------------------------------------------------------

struct Line {
  int x0, y0, x1, y1;
  int ref_height;      // tallest member glyph
  int64_t center_sum;  // of member centres, doubled (integer)
  int members;
  std::vector<int> parts;  // component indices, in x order

  double Center() const { return static_cast<double>(center_sum) / (2.0 * members); }
  double BandTop() const { return Center() - ref_height / 2.0; }
  double BandBottom() const { return Center() + ref_height / 2.0; }
  int Gap(double factor) const { return std::max(4, static_cast<int>(factor * ref_height)); }
  void Add(const Component& c, int index) {
    x0 = std::min(x0, c.x0);
    y0 = std::min(y0, c.y0);
    x1 = std::max(x1, c.x1);
    y1 = std::max(y1, c.y1);
    ref_height = std::max(ref_height, c.Height());
    center_sum += c.y0 + c.y1;
    ++members;
    parts.push_back(index);
  }
};

constexpr int kMinSeedHeight = 5;

// Thin vertical pieces: an "l" or "|" of a line, or what is left of a widget
// border, a text cursor or a table rule once its long runs are gone. They
// never start or shape a line; they join one they are not taller than.
bool Thin(const Component& c) { return c.Width() <= std::max(3, c.Height() / 5); }

// How well glyph `c` continues line `l` (0 = not at all).
double Fit(const Line& l, const Component& c, double gap_factor) {
  // Cheap rejections first: most active lines are other rows. (The band
  // lies within the line's box widened by half its reference height.)
  if (c.y1 <= l.y0 - l.ref_height / 2 || c.y0 >= l.y1 + l.ref_height / 2) return 0;
  if (c.x0 - l.x1 > l.Gap(gap_factor)) return 0;
  if (c.x1 <= l.x0) return 0;
  const int ch = c.Height();
  if (ch > 1.7 * l.ref_height + 2 || l.ref_height > 2.4 * ch + 2) return 0;
  const double overlap =
      std::min<double>(c.y1, l.BandBottom()) - std::max<double>(c.y0, l.BandTop());
  const double need = 0.5 * std::min<double>(ch, l.ref_height);
  if (overlap < need) return 0;
  return overlap / std::min<double>(ch, l.ref_height);
}

std::vector<Line> GroupLines(const std::vector<Component>& comps, double gap_factor) {
  std::vector<int> order(comps.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return comps[a].x0 < comps[b].x0; });

  std::vector<Line> done;
  std::vector<Line> active;
  std::vector<int> small;
  for (int i : order) {
    const Component& c = comps[i];
    if (c.Height() < kMinSeedHeight || Thin(c)) {
      small.push_back(i);
      continue;
    }
    // Lines that ended too far to the left can take nothing more.
    for (size_t k = 0; k < active.size();) {
      if (c.x0 - active[k].x1 > active[k].Gap(gap_factor)) {
        done.push_back(std::move(active[k]));
        active[k] = std::move(active.back());
        active.pop_back();
      } else {
        ++k;
      }
    }
    double best = 0;
    Line* target = nullptr;
    for (Line& l : active) {
      double fit = Fit(l, c, gap_factor);
      if (fit > best) {
        best = fit;
        target = &l;
      }
    }
    if (target) {
      target->Add(c, i);
    } else {
      Line l{c.x0, c.y0, c.x1, c.y1, c.Height(), 0, 0, {}};
      l.Add(c, i);
      active.push_back(std::move(l));
    }
  }
  for (Line& l : active) done.push_back(std::move(l));

  // Dots, commas, hyphens and accents join the nearest line around them.
  // Lines are bucketed by rows of kBucket pixels (with their margins), so
  // each piece looks at the few lines around it.
  constexpr int kBucket = 16;
  int max_y = 0;
  for (const Line& l : done) max_y = std::max(max_y, l.y1);
  std::vector<std::vector<int>> buckets(static_cast<size_t>(max_y / kBucket + 2));
  for (size_t k = 0; k < done.size(); ++k) {
    const Line& l = done[k];
    const int margin = static_cast<int>(0.35 * l.ref_height) + 1;
    const int b0 = std::max(0, (l.y0 - margin) / kBucket);
    const int b1 = std::min(static_cast<int>(buckets.size()) - 1, (l.y1 + margin) / kBucket);
    for (int b = b0; b <= b1; ++b) buckets[b].push_back(static_cast<int>(k));
  }
  for (int i : small) {
    const Component& c = comps[i];
    const double cy = (c.y0 + c.y1) / 2.0;
    const int bucket = static_cast<int>(cy) / kBucket;
    if (bucket < 0 || bucket >= static_cast<int>(buckets.size())) continue;
    Line* target = nullptr;
    double best = 1e9;
    for (int k : buckets[bucket]) {
      Line& l = done[k];
      const int gap = l.Gap(gap_factor);
      const double margin = 0.35 * l.ref_height;
      if (c.x1 < l.x0 - gap || c.x0 > l.x1 + gap) continue;
      if (cy < l.y0 - margin || cy > l.y1 + margin) continue;
      if (c.Height() > 1.4 * l.ref_height + 1) continue;
      double d = std::abs(cy - l.Center());
      if (d < best) {
        best = d;
        target = &l;
      }
    }
    if (target) {
      target->x0 = std::min(target->x0, c.x0);
      target->x1 = std::max(target->x1, c.x1);
      target->y0 = std::min(target->y0, c.y0);
      target->y1 = std::max(target->y1, c.y1);
    }
  }
  return done;
}

bool BandsOverlap(const Line& a, const Line& b) {
  double overlap = std::min(a.BandBottom(), b.BandBottom()) - std::max(a.BandTop(), b.BandTop());
  return overlap >= 0.6 * std::min(a.ref_height, b.ref_height);
}

// Lines split because a glyph met two candidates in the wrong order: merge
// neighbours on the same band.
void MergeNeighbours(std::vector<Line>& lines, double gap_factor) {
  bool merged = true;
  while (merged) {
    merged = false;
    std::sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) { return a.x0 < b.x0; });
    for (size_t i = 0; i < lines.size() && !merged; ++i) {
      for (size_t j = i + 1; j < lines.size(); ++j) {
        Line& a = lines[i];
        Line& b = lines[j];
        if (b.x0 - a.x1 > std::max(a.Gap(gap_factor), b.Gap(gap_factor))) continue;
        if (!BandsOverlap(a, b)) continue;
        a.x0 = std::min(a.x0, b.x0);
        a.y0 = std::min(a.y0, b.y0);
        a.x1 = std::max(a.x1, b.x1);
        a.y1 = std::max(a.y1, b.y1);
        a.ref_height = std::max(a.ref_height, b.ref_height);
        a.center_sum += b.center_sum;
        a.members += b.members;
        a.parts.insert(a.parts.end(), b.parts.begin(), b.parts.end());
        lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(j));
        merged = true;
        break;
      }
    }
  }
}

// A lone glyph-sized piece lying across two lines is where two lines' glyphs
// touch, or an icon between them; the two lines read it already.
bool StraddlesLines(const Line& l, const std::vector<Line>& lines) {
  if (l.members > 2) return false;
  int crossed = 0;
  for (const Line& o : lines) {
    if (&o == &l || o.members <= 2) continue;
    if (o.x1 < l.x0 || o.x0 > l.x1) continue;
    if (o.y1 > l.y0 && o.y0 < l.y1) ++crossed;
  }
  return crossed >= 2;
}

// Cuts `r` into pieces no wider than max_aspect * height at its blank
// columns (no ink-mask pixel from top to bottom), preferring the gap whose
// middle is nearest the region's middle; gaps narrower than a third of the
// height are inside words and never cut.
void SplitWide(const std::vector<uint8_t>& mask, int w, const TextRegion& r, int max_aspect,
               std::vector<TextRegion>& out) {
  const Rect& b = r.bounds;
  if (max_aspect <= 0 || b.w <= max_aspect * b.h) {
    out.push_back(r);
    return;
  }
  std::vector<uint8_t> blank(static_cast<size_t>(b.w), 1);
  for (int y = b.y; y < b.Bottom(); ++y) {
    const uint8_t* row = mask.data() + static_cast<size_t>(y) * w + b.x;
    for (int x = 0; x < b.w; ++x) blank[x] &= static_cast<uint8_t>(!row[x]);
  }
  const int min_gap = std::max(2, b.h / 3);
  int best_x0 = -1, best_x1 = -1;
  double best_distance = 1e18;
  for (int x = 0; x < b.w;) {
    if (!blank[x]) {
      ++x;
      continue;
    }
    const int x0 = x;
    while (x < b.w && blank[x]) ++x;
    if (x0 == 0 || x == b.w || x - x0 < min_gap) continue;
    const double distance = std::abs((x0 + x) / 2.0 - b.w / 2.0);
    if (distance < best_distance) {
      best_distance = distance;
      best_x0 = x0;
      best_x1 = x;
    }
  }
  if (best_x0 < 0) {
    out.push_back(r);
    return;
  }
  // The mask marks a pixel's upper-left neighbour pair, so ink ends one
  // pixel right of its last marked column: keep that pixel with the left part.
  const int left_end = std::min(best_x0 + 1, best_x1);
  SplitWide(mask, w, {Rect{b.x, b.y, left_end, b.h}, r.glyph_height}, max_aspect, out);
  SplitWide(mask, w, {Rect{b.x + best_x1, b.y, b.w - best_x1, b.h}, r.glyph_height}, max_aspect,
            out);
}

}  // namespace

std::vector<TextRegion> FindTextRegions(const GrayImage& image, const LineFinderOptions& options) {
  const int w = image.width, h = image.height;
  if (w < 2 || h < 2) return {};
  std::vector<uint8_t> mask = InkMask(image, options.edge_threshold);
  ClearVerticalRuns(mask, w, h, options.max_vertical_run);
  std::vector<Component> comps =
      FilterGlyphs(Components(mask, w, h, options.max_horizontal_run), mask, w, h, options);
  std::vector<Line> lines = GroupLines(comps, options.max_gap);
  MergeNeighbours(lines, options.max_gap);

  std::vector<TextRegion> regions;
  for (const Line& l : lines) {
    if (StraddlesLines(l, lines)) continue;
    Rect r{l.x0, l.y0, l.x1 - l.x0, l.y1 - l.y0};
    if (r.w < 3 || r.h < kMinSeedHeight) continue;
    SplitWide(mask, w, {ClampToFrame(r, w, h), l.ref_height}, options.max_aspect, regions);
  }
  std::sort(regions.begin(), regions.end(), [](const TextRegion& a, const TextRegion& b) {
    if (a.bounds.y != b.bounds.y) return a.bounds.y < b.bounds.y;
    return a.bounds.x < b.bounds.x;
  });
  return regions;
}

}  // namespace uiscope::ocr
