// Unit tests of src/image: encoders (decoded back with the same libraries),
// resizing, drawing and set-of-marks, hashes.
#include "image/image.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>

#include "image/draw.h"
#include "image/image_hash.h"
#include "image/resize.h"
#include "image/test_decode.h"

namespace uiscope {
namespace {

Rgb PixelAt(const Image& image, int x, int y) {
  const uint8_t* p = image.Pixel(x, y);
  return {p[0], p[1], p[2]};
}

void SetPixel(Image& image, int x, int y, Rgb c) {
  uint8_t* p = image.Pixel(x, y);
  p[0] = c.r;
  p[1] = c.g;
  p[2] = c.b;
}

Image Filled(int w, int h, Rgb c) {
  Image image = MakeImage(w, h);
  FillRect(image, {0, 0, w, h}, c);
  return image;
}

// A small UI-like picture: a light background, a few flat boxes, text-like
// noise in one of them, a gradient bar. Deterministic.
Image UiLike(int w, int h) {
  Image image = Filled(w, h, {246, 245, 244});
  FillRect(image, {10, 10, w / 2, 30}, {255, 255, 255});
  DrawRectOutline(image, {10, 10, w / 2, 30}, {200, 200, 200}, 1);
  FillRect(image, {20, 60, 80, 24}, {53, 132, 228});
  std::mt19937 rng(42);
  for (int y = 15; y < std::min(35, h); ++y)
    for (int x = 15; x < w / 2; ++x)
      if (rng() % 5 == 0) SetPixel(image, x, y, {30, 30, 30});
  for (int x = 0; x < w; ++x)
    FillRect(image, {x, h - 10, 1, 10}, {static_cast<uint8_t>(x * 255 / w), 100, 50});
  return image;
}

double MeanAbsDiff(const Image& a, const Image& b) {
  double sum = 0;
  for (size_t i = 0; i < a.rgb.size(); ++i) sum += std::abs(int(a.rgb[i]) - int(b.rgb[i]));
  return sum / a.rgb.size();
}

// --- encoders -----------------------------------------------------------------

TEST(EncodeTest, PngRoundTripsExactly) {
  Image image = UiLike(317, 203);  // odd sizes: no row alignment luck
  auto png = EncodePng(image);
  ASSERT_TRUE(png.ok()) << png.error().ToString();
  EXPECT_EQ(png->rfind("\x89PNG", 0), 0u);
  auto back = test::DecodePng(*png);
  ASSERT_TRUE(back.ok()) << back.error().ToString();
  EXPECT_EQ(back->width, 317);
  EXPECT_EQ(back->height, 203);
  EXPECT_EQ(back->rgb, image.rgb);
}

TEST(EncodeTest, PngLevelsAllRoundTrip) {
  Image image = UiLike(64, 48);
  for (int level : {0, 1, 6, 9}) {
    auto png = EncodePng(image, {.compression_level = level});
    ASSERT_TRUE(png.ok()) << level;
    EXPECT_EQ(test::DecodePng(*png)->rgb, image.rgb) << level;
  }
  EXPECT_EQ(EncodePng(image, {.compression_level = 10}).error().code, ErrorCode::kInvalidArgument);
}

TEST(EncodeTest, WebpIsLosslessAndSmallerThanPngOnUi) {
  Image image = UiLike(640, 400);
  auto webp = EncodeWebp(image);
  ASSERT_TRUE(webp.ok()) << webp.error().ToString();
  auto back = test::DecodeWebp(*webp);
  ASSERT_TRUE(back.ok()) << back.error().ToString();
  EXPECT_EQ(back->width, 640);
  EXPECT_EQ(back->height, 400);
  EXPECT_EQ(back->rgb, image.rgb);
  EXPECT_LT(webp->size(), EncodePng(image)->size());
  auto slow = EncodeWebp(image, {.method = 4, .quality = 75});
  ASSERT_TRUE(slow.ok());
  EXPECT_EQ(test::DecodeWebp(*slow)->rgb, image.rgb);
  EXPECT_EQ(EncodeWebp(image, {.method = 7}).error().code, ErrorCode::kInvalidArgument);
}

TEST(EncodeTest, JpegDecodesCloseToTheOriginalAndQualityTradesSize) {
  Image image = UiLike(320, 240);
  auto high = EncodeJpeg(image, {.quality = 95});
  auto low = EncodeJpeg(image, {.quality = 30});
  ASSERT_TRUE(high.ok()) << high.error().ToString();
  ASSERT_TRUE(low.ok());
  EXPECT_LT(low->size(), high->size());
  auto back = test::DecodeJpeg(*high);
  ASSERT_TRUE(back.ok()) << back.error().ToString();
  EXPECT_EQ(back->width, 320);
  EXPECT_EQ(back->height, 240);
  EXPECT_LT(MeanAbsDiff(image, *back), 3.0);
  // Flat areas come back nearly exact.
  Rgb bg = PixelAt(*back, 300, 100);
  EXPECT_NEAR(bg.r, 246, 3);
  EXPECT_NEAR(bg.g, 245, 3);
  EXPECT_NEAR(bg.b, 244, 3);
  EXPECT_EQ(EncodeJpeg(image, {.quality = 0}).error().code, ErrorCode::kInvalidArgument);
}

TEST(EncodeTest, MalformedImagesAreRefused) {
  Image empty;
  Image short_buffer = MakeImage(10, 10);
  short_buffer.rgb.resize(10);
  for (const Image* bad : {&empty, &short_buffer}) {
    for (ImageEncoding e : {ImageEncoding::kPng, ImageEncoding::kWebp, ImageEncoding::kJpeg}) {
      EncodeOptions options;
      options.encoding = e;
      auto r = EncodeImage(*bad, options);
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
    }
  }
}

TEST(EncodeTest, EncodingNamesAndMimeTypes) {
  EXPECT_EQ(*ParseImageEncoding("png"), ImageEncoding::kPng);
  EXPECT_EQ(*ParseImageEncoding("webp"), ImageEncoding::kWebp);
  EXPECT_EQ(*ParseImageEncoding("jpg"), ImageEncoding::kJpeg);
  auto bad = ParseImageEncoding("gif");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("png, webp, jpeg"), std::string::npos);
  EXPECT_EQ(MimeType(ImageEncoding::kWebp), "image/webp");
  EXPECT_EQ(FileExtension(ImageEncoding::kJpeg), "jpg");
  Image image = UiLike(40, 30);
  for (ImageEncoding e : {ImageEncoding::kPng, ImageEncoding::kWebp, ImageEncoding::kJpeg}) {
    EncodeOptions options;
    options.encoding = e;
    auto bytes = EncodeImage(image, options);
    ASSERT_TRUE(bytes.ok());
    auto back = test::DecodeAny(*bytes);
    ASSERT_TRUE(back.ok()) << ImageEncodingName(e);
    EXPECT_EQ(back->width, 40);
  }
}

// --- resize -------------------------------------------------------------------

TEST(ResizeTest, FlatAreasStayExact) {
  Image image = Filled(301, 199, {17, 130, 250});
  auto small = ResizeArea(image, 123, 77);
  ASSERT_TRUE(small.ok());
  for (int y = 0; y < small->height; ++y)
    for (int x = 0; x < small->width; ++x)
      ASSERT_EQ(PixelAt(*small, x, y), (Rgb{17, 130, 250})) << x << "," << y;
}

TEST(ResizeTest, HalvingAveragesEachTwoByTwoBlock) {
  Image image = MakeImage(4, 2);
  // Block 1: black and white checkers -> mid grey. Block 2: a red column
  // and a blue column -> purple.
  SetPixel(image, 0, 0, {0, 0, 0});
  SetPixel(image, 1, 0, {255, 255, 255});
  SetPixel(image, 0, 1, {255, 255, 255});
  SetPixel(image, 1, 1, {0, 0, 0});
  SetPixel(image, 2, 0, {200, 0, 0});
  SetPixel(image, 2, 1, {200, 0, 0});
  SetPixel(image, 3, 0, {0, 0, 100});
  SetPixel(image, 3, 1, {0, 0, 100});
  auto half = ResizeArea(image, 2, 1);
  ASSERT_TRUE(half.ok());
  Rgb grey = PixelAt(*half, 0, 0);
  EXPECT_NEAR(grey.r, 128, 1);
  EXPECT_NEAR(grey.g, 128, 1);
  EXPECT_EQ(PixelAt(*half, 1, 0), (Rgb{100, 0, 50}));
}

TEST(ResizeTest, FractionalCoverageIsWeighted) {
  // 3 -> 2 pixels: output 0 covers source 0 fully and half of source 1.
  Image image = MakeImage(3, 1);
  SetPixel(image, 0, 0, {0, 0, 0});
  SetPixel(image, 1, 0, {240, 240, 240});
  SetPixel(image, 2, 0, {0, 0, 0});
  auto out = ResizeArea(image, 2, 1);
  ASSERT_TRUE(out.ok());
  EXPECT_NEAR(PixelAt(*out, 0, 0).r, 80, 1);  // (0 * 1 + 240 * 0.5) / 1.5
  EXPECT_NEAR(PixelAt(*out, 1, 0).r, 80, 1);
}

TEST(ResizeTest, DownscaleToWidthReportsTheScale) {
  auto d = DownscaleToWidth(Filled(1920, 1080, {1, 2, 3}), 1280);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->image.width, 1280);
  EXPECT_EQ(d->image.height, 720);
  EXPECT_DOUBLE_EQ(d->scale, 1280.0 / 1920.0);

  auto same = DownscaleToWidth(Filled(800, 600, {1, 2, 3}), 1280);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->image.width, 800);
  EXPECT_DOUBLE_EQ(same->scale, 1.0);
  EXPECT_DOUBLE_EQ(DownscaleToWidth(Filled(800, 600, {}), 0)->scale, 1.0);

  EXPECT_EQ(ResizeArea(Filled(10, 10, {}), 20, 10).error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(DownscaleToWidth(Filled(10, 10, {}), -1).error().code, ErrorCode::kInvalidArgument);
}

// --- drawing ------------------------------------------------------------------

TEST(DrawTest, OutlineIsDrawnInsideTheRectOnly) {
  Image image = Filled(50, 40, {255, 255, 255});
  DrawRectOutline(image, {10, 5, 20, 15}, {255, 0, 0}, 2);
  const Rgb red{255, 0, 0}, white{255, 255, 255};
  EXPECT_EQ(PixelAt(image, 10, 5), red);
  EXPECT_EQ(PixelAt(image, 11, 12), red);    // left edge, second column
  EXPECT_EQ(PixelAt(image, 29, 19), red);    // bottom-right corner
  EXPECT_EQ(PixelAt(image, 12, 12), white);  // inside
  EXPECT_EQ(PixelAt(image, 9, 5), white);    // just outside
  EXPECT_EQ(PixelAt(image, 30, 19), white);
  EXPECT_EQ(PixelAt(image, 20, 20), white);
}

TEST(DrawTest, ShapesAndTextAreClippedToTheImage) {
  Image image = Filled(20, 10, {0, 0, 0});
  FillRect(image, {-5, -5, 100, 100}, {1, 2, 3});
  EXPECT_EQ(PixelAt(image, 19, 9), (Rgb{1, 2, 3}));
  DrawRectOutline(image, {-10, -10, 15, 15}, {9, 9, 9}, 3);
  DrawText(image, 15, 5, "btn_a3f2", {255, 255, 255}, 3);  // runs off the right and bottom
  DrawText(image, -40, -40, "x", {255, 255, 255}, 1);
  SUCCEED();  // no out-of-bounds write (ASan build checks)
}

TEST(DrawTest, TextInkStaysInItsBoxAndUnderscoreSitsBelowTheBaseline) {
  const Rgb ink{255, 255, 255};
  Image image = Filled(100, 30, {0, 0, 0});
  DrawText(image, 3, 4, "ab_9", ink, 2);
  const int w = TextWidth("ab_9", 2), h = TextHeight(2);
  EXPECT_EQ(w, 4 * 12 - 2);
  EXPECT_EQ(h, 18);
  int inked = 0;
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      if (PixelAt(image, x, y) != ink) continue;
      ++inked;
      EXPECT_TRUE((Rect{3, 4, w, h}.Contains(Point{x, y}))) << x << "," << y;
    }
  }
  EXPECT_GT(inked, 50);
  // The underscore is the third glyph: its ink is on font row 7 only.
  const int ux = 3 + 2 * 12;
  EXPECT_EQ(PixelAt(image, ux + 4, 4 + 7 * 2), ink);
  EXPECT_NE(PixelAt(image, ux + 4, 4 + 6 * 2), ink);
  // Upper case is drawn as lower case; unknown characters as '?'.
  Image a = Filled(20, 20, {}), b = Filled(20, 20, {});
  DrawText(a, 0, 0, "A", ink, 1);
  DrawText(b, 0, 0, "a", ink, 1);
  EXPECT_EQ(a.rgb, b.rgb);
  Image q = Filled(20, 20, {}), star = Filled(20, 20, {});
  DrawText(q, 0, 0, "?", ink, 1);
  DrawText(star, 0, 0, "\xc3", ink, 1);
  EXPECT_EQ(q.rgb, star.rgb);
}

TEST(DrawTest, EveryIdCharacterHasItsOwnGlyph) {
  const std::string chars = "0123456789abcdefghijklmnopqrstuvwxyz_-.:#";
  std::vector<std::vector<uint8_t>> seen;
  for (char c : chars) {
    Image image = Filled(8, 12, {});
    DrawText(image, 0, 0, std::string(1, c), {255, 255, 255}, 1);
    for (const auto& other : seen) EXPECT_NE(other, image.rgb) << "glyph '" << c << "'";
    seen.push_back(image.rgb);
  }
}

TEST(MarksTest, OutlinesTakeTheMarkColourAndLabelsStayInside) {
  Image image = Filled(400, 300, {246, 245, 244});
  std::vector<MarkToDraw> marks = {
      {{0, 0, 100, 40}, "btn_0001"},      // at the top-left corner: no room above
      {{300, 260, 100, 40}, "txt_ffff"},  // at the bottom-right corner
      {{150, 100, 80, 30}, "chk_1234"},
      {{500, 500, 10, 10}, "lbl_gone"},  // outside the image
  };
  auto drawn = DrawMarks(image, marks);
  ASSERT_EQ(drawn.size(), 4u);
  EXPECT_FALSE(drawn[3].drawn);
  const Rect frame{0, 0, image.width, image.height};
  for (size_t i = 0; i < 3; ++i) {
    const DrawnMark& d = drawn[i];
    ASSERT_TRUE(d.drawn);
    EXPECT_TRUE(frame.Contains(d.label)) << marks[i].label;
    // Outline pixels away from any label carry the colour.
    const Rect& b = d.box;
    for (Point p : {Point{b.x, b.y + b.h / 2}, Point{b.Right() - 1, b.y + b.h / 2}}) {
      bool under_label = false;
      for (const DrawnMark& o : drawn) under_label |= o.drawn && o.label.Contains(p);
      if (!under_label) {
        EXPECT_EQ(PixelAt(image, p.x, p.y), d.color) << marks[i].label;
      }
    }
    // The label background has the colour and the text contrasts with it.
    EXPECT_EQ(PixelAt(image, d.label.x, d.label.y), d.color);
    EXPECT_NE(d.text_color, d.color);
  }
  // The first palette colours differ from one mark to the next.
  EXPECT_NE(drawn[0].color, drawn[1].color);
  EXPECT_NE(drawn[1].color, drawn[2].color);
  // Labels of these well-separated boxes do not overlap.
  EXPECT_TRUE(Intersect(drawn[0].label, drawn[2].label).Empty());
}

TEST(MarksTest, ColourStandsOutFromTheBackground) {
  // On a red button the red of the palette would vanish: another is taken.
  Image image = Filled(200, 100, {230, 25, 75});
  auto drawn = DrawMarks(image, {{{20, 20, 100, 40}, "btn_0001"}});
  ASSERT_TRUE(drawn[0].drawn);
  EXPECT_NE(drawn[0].color, (Rgb{230, 25, 75}));
  const int dr = drawn[0].color.r - 230, dg = drawn[0].color.g - 25, db = drawn[0].color.b - 75;
  EXPECT_GE(dr * dr + dg * dg + db * db, 150 * 150);
}

TEST(MarksTest, CrowdedLabelsAvoidEachOther) {
  Image image = Filled(600, 400, {255, 255, 255});
  // Two boxes stacked tightly: the second label must not sit on the first.
  auto drawn =
      DrawMarks(image, {{{100, 100, 200, 30}, "btn_aaaa"}, {{100, 130, 200, 30}, "btn_bbbb"}},
                MarkStyle{.label_scale = 1});
  EXPECT_TRUE(Intersect(drawn[0].label, drawn[1].label).Empty())
      << drawn[0].label.x << "," << drawn[0].label.y << " / " << drawn[1].label.x << ","
      << drawn[1].label.y;
  EXPECT_EQ(drawn[0].color.Hex().size(), 7u);
  EXPECT_EQ(Rgb({255, 0, 16}).Hex(), "#ff0010");
}

// --- hashes -------------------------------------------------------------------

TEST(HashTest, OnePixelChangesTheFrameHashAndExactlyOneTile) {
  Image a = UiLike(300, 200);
  Image b = a;
  EXPECT_EQ(HashImage(a), HashImage(b));
  SetPixel(b, 150, 130, {1, 2, 3});
  EXPECT_NE(HashImage(a), HashImage(b));

  TileHashes ta = HashTiles(a), tb = HashTiles(b);
  EXPECT_EQ(ta.columns, 5);  // 300 / 64 rounded up
  EXPECT_EQ(ta.rows, 4);
  EXPECT_NE(FrameHash(ta), FrameHash(tb));
  auto changed = ChangedTiles(ta, tb);
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(changed[0], (Rect{128, 128, 64, 64}));
  EXPECT_TRUE(changed[0].Contains(Point{150, 130}));
  EXPECT_TRUE(ChangedTiles(ta, ta).empty());
}

TEST(HashTest, EdgeTilesAreCutAndGeometryChangesMarkEverything) {
  Image a = UiLike(130, 70);
  TileHashes t = HashTiles(a, 64);
  ASSERT_EQ(t.hashes.size(), 6u);  // 3 x 2
  EXPECT_EQ(t.TileRect(2), (Rect{128, 0, 2, 64}));
  EXPECT_EQ(t.TileRect(5), (Rect{128, 64, 2, 6}));
  TileHashes other = HashTiles(a, 32);
  EXPECT_EQ(ChangedTiles(t, other).size(), other.hashes.size());
  EXPECT_NE(FrameHash(t), FrameHash(other));
}

TEST(HashTest, RegionHashDependsOnContentNotPlace) {
  Image image = Filled(100, 100, {9, 9, 9});
  FillRect(image, {10, 10, 20, 20}, {200, 0, 0});
  FillRect(image, {60, 50, 20, 20}, {200, 0, 0});
  EXPECT_EQ(HashRegion(image, {10, 10, 20, 20}), HashRegion(image, {60, 50, 20, 20}));
  EXPECT_NE(HashRegion(image, {10, 10, 20, 20}), HashRegion(image, {10, 10, 20, 21}));
  EXPECT_NE(HashRegion(image, {10, 10, 20, 20}), HashRegion(image, {0, 0, 20, 20}));
}

TEST(HashTest, HashesAreStableAcrossRuns) {
  // Stored hashes (cache keys, audit log) must not change between builds.
  // XXH3-64 is a fixed specification: this value holds on every machine.
  Image image = Filled(2, 1, {1, 2, 3});
  EXPECT_EQ(HashImage(image), 0x3346fc137980c84cull);
  EXPECT_NE(HashImage(image), HashImage(Filled(1, 2, {1, 2, 3})));  // same bytes, other shape
}

}  // namespace
}  // namespace uiscope
