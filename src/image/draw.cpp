#include "image/draw.h"

#include <algorithm>
#include <array>
#include <cstdio>

namespace uiscope {
namespace {

// The font: 9 rows of 5 columns per glyph, '#' = ink. Rows 0-6 are above
// the baseline (digits and ascenders use all 7, lower case 2-6), rows 7-8
// hold descenders and the underscore, which sits below the baseline so that
// "btn_a3f2" reads as two parts.
struct GlyphRows {
  char c;
  const char* rows[kGlyphHeight];
};

// clang-format off
constexpr GlyphRows kGlyphs[] = {
  {' ', {".....", ".....", ".....", ".....", ".....", ".....", ".....", ".....", "....."}},
  {'0', {".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###.", ".....", "....."}},
  {'1', {"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###.", ".....", "....."}},
  {'2', {".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####", ".....", "....."}},
  {'3', {"#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###.", ".....", "....."}},
  {'4', {"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#.", ".....", "....."}},
  {'5', {"#####", "#....", "####.", "....#", "....#", "#...#", ".###.", ".....", "....."}},
  {'6', {"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###.", ".....", "....."}},
  {'7', {"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#...", ".....", "....."}},
  {'8', {".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###.", ".....", "....."}},
  {'9', {".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##..", ".....", "....."}},
  {'a', {".....", ".....", ".###.", "....#", ".####", "#...#", ".####", ".....", "....."}},
  {'b', {"#....", "#....", "####.", "#...#", "#...#", "#...#", "####.", ".....", "....."}},
  {'c', {".....", ".....", ".###.", "#....", "#....", "#....", ".###.", ".....", "....."}},
  {'d', {"....#", "....#", ".####", "#...#", "#...#", "#...#", ".####", ".....", "....."}},
  {'e', {".....", ".....", ".###.", "#...#", "#####", "#....", ".###.", ".....", "....."}},
  {'f', {"..##.", ".#...", "####.", ".#...", ".#...", ".#...", ".#...", ".....", "....."}},
  {'g', {".....", ".....", ".####", "#...#", "#...#", "#...#", ".####", "....#", ".###."}},
  {'h', {"#....", "#....", "####.", "#...#", "#...#", "#...#", "#...#", ".....", "....."}},
  {'i', {"..#..", ".....", ".##..", "..#..", "..#..", "..#..", ".###.", ".....", "....."}},
  {'j', {"...#.", ".....", "..##.", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."}},
  {'k', {"#....", "#....", "#..#.", "#.#..", "##...", "#.#..", "#..#.", ".....", "....."}},
  {'l', {".##..", "..#..", "..#..", "..#..", "..#..", "..#..", ".###.", ".....", "....."}},
  {'m', {".....", ".....", "##.#.", "#.#.#", "#.#.#", "#.#.#", "#.#.#", ".....", "....."}},
  {'n', {".....", ".....", "####.", "#...#", "#...#", "#...#", "#...#", ".....", "....."}},
  {'o', {".....", ".....", ".###.", "#...#", "#...#", "#...#", ".###.", ".....", "....."}},
  {'p', {".....", ".....", "####.", "#...#", "#...#", "#...#", "####.", "#....", "#...."}},
  {'q', {".....", ".....", ".####", "#...#", "#...#", "#...#", ".####", "....#", "....#"}},
  {'r', {".....", ".....", "#.##.", "##..#", "#....", "#....", "#....", ".....", "....."}},
  {'s', {".....", ".....", ".####", "#....", ".###.", "....#", "####.", ".....", "....."}},
  {'t', {".#...", ".#...", "####.", ".#...", ".#...", ".#..#", "..##.", ".....", "....."}},
  {'u', {".....", ".....", "#...#", "#...#", "#...#", "#..##", ".##.#", ".....", "....."}},
  {'v', {".....", ".....", "#...#", "#...#", "#...#", ".#.#.", "..#..", ".....", "....."}},
  {'w', {".....", ".....", "#...#", "#...#", "#.#.#", "#.#.#", ".#.#.", ".....", "....."}},
  {'x', {".....", ".....", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", ".....", "....."}},
  {'y', {".....", ".....", "#...#", "#...#", "#...#", "#...#", ".####", "....#", ".###."}},
  {'z', {".....", ".....", "#####", "...#.", "..#..", ".#...", "#####", ".....", "....."}},
  {'_', {".....", ".....", ".....", ".....", ".....", ".....", ".....", "#####", "....."}},
  {'-', {".....", ".....", ".....", ".....", ".###.", ".....", ".....", ".....", "....."}},
  {'.', {".....", ".....", ".....", ".....", ".....", ".##..", ".##..", ".....", "....."}},
  {':', {".....", ".....", ".##..", ".##..", ".....", ".##..", ".##..", ".....", "....."}},
  {'#', {".#.#.", ".#.#.", "#####", ".#.#.", "#####", ".#.#.", ".#.#.", ".....", "....."}},
  {'?', {".###.", "#...#", "....#", "...#.", "..#..", ".....", "..#..", ".....", "....."}},
};
// clang-format on

// One bit per column (bit 4 = leftmost), per row, per ASCII code.
using Bitmap = std::array<uint8_t, kGlyphHeight>;

const std::array<Bitmap, 128>& Font() {
  static const std::array<Bitmap, 128> font = [] {
    std::array<Bitmap, 128> f{};
    for (const GlyphRows& g : kGlyphs) {
      Bitmap bits{};
      for (int row = 0; row < kGlyphHeight; ++row) {
        for (int col = 0; col < kGlyphWidth; ++col) {
          if (g.rows[row][col] == '#') bits[row] |= static_cast<uint8_t>(1u << (4 - col));
        }
      }
      f[static_cast<unsigned char>(g.c)] = bits;
    }
    return f;
  }();
  return font;
}

const Bitmap& GlyphFor(char c) {
  static const std::array<bool, 128> known = [] {
    std::array<bool, 128> k{};
    for (const GlyphRows& g : kGlyphs) k[static_cast<unsigned char>(g.c)] = true;
    return k;
  }();
  auto code = static_cast<unsigned char>(c);
  if (code >= 'A' && code <= 'Z') code = static_cast<unsigned char>(code - 'A' + 'a');
  if (code >= 128 || !known[code]) code = '?';
  return Font()[code];
}

void PutPixel(Image& image, int x, int y, Rgb color) {
  uint8_t* p = image.Pixel(x, y);
  p[0] = color.r;
  p[1] = color.g;
  p[2] = color.b;
}

// Saturated colours that read on light and dark UIs alike, in the order
// marks take them (neighbouring marks get distinct hues).
constexpr Rgb kPalette[] = {
    {230, 25, 75},   // red
    {0, 110, 230},   // blue
    {0, 150, 60},    // green
    {240, 120, 0},   // orange
    {150, 30, 200},  // purple
    {220, 0, 170},   // magenta
    {0, 140, 140},   // teal
    {120, 80, 20},   // brown
};
constexpr size_t kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);

int Luma(Rgb c) { return (299 * c.r + 587 * c.g + 114 * c.b) / 1000; }

int Distance2(Rgb a, Rgb b) {
  int dr = a.r - b.r, dg = a.g - b.g, db = a.b - b.b;
  return dr * dr + dg * dg + db * db;
}

// Mean colour of the pixels an outline of `box` would cover.
Rgb MeanUnderOutline(const Image& image, const Rect& box, int thickness) {
  uint64_t r = 0, g = 0, b = 0, n = 0;
  auto add = [&](int x, int y) {
    const uint8_t* p = image.Pixel(x, y);
    r += p[0];
    g += p[1];
    b += p[2];
    ++n;
  };
  const int t = std::min({thickness, box.w, box.h});
  for (int x = box.x; x < box.Right(); x += 2) {
    for (int k = 0; k < t; ++k) {
      add(x, box.y + k);
      add(x, box.Bottom() - 1 - k);
    }
  }
  for (int y = box.y; y < box.Bottom(); y += 2) {
    for (int k = 0; k < t; ++k) {
      add(box.x + k, y);
      add(box.Right() - 1 - k, y);
    }
  }
  if (n == 0) return {};
  return Rgb{static_cast<uint8_t>(r / n), static_cast<uint8_t>(g / n), static_cast<uint8_t>(b / n)};
}

// The palette colour for mark `index`: the next one in turn that differs
// enough from the background, else the one that differs most.
Rgb PickColor(size_t index, Rgb background) {
  constexpr int kEnough = 150 * 150;
  Rgb best = kPalette[index % kPaletteSize];
  int best_distance = -1;
  for (size_t k = 0; k < kPaletteSize; ++k) {
    Rgb c = kPalette[(index + k) % kPaletteSize];
    int d = Distance2(c, background);
    if (d >= kEnough) return c;
    if (d > best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

// `r` moved (not resized) to lie inside the image, as far as it fits.
Rect KeepInside(Rect r, int width, int height) {
  r.x = std::max(0, std::min(r.x, width - r.w));
  r.y = std::max(0, std::min(r.y, height - r.h));
  return r;
}

}  // namespace

std::string Rgb::Hex() const {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "#%02x%02x%02x", r, g, b);
  return buf;
}

void FillRect(Image& image, const Rect& rect, Rgb color) {
  Rect r = ClampToFrame(rect, image.width, image.height);
  if (r.Empty()) return;
  for (int y = r.y; y < r.Bottom(); ++y) {
    uint8_t* p = image.Pixel(r.x, y);
    for (int x = 0; x < r.w; ++x, p += 3) {
      p[0] = color.r;
      p[1] = color.g;
      p[2] = color.b;
    }
  }
}

void DrawRectOutline(Image& image, const Rect& rect, Rgb color, int thickness) {
  if (rect.Empty() || thickness <= 0) return;
  const int tx = std::min(thickness, rect.w), ty = std::min(thickness, rect.h);
  FillRect(image, {rect.x, rect.y, rect.w, ty}, color);              // top
  FillRect(image, {rect.x, rect.Bottom() - ty, rect.w, ty}, color);  // bottom
  FillRect(image, {rect.x, rect.y, tx, rect.h}, color);              // left
  FillRect(image, {rect.Right() - tx, rect.y, tx, rect.h}, color);   // right
}

int TextWidth(std::string_view text, int scale) {
  if (text.empty()) return 0;
  return static_cast<int>(text.size()) * (kGlyphWidth + 1) * scale - scale;
}

int TextHeight(int scale) { return kGlyphHeight * scale; }

void DrawText(Image& image, int x, int y, std::string_view text, Rgb color, int scale) {
  if (scale <= 0) return;
  for (char c : text) {
    const Bitmap& glyph = GlyphFor(c);
    for (int row = 0; row < kGlyphHeight; ++row) {
      for (int col = 0; col < kGlyphWidth; ++col) {
        if ((glyph[row] & (1u << (4 - col))) == 0) continue;
        for (int dy = 0; dy < scale; ++dy) {
          const int py = y + row * scale + dy;
          if (py < 0 || py >= image.height) continue;
          for (int dx = 0; dx < scale; ++dx) {
            const int px = x + col * scale + dx;
            if (px >= 0 && px < image.width) PutPixel(image, px, py, color);
          }
        }
      }
    }
    x += (kGlyphWidth + 1) * scale;
  }
}

std::vector<DrawnMark> DrawMarks(Image& image, const std::vector<MarkToDraw>& marks,
                                 const MarkStyle& style) {
  std::vector<DrawnMark> drawn(marks.size());
  if (!image.Valid()) return drawn;
  const int scale = style.label_scale > 0 ? style.label_scale : (image.width >= 1000 ? 2 : 1);
  const int pad = std::max(0, style.padding) * scale;

  // Colours are chosen against the pixels before anything is drawn.
  for (size_t i = 0; i < marks.size(); ++i) {
    DrawnMark& d = drawn[i];
    d.box = ClampToFrame(marks[i].box, image.width, image.height);
    d.drawn = !d.box.Empty();
    if (!d.drawn) continue;
    d.color = PickColor(i, MeanUnderOutline(image, d.box, style.thickness));
    d.text_color = Luma(d.color) > 150 ? Rgb{0, 0, 0} : Rgb{255, 255, 255};
  }
  for (const DrawnMark& d : drawn) {
    if (d.drawn) DrawRectOutline(image, d.box, d.color, style.thickness);
  }

  std::vector<Rect> placed;
  for (size_t i = 0; i < marks.size(); ++i) {
    DrawnMark& d = drawn[i];
    if (!d.drawn) continue;
    const int w = TextWidth(marks[i].label, scale) + 2 * pad;
    const int h = TextHeight(scale) + 2 * pad;
    const Rect candidates[] = {
        {d.box.x, d.box.y - h, w, h},                   // above, outside
        {d.box.x, d.box.y, w, h},                       // inside, top-left
        {d.box.x, d.box.Bottom(), w, h},                // below, outside
        {d.box.Right() - w, d.box.Bottom() - h, w, h},  // inside, bottom-right
    };
    // The first free place, else the one overlapping earlier labels least.
    Rect chosen;
    int64_t least = -1;
    for (const Rect& c : candidates) {
      const Rect inside = KeepInside(c, image.width, image.height);
      int64_t overlap = 0;
      for (const Rect& p : placed) overlap += Intersect(p, inside).Area();
      if (least < 0 || overlap < least) {
        chosen = inside;
        least = overlap;
      }
      if (overlap == 0) break;
    }
    d.label = ClampToFrame(chosen, image.width, image.height);
    placed.push_back(d.label);
    FillRect(image, d.label, d.color);
    DrawText(image, chosen.x + pad, chosen.y + pad, marks[i].label, d.text_color, scale);
  }
  return drawn;
}

}  // namespace uiscope
