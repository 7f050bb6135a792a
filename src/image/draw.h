// Drawing on an Image: filled and outlined rectangles, text in a tiny
// built-in bitmap font, and set-of-marks overlays (each element's box
// outlined and labelled with its ID, for a model to refer to by ID).
//
// All coordinates are image pixels; everything is clipped to the image.
// No font library: the font is 5x9 pixels per glyph (7 above the baseline,
// 2 below) covering digits, lower-case letters and _ - . : # ?; upper-case
// letters are drawn in lower case and anything else as '?'. IDs (btn_a3f2)
// need nothing more.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/geometry.h"
#include "image/image.h"

namespace uiscope {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
  bool operator==(const Rgb&) const = default;
  std::string Hex() const;  // "#rrggbb"
};

void FillRect(Image& image, const Rect& rect, Rgb color);
// An outline `thickness` pixels wide, drawn inside `rect`.
void DrawRectOutline(Image& image, const Rect& rect, Rgb color, int thickness);

constexpr int kGlyphWidth = 5;
constexpr int kGlyphHeight = 9;
// Size of `text` drawn at `scale` (each font pixel a scale x scale square),
// with one font pixel between glyphs.
int TextWidth(std::string_view text, int scale);
int TextHeight(int scale);
// Draws `text` with its top-left corner at (x, y); background untouched.
void DrawText(Image& image, int x, int y, std::string_view text, Rgb color, int scale);

struct MarkStyle {
  int thickness = 2;    // outline width in pixels
  int label_scale = 0;  // font scale; 0 = 2 on images at least 1000 pixels wide, else 1
  int padding = 1;      // pixels around the label text, in font pixels
};

struct MarkToDraw {
  Rect box;           // image pixels
  std::string label;  // usually the element's ID
};

struct DrawnMark {
  bool drawn = false;  // false when the box lies outside the image
  Rect box;            // the outline as drawn (clipped to the image)
  Rect label;          // the label's background box, inside the image
  Rgb color;           // outline and label background
  Rgb text_color;      // black or white, whichever contrasts with `color`
};

// Outlines every box and labels it. Colours come from a palette of
// saturated colours, each mark taking the next one that stands out from
// the pixels under its outline (so a red box is not drawn on a red
// button). A label sits above the box's top-left corner, else inside it,
// else below it, else inside at the bottom right: the first place that
// overlaps no earlier label (or overlaps them least), always inside the
// image. Outlines are drawn first, labels last, so no outline crosses a
// label. One DrawnMark per input, in order.
std::vector<DrawnMark> DrawMarks(Image& image, const std::vector<MarkToDraw>& marks,
                                 const MarkStyle& style = {});

}  // namespace uiscope
