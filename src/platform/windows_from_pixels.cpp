#include "platform/windows_from_pixels.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>

namespace uiscope {
namespace {

// A colour step this large (in any channel) is a boundary; gradients and
// antialiased text change less from one pixel to the next.
constexpr int kEdgeStep = 24;
// Within a band's background, neighbouring pixels differ by at most this
// (a gradient's step).
constexpr int kSmoothStep = 8;
// Title bars of the window managers' themes are 12–48 pixels high (openbox
// 17–24, xfwm4 and metacity up to ~40 at larger fonts) and far wider than
// any title button. A header bar an app draws itself may be taller:
// libadwaita's (gnome-calculator 43) is 50 rows inside its border.
constexpr int kMinBandHeight = 12;
constexpr int kMaxBandHeight = 48;
constexpr int kMaxHeaderBarHeight = 56;
constexpr int kMinBandWidth = 120;
// Gaps in a boundary (a pixel that happens to match across it) bridged.
constexpr int kEdgeGap = 3;
// Both ends of a band's top and bottom boundaries agree within this.
constexpr int kEndSlack = 4;
// A window's client area shows its side edges for at least this many rows.
constexpr int kMinClientHeight = 32;
// Rows of a side edge that may be missing (content of the edge's colour).
constexpr int kSideGap = 8;
// Every row inside a band is mostly background; its plain rows (above and
// below the text) nearly all.
constexpr double kMinRowBackground = 0.5;
constexpr double kPlainRow = 0.95;

struct Span {
  int x0 = 0;
  int x1 = 0;  // exclusive
};

int Step(const uint8_t* a, const uint8_t* b) {
  return std::max({std::abs(a[0] - b[0]), std::abs(a[1] - b[1]), std::abs(a[2] - b[2])});
}

// The runs of row y (y >= 1) that differ from row y - 1 by a boundary step,
// at least kMinBandWidth long.
std::vector<Span> BoundaryRuns(const Image& img, int y) {
  std::vector<Span> runs;
  int start = -1;
  int last = -1;
  for (int x = 0; x < img.width; ++x) {
    if (Step(img.Pixel(x, y), img.Pixel(x, y - 1)) < kEdgeStep) continue;
    if (start >= 0 && x - last <= kEdgeGap + 1) {
      last = x;
      continue;
    }
    if (start >= 0 && last + 1 - start >= kMinBandWidth) runs.push_back({start, last + 1});
    start = last = x;
  }
  if (start >= 0 && last + 1 - start >= kMinBandWidth) runs.push_back({start, last + 1});
  return runs;
}

// The share of row y's pixels in [x0, x1) that continue their left
// neighbour smoothly.
double SmoothShare(const Image& img, int y, int x0, int x1) {
  int smooth = 0;
  for (int x = x0 + 1; x < x1; ++x) {
    if (Step(img.Pixel(x, y), img.Pixel(x - 1, y)) <= kSmoothStep) ++smooth;
  }
  return x1 - x0 > 1 ? static_cast<double>(smooth) / (x1 - x0 - 1) : 0;
}

// Whether columns near `x` show a vertical boundary at row y.
bool SideEdgeAt(const Image& img, int x, int y) {
  for (int c = x - 1; c <= x + 1; ++c) {
    if (c >= 1 && c < img.width && Step(img.Pixel(c, y), img.Pixel(c - 1, y)) >= kEdgeStep) {
      return true;
    }
  }
  return false;
}

// The row below the last of the side edge at `x` running down from row
// `top`; `top` when there is none.
int SideEdgeBottom(const Image& img, int x, int top) {
  int last = top - 1;
  for (int y = top; y < img.height && y - last <= kSideGap; ++y) {
    if (SideEdgeAt(img, x, y)) last = y;
  }
  return last + 1;
}

// Whether rows (top, bottom) of span s look like a title bar's inside.
bool BandInside(const Image& img, const Span& s, int top, int bottom) {
  int plain = 0;
  bool drawn = false;
  for (int y = top + 1; y < bottom; ++y) {
    const double share = SmoothShare(img, y, s.x0, s.x1);
    if (share < kMinRowBackground) return false;
    if (share >= kPlainRow) ++plain;
    if (share < 0.995) drawn = true;
  }
  if (plain < 2 || !drawn) return false;
  // The frame's sides run through the band: a colour step at an end (the
  // screen's edge counts) on most rows. One end may not show it: a dark
  // theme's border on a black desktop differs by less than a step (openbox
  // Nightmare's right border, #121212). The gap between two widgets of the
  // same width has none.
  int sides = 0;
  for (int y = top + 1; y < bottom; ++y) {
    const bool left = s.x0 <= 1 || SideEdgeAt(img, s.x0, y);
    const bool right = s.x1 >= img.width - 1 || SideEdgeAt(img, s.x1, y);
    if (left || right) ++sides;
  }
  if (sides * 10 < (bottom - top - 1) * 6) return false;
  // Something is drawn near an end (buttons, an icon, a left-aligned
  // title): within two band heights of the left or right end.
  const int reach = 2 * (bottom - top);
  auto ink = [&](int x0, int x1) {
    for (int y = top + 1; y < bottom; ++y) {
      for (int x = std::max(x0, s.x0 + 1); x < std::min(x1, s.x1); ++x) {
        if (Step(img.Pixel(x, y), img.Pixel(x - 1, y)) >= kEdgeStep) return true;
      }
    }
    return false;
  };
  return ink(s.x0 + 2, s.x0 + reach) || ink(s.x1 - reach, s.x1 - 2);
}

bool Near(int a, int b) { return std::abs(a - b) <= kEndSlack; }

// Whether `inner` lies inside `outer` but for a few pixels.
bool Within(const Rect& inner, const Rect& outer) {
  return inner.x >= outer.x - kEndSlack && inner.y >= outer.y - kEndSlack &&
         inner.Right() <= outer.Right() + kEndSlack && inner.Bottom() <= outer.Bottom() + kEndSlack;
}

// Whether `band` ends where the window `frame` starts or ends, beside it at
// the same height: the band goes on under that window, which lies over it.
bool CutBy(const Rect& band, const Rect& frame) {
  if (band.y < frame.y || band.y >= frame.Bottom()) return false;
  return Near(band.x, frame.Right()) || Near(band.Right(), frame.x);
}

// Whether a boundary a few rows below `top` with the ends of `s` bounds a
// band down to `bottom` as well: that band is the bar, these rows its frame.
bool TighterTop(const Image& img, const std::vector<std::vector<Span>>& runs, const Span& s,
                int top, int bottom) {
  for (int inner = top + 1; inner <= top + kEndSlack && bottom - inner >= kMinBandHeight; ++inner) {
    for (const Span& t : runs[inner]) {
      if (Near(t.x0, s.x0) && Near(t.x1, s.x1) && BandInside(img, t, inner, bottom)) return true;
    }
  }
  return false;
}

}  // namespace

std::vector<TitleBar> FindTitleBars(const Image& screen) {
  std::vector<TitleBar> bars;
  if (!screen.Valid() || screen.height < 2) return bars;
  std::vector<std::vector<Span>> runs(screen.height);
  for (int y = 1; y < screen.height; ++y) runs[y] = BoundaryRuns(screen, y);

  for (int top = 1; top < screen.height; ++top) {
    for (const Span& s : runs[top]) {
      // The nearest boundary below at the band's height with the same ends.
      for (int bottom = top + kMinBandHeight;
           bottom <= std::min(top + kMaxHeaderBarHeight, screen.height - 1); ++bottom) {
        const auto match =
            std::find_if(runs[bottom].begin(), runs[bottom].end(),
                         [&](const Span& b) { return Near(b.x0, s.x0) && Near(b.x1, s.x1); });
        if (match == runs[bottom].end()) continue;
        if (!BandInside(screen, s, top, bottom)) continue;
        // A band taller than a window manager's bar is a header bar, and
        // its first rows may be the frame's (GTK 3's resize margin above
        // gedit's: 3 white rows under its 1-pixel border, 50 rows with the
        // bar): the band is then the one below them, found from their last
        // boundary. (Not for lower bands: openbox's 1–2 border rows above
        // its bar are the bar's.)
        if (bottom - top > kMaxBandHeight && TighterTop(screen, runs, s, top, bottom)) break;
        const Rect band{s.x0, top, s.x1 - s.x0, bottom - top};
        // The client area's bottom: the side edges' longer run; a band
        // from screen edge to screen edge (a maximised window) reaches the
        // screen's bottom.
        int low = bottom;
        bool measured = false;
        if (s.x0 > 1) {
          low = std::max(low, SideEdgeBottom(screen, s.x0, bottom));
          measured = true;
        }
        if (s.x1 < screen.width - 1) {
          low = std::max(low, SideEdgeBottom(screen, s.x1, bottom));
          measured = true;
        }
        if (!measured) low = screen.height;
        if (low - bottom < kMinClientHeight) continue;
        const Rect frame{s.x0, top, s.x1 - s.x0, low - top};
        // The same band found from a boundary a row or two off.
        const bool seen = std::any_of(bars.begin(), bars.end(),
                                      [&](const TitleBar& b) { return IoU(b.band, band) >= 0.5; });
        // Part of a window found before: it does not reach out of it.
        const bool part = std::any_of(bars.begin(), bars.end(), [&](const TitleBar& b) {
          return Within(band, b.frame) && Within(frame, b.frame);
        });
        if (seen || part) break;
        TitleBar bar{band, frame, {}};
        const size_t index = bars.size();
        for (size_t i = 0; i < bars.size(); ++i) {
          if (!Intersect(band, bars[i].frame).Empty()) {
            bar.above.push_back(i);
          } else if (CutBy(band, bars[i].frame)) {
            bars[i].above.push_back(index);
          }
        }
        bars.push_back(std::move(bar));
        break;
      }
    }
  }
  return bars;
}

namespace {

// The title's form for IDs: letters and digits, lower case.
std::string TitleKey(const std::string& title) {
  std::string key;
  for (unsigned char c : title) {
    if (std::isalnum(c)) key += static_cast<char>(std::tolower(c));
  }
  return key;
}

// Whether two reads of titles may be of one window: one unread, or one's
// key holds the other's (a bar cut by a window over it shows part of it).
bool TitlesAgree(const std::string& a, const std::string& b) {
  const std::string ka = TitleKey(a), kb = TitleKey(b);
  return ka.empty() || kb.empty() || ka.find(kb) != std::string::npos ||
         kb.find(ka) != std::string::npos;
}

uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

uint64_t IdOf(const std::string& key) {
  return (Fnv1a(key) & (kTitleBarWindowBit - 1)) | kTitleBarWindowBit;
}

}  // namespace

std::vector<WindowInfo> TitleBarWindows::List(const Image& screen) {
  const std::vector<TitleBar> bars = FindTitleBars(screen);
  // Bottom to top: a window after every window it lies over.
  // (The longest chain below each; a cycle, which the pixels should not
  // give, stops after as many rounds as there are windows.)
  std::vector<int> depth(bars.size(), 0);
  for (size_t round = 0; round < bars.size(); ++round) {
    for (size_t i = 0; i < bars.size(); ++i) {
      for (size_t below : bars[i].above) depth[i] = std::max(depth[i], depth[below] + 1);
    }
  }
  std::vector<size_t> order(bars.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return depth[a] < depth[b]; });

  std::vector<WindowInfo> windows;
  std::vector<uint64_t> taken;
  for (size_t i : order) {
    const TitleBar& bar = bars[i];
    WindowInfo w;
    w.title = read_title_ ? read_title_(screen, bar.band) : "";
    w.app_class = "VNC";
    w.app_instance = "vnc";
    w.frame = bar.frame;
    w.bounds =
        Rect{bar.frame.x, bar.band.Bottom(), bar.frame.w, bar.frame.Bottom() - bar.band.Bottom()};
    w.visible = true;
    // The window seen last time: overlapping most, else titled the same.
    // An overlap is not enough where both the place of the bar and the
    // title differ: that is another window where one was (gedit revealed
    // where its Save As dialog closed, IoU 0.7, kept the dialog's ID, and
    // `app close` of the dialog said it stayed).
    const WindowInfo* before = nullptr;
    double best = 0.5;
    for (const WindowInfo& p : previous_) {
      const bool stayed = std::abs(p.frame.x - w.frame.x) <= kEndSlack &&
                          std::abs(p.frame.y - w.frame.y) <= kEndSlack;
      if (!stayed && !TitlesAgree(p.title, w.title)) continue;
      if (const double iou = IoU(p.frame, w.frame); iou >= best) {
        before = &p;
        best = iou;
      }
    }
    if (before == nullptr && !w.title.empty()) {
      for (const WindowInfo& p : previous_) {
        if (TitleKey(p.title) == TitleKey(w.title)) before = &p;
      }
    }
    uint64_t id = 0;
    if (before != nullptr && std::find(taken.begin(), taken.end(), before->id) == taken.end()) {
      id = before->id;
    } else {
      const std::string key = TitleKey(w.title);
      id = IdOf(!key.empty()
                    ? key
                    : "at " + std::to_string(bar.band.x) + "," + std::to_string(bar.band.y));
      // Two windows of the same title: the later one by its position.
      if (std::find(taken.begin(), taken.end(), id) != taken.end()) {
        id = IdOf(key + " at " + std::to_string(bar.band.x) + "," + std::to_string(bar.band.y));
      }
    }
    w.id = id;
    taken.push_back(id);
    windows.push_back(std::move(w));
  }
  previous_ = windows;
  return windows;
}

namespace {

// Channel-summed distance of two RGB pixels.
int Distance(const uint8_t* a, const uint8_t* b) {
  return std::abs(a[0] - b[0]) + std::abs(a[1] - b[1]) + std::abs(a[2] - b[2]);
}

// Whether the w x h box at (x, y) of `screen` holds an X-shaped glyph (see
// FindCloseButton).
bool IsCrossGlyph(const Image& screen, int x, int y, int w, int h) {
  // Ink: far from the background, which the edge midpoints show: the top
  // and bottom ones give each row's (a face may be a vertical gradient),
  // and the side ones must agree with theirs.
  constexpr int kInk = 100;  // of 765: a glyph drawn to be seen on its face
  constexpr int kSame = 60;  // a side midpoint is its row's background
  const uint8_t* top = screen.Pixel(x + w / 2, y);
  const uint8_t* bottom = screen.Pixel(x + w / 2, y + h - 1);
  if (Distance(top, bottom) > 2 * kInk) return false;
  auto background = [&](int py, int c) {
    return top[c] + (bottom[c] - top[c]) * (py - y) / std::max(1, h - 1);
  };
  auto off = [&](int px, int py) {
    const uint8_t* p = screen.Pixel(px, py);
    return std::abs(p[0] - background(py, 0)) + std::abs(p[1] - background(py, 1)) +
           std::abs(p[2] - background(py, 2));
  };
  if (off(x, y + h / 2) > kSame || off(x + w - 1, y + h / 2) > kSame) return false;
  // Outside the box (the ring) a row's background is its nearest row's.
  auto ink = [&](int px, int py) {
    const uint8_t* p = screen.Pixel(px, py);
    const int row = std::clamp(py, y, y + h - 1);
    return std::abs(p[0] - background(row, 0)) + std::abs(p[1] - background(row, 1)) +
               std::abs(p[2] - background(row, 2)) >
           kInk;
  };
  // The corners and the centre (a 2 x 2 centre for even sizes).
  if (!ink(x, y) || !ink(x + w - 1, y) || !ink(x, y + h - 1) || !ink(x + w - 1, y + h - 1))
    return false;
  if (!ink(x + (w - 1) / 2, y + (h - 1) / 2) || !ink(x + w / 2, y + h / 2)) return false;
  // Clear at the edge midpoints (both pixels of an even side's middle).
  for (int dx : {(w - 1) / 2, w / 2}) {
    if (ink(x + dx, y) || ink(x + dx, y + h - 1)) return false;
  }
  for (int dy : {(h - 1) / 2, h / 2}) {
    if (ink(x, y + dy) || ink(x + w - 1, y + dy)) return false;
  }
  // Both diagonals inked all along (one pixel of slack across them).
  for (int t = 0; t < h; ++t) {
    const int d = (h == 1) ? 0 : t * (w - 1) / (h - 1);
    auto near = [&](int px) {
      for (int e = -1; e <= 1; ++e) {
        const int q = px + e;
        if (q >= x && q < x + w && ink(q, y + t)) return true;
      }
      return false;
    };
    if (!near(x + d) || !near(x + w - 1 - d)) return false;
  }
  // The glyph ends at the box: next to no ink in the ring just outside.
  int outside = 0, ring = 0;
  for (int px = x - 1; px <= x + w; ++px) {
    for (int py : {y - 1, y + h}) {
      ++ring;
      outside += ink(px, py) ? 1 : 0;
    }
  }
  for (int py = y; py < y + h; ++py) {
    for (int px : {x - 1, x + w}) {
      ++ring;
      outside += ink(px, py) ? 1 : 0;
    }
  }
  return outside * 8 <= ring;
}

}  // namespace

std::optional<Point> FindPlainPoint(const Image& screen, const Rect& band) {
  if (!screen.Valid()) return std::nullopt;
  const Rect inside = Intersect(Rect{band.x + 1, band.y + 1, band.w - 2, band.h - 2},
                                Rect{1, 0, screen.width - 1, screen.height});
  if (inside.Empty()) return std::nullopt;
  auto plain = [&](int x) {
    for (int y = inside.y; y < inside.Bottom(); ++y) {
      if (Step(screen.Pixel(x, y), screen.Pixel(x - 1, y)) > kSmoothStep) return false;
    }
    return true;
  };
  // The widest run; of runs as wide but for a pixel or two (the evenly
  // spaced gaps between a header bar's buttons), the one nearest the
  // band's centre.
  const int centre = inside.x + inside.w / 2;
  std::optional<Span> best;
  auto better = [&](const Span& r) {
    if (!best) return true;
    const int w = r.x1 - r.x0, bw = best->x1 - best->x0;
    if (std::abs(w - bw) > 2) return w > bw;
    return std::abs((r.x0 + r.x1) / 2 - centre) < std::abs((best->x0 + best->x1) / 2 - centre);
  };
  int start = -1;
  for (int x = inside.x; x <= inside.Right(); ++x) {
    if (x < inside.Right() && plain(x)) {
      if (start < 0) start = x;
      continue;
    }
    if (start >= 0 && better(Span{start, x})) best = Span{start, x};
    start = -1;
  }
  if (!best) return std::nullopt;
  return Point{(best->x0 + best->x1) / 2, inside.y + inside.h / 2};
}

std::optional<BarLook> LookOfBar(const Image& screen, const Rect& band) {
  if (!screen.Valid()) return std::nullopt;
  const Rect on = Intersect(band, Rect{0, 0, screen.width, screen.height});
  if (on.Empty()) return std::nullopt;
  // One counter per 15-bit colour: a bar is ~40,000 pixels, polled while a
  // raise is awaited, so no tree node per pixel.
  std::vector<int> counts(1 << 15, 0);
  for (int y = on.y; y < on.Bottom(); ++y) {
    for (int x = on.x; x < on.Right(); ++x) {
      const uint8_t* p = screen.Pixel(x, y);
      ++counts[(p[0] >> 3) << 10 | (p[1] >> 3) << 5 | (p[2] >> 3)];
    }
  }
  const int mode =
      static_cast<int>(std::max_element(counts.begin(), counts.end()) - counts.begin());
  return BarLook{(mode >> 10 & 31) << 3, (mode >> 5 & 31) << 3, (mode & 31) << 3};
}

bool TookActiveLook(const std::map<uint64_t, BarLook>& before,
                    const std::map<uint64_t, BarLook>& after, uint64_t window) {
  constexpr int kLookStep = 24;  // channel-summed: a different look
  auto distance = [](const BarLook& a, const BarLook& b) {
    return std::abs(a[0] - b[0]) + std::abs(a[1] - b[1]) + std::abs(a[2] - b[2]);
  };
  const auto b = before.find(window);
  const auto a = after.find(window);
  if (b == before.end() || a == after.end()) return true;  // no bar to look at
  bool all_alike = true;
  for (const auto& [id, look] : before) all_alike &= distance(look, b->second) <= kLookStep;
  if (all_alike) return true;
  if (distance(a->second, b->second) > kLookStep) return true;
  for (const auto& [id, look] : before) {
    const auto now = after.find(id);
    if (id != window && now != after.end() && distance(look, now->second) > kLookStep) return true;
  }
  for (const auto& [id, look] : after) {
    if (id != window && distance(look, a->second) <= kLookStep) return false;
  }
  return true;
}

std::optional<Rect> FindCloseButton(const Image& screen, const Rect& band) {
  if (!screen.Valid()) return std::nullopt;
  // Inside the band and one pixel in from the screen's edge (the ring
  // outside a glyph is read).
  const int x0 = std::max(band.x, 1), y0 = std::max(band.y, 1);
  const int x1 = std::min(band.x + band.w, screen.width - 1);
  const int y1 = std::min(band.y + band.h, screen.height - 1);
  const int h = y1 - y0;
  if (h < 6 || x1 - x0 < 2 * h) return std::nullopt;
  // A button is smaller than the band is high and not tiny; it lies within
  // three band heights of an end. A tall band may hold a small glyph: a GTK
  // header bar (47 rows) draws its close icon's X in 8 x 8 pixels.
  const int smallest = std::max(4, h / 8);
  const int largest = h - 2;
  const int reach = 3 * h;
  std::optional<Rect> best;  // right end: the rightmost; left end: the leftmost
  auto search = [&](int from, int to, bool right) {
    for (int gh = largest; gh >= smallest; --gh) {
      for (int gw = std::max(smallest, gh * 2 / 3); gw <= std::min(largest, gh * 3 / 2); ++gw) {
        for (int y = y0 + 1; y + gh < y1; ++y) {
          for (int x = std::max(from, x0 + 1); x + gw <= std::min(to, x1 - 1); ++x) {
            if (!IsCrossGlyph(screen, x, y, gw, gh)) continue;
            const Rect found{x, y, gw, gh};
            const int centre = x + gw / 2;
            if (!best || (right ? centre > best->x + best->w / 2 : centre < best->x + best->w / 2))
              best = found;
          }
        }
      }
    }
  };
  search(x1 - reach, x1, true);
  if (!best) search(x0, x0 + reach, false);
  return best;
}

}  // namespace uiscope
