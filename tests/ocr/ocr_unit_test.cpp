// OCR without a display: the grey conversion and masks, hashes and the cache,
// the line finder, the engine's caching and increments (over a recording
// fake recognizer), and Tesseract itself on committed screen images.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <fstream>
#include <filesystem>
#include <thread>

#include "ocr/gray_image.h"
#include "ocr/layout_memory.h"
#include "ocr/line_finder.h"
#include "ocr/ocr_cache.h"
#include "ocr/ocr_engine.h"
#include "ocr_test_support.h"

namespace uiscope::ocr {
namespace {

using test::CharacterAccuracy;
using test::LoadPng;
using test::ReadFile;
using test::RecordingRecognizer;

const std::string kImages = UISCOPE_TEST_IMAGES;

Image Solid(int w, int h, uint8_t r, uint8_t g, uint8_t b) {
  Image image;
  image.width = w;
  image.height = h;
  image.rgb.resize(static_cast<size_t>(w) * h * 3);
  for (size_t i = 0; i < image.rgb.size(); i += 3) {
    image.rgb[i] = r;
    image.rgb[i + 1] = g;
    image.rgb[i + 2] = b;
  }
  return image;
}

void FillRect(Image& image, const Rect& r, uint8_t v) {
  for (int y = r.y; y < r.Bottom(); ++y) {
    std::memset(image.Pixel(r.x, y), v, static_cast<size_t>(r.w) * 3);
  }
}

// Copies rows [from, from + count) of `src` to row `to` of `dst`.
void CopyRows(const Image& src, int from, int count, Image& dst, int to) {
  std::memcpy(dst.Pixel(0, to), src.Pixel(0, from), static_cast<size_t>(src.width) * 3 * count);
}

// --- grey image and hashes --------------------------------------------------

TEST(GrayImageTest, ConvertsLumaAndFillsMasks) {
  Image image = Solid(8, 4, 200, 0, 0);
  const Rect mask{2, 1, 3, 2};
  GrayImage gray = ToGray(image, std::span<const Rect>(&mask, 1));
  ASSERT_EQ(gray.width, 8);
  ASSERT_EQ(gray.height, 4);
  EXPECT_EQ(gray.At(0, 0), (200 * 77) >> 8);
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 8; ++x) {
      EXPECT_EQ(gray.At(x, y) == kMaskFill, mask.Contains(Point{x, y})) << x << "," << y;
    }
  }
}

TEST(GrayImageTest, MasksOutsideTheImageAreClipped) {
  Image image = Solid(4, 4, 0, 0, 0);
  const Rect masks[] = {{-5, -5, 7, 7}, {100, 100, 5, 5}};
  GrayImage gray = ToGray(image, masks);
  EXPECT_EQ(gray.At(0, 0), kMaskFill);
  EXPECT_EQ(gray.At(1, 1), kMaskFill);
  EXPECT_EQ(gray.At(2, 2), 0);
}

TEST(HashTest, MaskedPixelsDoNotCountOthersDo) {
  Image a = Solid(32, 16, 10, 20, 30);
  const Rect mask{4, 4, 8, 8};
  const uint64_t before = HashImageMasked(a, std::span<const Rect>(&mask, 1), 7);
  FillRect(a, Rect{5, 5, 3, 3}, 255);  // inside the mask
  EXPECT_EQ(HashImageMasked(a, std::span<const Rect>(&mask, 1), 7), before);
  FillRect(a, Rect{20, 5, 3, 3}, 255);  // outside
  EXPECT_NE(HashImageMasked(a, std::span<const Rect>(&mask, 1), 7), before);
  EXPECT_NE(HashImageMasked(a, {}, 7), HashImageMasked(a, {}, 8)) << "the seed counts";
}

TEST(HashTest, RegionHashIsContentNotPlace) {
  GrayImage g;
  g.width = 20;
  g.height = 10;
  g.pixels.assign(200, 255);
  g.pixels[2 * 20 + 3] = 0;   // a dot at (3, 2)
  g.pixels[7 * 20 + 13] = 0;  // the same dot 10 right, 5 down
  EXPECT_EQ(HashRegion(g, Rect{2, 1, 4, 3}, 1), HashRegion(g, Rect{12, 6, 4, 3}, 1));
  EXPECT_NE(HashRegion(g, Rect{2, 1, 4, 3}, 1), HashRegion(g, Rect{2, 1, 4, 3}, 2));
  EXPECT_NE(HashRegion(g, Rect{2, 1, 4, 3}, 1), HashRegion(g, Rect{0, 0, 4, 3}, 1));
}

// CLI calls keep what they read (engine/read_text.h, OcrCacheFile): the
// regions survive a save and a load by the same recognizer, most recent
// first; another recognizer, a damaged or missing file is no cache.
TEST(OcrCacheTest, RegionsKeptInAFileAreReadBackByTheSameRecognizerOnly) {
  const std::string dir = ::testing::TempDir() + "uiscope-ocr-cache-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  const std::string file = dir + "/ocr-cache.bin";
  OcrCache written;
  for (uint64_t key = 1; key <= 5; ++key) {
    written.PutRegion(key, {OcrWord{"word " + std::to_string(key), Rect{1, 2, 30, 10}, 0.9f}});
  }
  EXPECT_TRUE(written.dirty());
  ASSERT_TRUE(written.SaveRegions(file, "tesseract 5.3.0", 3).ok());
  EXPECT_FALSE(written.dirty());
  EXPECT_EQ(std::filesystem::status(file).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);

  OcrCache read;
  read.LoadRegions(file, "tesseract 5.3.0");
  EXPECT_EQ(read.stats().regions, 3u) << "the 3 most recent";
  auto five = read.FindRegion(5);
  ASSERT_TRUE(five.has_value());
  ASSERT_EQ(five->size(), 1u);
  EXPECT_EQ((*five)[0].text, "word 5");
  EXPECT_EQ((*five)[0].bounds, (Rect{1, 2, 30, 10}));
  EXPECT_FLOAT_EQ((*five)[0].confidence, 0.9f);
  EXPECT_FALSE(read.FindRegion(1).has_value()) << "older than the 3 kept";
  EXPECT_FALSE(read.dirty()) << "nothing new read: nothing to write back";

  OcrCache other;
  other.LoadRegions(file, "tesseract 5.4.0");
  EXPECT_EQ(other.stats().regions, 0u) << "another recognizer reads differently";

  std::string bytes;
  {
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  for (size_t at : {size_t{30}, bytes.size() / 2, bytes.size() - 1}) {
    std::string damaged = bytes;
    damaged[at] ^= 0x5a;
    std::ofstream(file, std::ios::binary | std::ios::trunc) << damaged;
    OcrCache bad;
    bad.LoadRegions(file, "tesseract 5.3.0");
    EXPECT_EQ(bad.stats().regions, 0u) << "a byte changed at " << at;
  }
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() / 2);
  OcrCache cut;
  cut.LoadRegions(file, "tesseract 5.3.0");
  EXPECT_EQ(cut.stats().regions, 0u);
  OcrCache none;
  none.LoadRegions(dir + "/missing.bin", "tesseract 5.3.0");
  EXPECT_EQ(none.stats().regions, 0u);
  std::filesystem::remove_all(dir);
}

TEST(OcrCacheTest, RegionsAreLruBounded) {
  OcrCache cache(OcrCacheOptions{.max_regions = 2, .max_frames = 1});
  cache.PutRegion(1, {{"one", {}, 1}});
  cache.PutRegion(2, {{"two", {}, 1}});
  ASSERT_TRUE(cache.FindRegion(1).has_value());  // 1 is now the most recent
  cache.PutRegion(3, {{"three", {}, 1}});        // evicts 2
  EXPECT_FALSE(cache.FindRegion(2).has_value());
  ASSERT_TRUE(cache.FindRegion(1).has_value());
  EXPECT_EQ((*cache.FindRegion(3))[0].text, "three");
  OcrCache::Stats s = cache.stats();
  EXPECT_EQ(s.regions, 2u);
  EXPECT_EQ(s.region_misses, 1u);
  EXPECT_EQ(s.region_hits, 3u);
  cache.PutFrame(9, OcrResult{});
  cache.PutFrame(10, OcrResult{});
  EXPECT_FALSE(cache.FindFrame(9).has_value());
  EXPECT_TRUE(cache.FindFrame(10).has_value());
  cache.Clear();
  EXPECT_EQ(cache.stats().regions, 0u);
}

// --- line finder ------------------------------------------------------------

TEST(LineFinderTest, FindsEveryTerminalLine) {
  for (const char* file : {"/terminal.png", "/terminal_rv.png"}) {
    Image image = LoadPng(kImages + file);
    ASSERT_TRUE(image.Valid()) << file;
    std::vector<TextRegion> regions = FindTextRegions(ToGray(image));
    ASSERT_EQ(regions.size(), 8u) << file;
    for (size_t i = 0; i < regions.size(); ++i) {
      EXPECT_GE(regions[i].bounds.h, 10) << file << " line " << i;
      EXPECT_LE(regions[i].bounds.h, 20) << file << " line " << i;
      if (i > 0) {
        EXPECT_GE(regions[i].bounds.y, regions[i - 1].bounds.Bottom() - 1);
      }
    }
  }
}

TEST(LineFinderTest, IgnoresFramesSeparatorsAndEmptyBoxes) {
  Image image = Solid(300, 120, 240, 240, 240);
  // An entry's frame, a separator, an unchecked check box: no text.
  FillRect(image, Rect{10, 10, 200, 1}, 90);
  FillRect(image, Rect{10, 40, 200, 1}, 90);
  FillRect(image, Rect{10, 10, 1, 31}, 90);
  FillRect(image, Rect{209, 10, 1, 31}, 90);
  FillRect(image, Rect{0, 60, 300, 2}, 120);
  FillRect(image, Rect{20, 80, 14, 1}, 60);
  FillRect(image, Rect{20, 93, 14, 1}, 60);
  FillRect(image, Rect{20, 80, 1, 14}, 60);
  FillRect(image, Rect{33, 80, 1, 14}, 60);
  EXPECT_TRUE(FindTextRegions(ToGray(image)).empty());
  EXPECT_TRUE(FindTextRegions(ToGray(Solid(50, 50, 0, 0, 0))).empty());
}

TEST(LineFinderTest, UiLabelsAreSeparateFromTheirWidgets) {
  Image image = LoadPng(kImages + "/ui.png");
  ASSERT_TRUE(image.Valid());
  std::vector<TextRegion> regions = FindTextRegions(ToGray(image));
  EXPECT_GE(regions.size(), 25u);
  // No region is taller than a line of the fixture's largest text.
  for (const TextRegion& r : regions) EXPECT_LE(r.bounds.h, 40) << r.bounds.y;
}

TEST(LineFinderTest, WideLinesAreCutAtWordGapsIntoPiecesReadInParallel) {
  Image image = LoadPng(kImages + "/terminal.png");
  ASSERT_TRUE(image.Valid());
  const GrayImage gray = ToGray(image);
  const std::vector<TextRegion> whole = FindTextRegions(gray, LineFinderOptions{.max_aspect = 0});
  LineFinderOptions narrow;
  narrow.max_aspect = 8;
  const std::vector<TextRegion> cut = FindTextRegions(gray, narrow);
  EXPECT_GT(cut.size(), whole.size());
  for (const TextRegion& piece : cut) {
    // Pieces stay inside one whole line, and only those with no gap left
    // to cut at are wider than the limit.
    const bool inside = std::any_of(whole.begin(), whole.end(), [&](const TextRegion& w) {
      return Intersect(w.bounds, piece.bounds) == piece.bounds;
    });
    EXPECT_TRUE(inside) << piece.bounds.x << "," << piece.bounds.y;
  }
  // Every inked column of each whole line is in some piece (cuts are in gaps).
  for (const TextRegion& w : whole) {
    int covered = 0;
    for (const TextRegion& piece : cut) {
      if (Intersect(w.bounds, piece.bounds) == piece.bounds) covered += piece.bounds.w;
    }
    EXPECT_LE(covered, w.bounds.w);
    EXPECT_GT(covered, w.bounds.w * 3 / 4) << "line at y=" << w.bounds.y;
  }
}

// --- layout memory ------------------------------------------------------------

TEST(LayoutMemoryTest, OnlyTheChangedRowsAreSearchedAndTheResultIsTheFullOne) {
  // The terminal's text at the top of a taller terminal, blank below.
  const Image terminal = LoadPng(kImages + "/terminal.png");
  ASSERT_TRUE(terminal.Valid());
  const uint8_t* bg = terminal.Pixel(terminal.width - 1, terminal.height - 1);
  Image image = Solid(terminal.width, 600, bg[0], bg[1], bg[2]);
  CopyRows(terminal, 0, terminal.height, image, 0);
  LayoutMemory memory;
  const Layout first = memory.Find(image, Point{0, 0}, {});
  EXPECT_EQ(first.rows_searched, image.height);
  const Layout same = memory.Find(image, Point{0, 0}, {});
  EXPECT_EQ(same.rows_searched, 0);
  EXPECT_EQ(same.regions.size(), first.regions.size());

  // A new "line": copy the first text line's pixels over a blank stretch
  // below the last line, as a terminal printing one more line would.
  const Rect top = first.regions.front().bounds;
  const Rect last = first.regions.back().bounds;
  const int to = last.Bottom() + 4;
  Image changed = image;
  CopyRows(image, top.y - 1, top.h + 2, changed, to);
  const Layout later = memory.Find(changed, Point{0, 0}, {});
  EXPECT_GT(later.rows_searched, 0);
  EXPECT_LT(later.rows_searched, image.height / 2);
  // The same lines as a search of the whole changed image.
  const std::vector<TextRegion> full = FindTextRegions(ToGray(changed));
  ASSERT_EQ(later.regions.size(), full.size());
  for (size_t i = 0; i < full.size(); ++i) {
    EXPECT_EQ(later.regions[i].bounds, full[i].bounds) << i;
  }
  // Another place (origin) is searched in full.
  EXPECT_EQ(memory.Find(changed, Point{5, 0}, {}).rows_searched, image.height);
}

// --- the engine over a recording recognizer -----------------------------------

class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto fake = std::make_unique<RecordingRecognizer>();
    fake_ = fake.get();
    engine_ = std::make_unique<OcrEngine>(std::move(fake));
    terminal_ = LoadPng(kImages + "/terminal.png");
    ASSERT_TRUE(terminal_.Valid());
  }

  RecordingRecognizer* fake_ = nullptr;
  std::unique_ptr<OcrEngine> engine_;
  Image terminal_;
};

// Words read with low confidence get a second look at another scale; the
// better reading stays, a worse one is dropped.
TEST_F(EngineTest, DoubtfulWordsAreReadAgainAndTheBetterReadingStays) {
  const int lines = static_cast<int>(FindTextRegions(ToGray(terminal_)).size());
  fake_->confidence = [lines](int call) { return call <= lines ? 0.4f : 0.95f; };
  auto read = engine_->Read(terminal_, Point{0, 0}, OcrOptions{});
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->stretches_reread, lines);
  EXPECT_EQ(fake_->calls(), 2 * lines);
  for (const OcrWord& w : read->Words()) EXPECT_FLOAT_EQ(w.confidence, 0.95f) << w.text;
  // Second looks are magnified more than the first reading.
  const auto seen = fake_->seen();
  EXPECT_GT(seen[lines].height, seen[0].height);

  fake_->confidence = [lines](int call) { return call <= 3 * lines ? 0.5f : 0.1f; };
  auto worse = engine_->Read(terminal_, Point{0, 0}, OcrOptions{.use_cache = false});
  ASSERT_TRUE(worse.ok());
  for (const OcrWord& w : worse->Words()) EXPECT_FLOAT_EQ(w.confidence, 0.5f) << w.text;

  fake_->confidence = [](int) { return 0.9f; };
  auto sure = engine_->Read(terminal_, Point{0, 0}, OcrOptions{.use_cache = false});
  ASSERT_TRUE(sure.ok());
  EXPECT_EQ(sure->stretches_reread, 0);
}

TEST_F(EngineTest, SecondReadIsCachedAndRecognisesNothing) {
  auto first = engine_->Read(terminal_, Point{0, 0}, OcrOptions{});
  ASSERT_TRUE(first.ok()) << first.error().ToString();
  EXPECT_FALSE(first->cached);
  EXPECT_EQ(first->regions_read, 8);
  EXPECT_EQ(first->lines.size(), 8u);
  EXPECT_EQ(fake_->calls(), 8);

  auto second = engine_->Read(terminal_, Point{0, 0}, OcrOptions{});
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->cached);
  EXPECT_EQ(second->regions_read, 0);
  EXPECT_EQ(second->regions_reused, 8);
  EXPECT_EQ(second->text, first->text);
  EXPECT_EQ(fake_->calls(), 8);
}

TEST_F(EngineTest, OnlyTheChangedLineIsRecognisedAgain) {
  auto first = engine_->Read(terminal_, Point{0, 0}, OcrOptions{});
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->lines.size(), 8u);
  // Rub out the last word of line 5.
  Image changed = terminal_;
  const Rect word = first->lines[4].words.back().bounds;
  const Rect line = first->lines[4].bounds;
  FillRect(changed, Rect{line.Right() - 24, line.y, 24, line.h}, 0);
  (void)word;
  auto second = engine_->Read(changed, Point{0, 0}, OcrOptions{});
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->cached);
  EXPECT_EQ(second->regions_read, 1);
  EXPECT_EQ(second->regions_reused, 7);
  EXPECT_EQ(fake_->calls(), 9);
}

TEST_F(EngineTest, ScrolledLinesComeFromTheCache) {
  auto first = engine_->Read(terminal_, Point{0, 0}, OcrOptions{});
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->lines.size(), 8u);
  // Scroll up by one line: everything moves up, the bottom is blank. (The
  // line pitch is constant; one line's top depends on its tallest glyph.)
  const int pitch =
      static_cast<int>(std::lround((first->lines[7].bounds.y - first->lines[0].bounds.y) / 7.0));
  Image scrolled = Solid(terminal_.width, terminal_.height, 255, 255, 255);
  CopyRows(terminal_, pitch, terminal_.height - pitch, scrolled, 0);
  auto second = engine_->Read(scrolled, Point{0, 0}, OcrOptions{});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->regions_read, 0);
  EXPECT_TRUE(second->cached);
  EXPECT_EQ(second->lines.size(), 7u);
  EXPECT_EQ(second->lines[0].text, first->lines[1].text);
}

TEST_F(EngineTest, IdenticalLinesAreRecognisedOnce) {
  auto first = engine_->Read(terminal_, Point{0, 0}, OcrOptions{.use_cache = false});
  ASSERT_TRUE(first.ok());
  const Rect line = first->lines[7].bounds;  // the last line, printed twice below
  Image doubled = Solid(terminal_.width, line.h * 4 + 8, 255, 255, 255);
  CopyRows(terminal_, line.y - 2, line.h + 4, doubled, 0);
  CopyRows(terminal_, line.y - 2, line.h + 4, doubled, line.h * 2 + 2);
  const int before = fake_->calls();
  auto read = engine_->Read(doubled, Point{0, 0}, OcrOptions{});
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read->lines.size(), 2u);
  EXPECT_EQ(fake_->calls(), before + 1);
  EXPECT_EQ(read->lines[0].text, read->lines[1].text);
  EXPECT_EQ(read->lines[1].bounds.y - read->lines[0].bounds.y, line.h * 2 + 2);
}

TEST_F(EngineTest, ResultsAreInScreenPixels) {
  auto at_zero = engine_->Read(terminal_, Point{0, 0}, OcrOptions{.use_cache = false});
  auto moved = engine_->Read(terminal_, Point{100, 200}, OcrOptions{.use_cache = false});
  ASSERT_TRUE(at_zero.ok());
  ASSERT_TRUE(moved.ok());
  ASSERT_EQ(at_zero->lines.size(), moved->lines.size());
  for (size_t i = 0; i < at_zero->lines.size(); ++i) {
    EXPECT_EQ(moved->lines[i].bounds, at_zero->lines[i].bounds.Translated(100, 200));
    EXPECT_TRUE((Rect{0, 0, terminal_.width, terminal_.height}.Contains(at_zero->lines[i].bounds)));
  }
  // The frame cache is keyed by content: the same pixels elsewhere hit it.
  auto cached = engine_->Read(terminal_, Point{0, 0}, OcrOptions{});
  auto cached_moved = engine_->Read(terminal_, Point{100, 200}, OcrOptions{});
  ASSERT_TRUE(cached_moved.ok());
  EXPECT_TRUE(cached_moved->cached);
  EXPECT_EQ(cached_moved->lines[0].bounds, cached->lines[0].bounds.Translated(100, 200));
}

TEST_F(EngineTest, MaskedPixelsNeverReachTheRecognizer) {
  auto plain = engine_->Read(terminal_, Point{0, 0}, OcrOptions{.use_cache = false});
  ASSERT_TRUE(plain.ok());
  ASSERT_EQ(plain->lines.size(), 8u);
  // Mask line 3 (screen pixels: the image sits at 50, 60).
  const Rect line = plain->lines[2].bounds;
  const Rect mask = line.Translated(50, 60);
  const int before = static_cast<int>(fake_->seen().size());
  auto masked =
      engine_->Read(terminal_, Point{50, 60}, OcrOptions{}, std::span<const Rect>(&mask, 1));
  ASSERT_TRUE(masked.ok());
  EXPECT_EQ(masked->lines.size(), 7u);
  for (const OcrWord& w : masked->Words()) EXPECT_TRUE(Intersect(w.bounds, mask).Empty());
  // Every line the recognizer saw lies outside the mask: it was given 7.
  EXPECT_EQ(static_cast<int>(fake_->seen().size()) - before, 7);
}

TEST_F(EngineTest, OptionsAreValidated) {
  auto bad_lang = engine_->Read(terminal_, Point{0, 0}, OcrOptions{.lang = "klingon"});
  ASSERT_FALSE(bad_lang.ok());
  EXPECT_EQ(bad_lang.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(bad_lang.error().message.find("deu, eng"), std::string::npos)
      << bad_lang.error().message;
  EXPECT_TRUE(engine_->Read(terminal_, Point{0, 0}, OcrOptions{.lang = "eng+deu"}).ok());
  EXPECT_FALSE(engine_->Read(terminal_, Point{0, 0}, OcrOptions{.lang = "eng+"}).ok());
  auto bad_scale = engine_->Read(terminal_, Point{0, 0}, OcrOptions{.scale = 9});
  ASSERT_FALSE(bad_scale.ok());
  EXPECT_EQ(bad_scale.error().code, ErrorCode::kInvalidArgument);
  auto empty = engine_->Read(Image{}, Point{0, 0}, OcrOptions{});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(fake_->calls(), 8) << "only the eng+deu read recognised anything";
}

TEST_F(EngineTest, WithoutTheCacheEverythingIsReadAgain) {
  ASSERT_TRUE(engine_->Read(terminal_, Point{0, 0}, OcrOptions{}).ok());
  auto again = engine_->Read(terminal_, Point{0, 0}, OcrOptions{.use_cache = false});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->regions_read, 8);
  EXPECT_FALSE(again->cached);
  EXPECT_EQ(fake_->calls(), 16);
}

TEST_F(EngineTest, LightOnDarkLinesAreInverted) {
  Image rv = LoadPng(kImages + "/terminal_rv.png");
  ASSERT_TRUE(rv.Valid());
  ASSERT_TRUE(engine_->Read(rv, Point{0, 0}, OcrOptions{}).ok());
  for (const LineImage& line : fake_->seen()) {
    // Dark text on white: the margin (first row) is white.
    for (int x = 0; x < line.width; ++x) ASSERT_EQ(line.pixels[x], 255);
  }
}

// --- Tesseract --------------------------------------------------------------

class TesseractTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto engine = OcrEngine::CreateTesseract();
    ASSERT_TRUE(engine.ok()) << engine.error().ToString();
    engine_ = std::move(engine).value().release();
  }
  static void TearDownTestSuite() {
    delete engine_;
    engine_ = nullptr;
  }
  static OcrEngine* engine_;
};
OcrEngine* TesseractTest::engine_ = nullptr;

TEST_F(TesseractTest, ReadsTerminalTextAndItsReverseVideo) {
  const std::string truth = ReadFile(kImages + "/terminal.txt");
  for (const char* file : {"/terminal.png", "/terminal_rv.png"}) {
    Image image = LoadPng(kImages + file);
    ASSERT_TRUE(image.Valid());
    auto read = engine_->Read(image, Point{0, 0}, OcrOptions{.use_cache = false});
    ASSERT_TRUE(read.ok()) << read.error().ToString();
    EXPECT_GE(CharacterAccuracy(truth, read->text), 0.98) << file << ":\n" << read->text;
    EXPECT_GT(read->confidence, 0.8);
    for (const OcrLine& line : read->lines) {
      for (const OcrWord& w : line.words) {
        EXPECT_TRUE(line.bounds.Contains(w.bounds)) << w.text;
        EXPECT_GT(w.bounds.w, 0);
      }
    }
  }
}

TEST_F(TesseractTest, ReadsTheFixtureLabels) {
  Image image = LoadPng(kImages + "/ui.png");
  ASSERT_TRUE(image.Valid());
  auto read = engine_->Read(image, Point{0, 0}, OcrOptions{.use_cache = false});
  ASSERT_TRUE(read.ok());
  std::vector<std::string> words;
  for (const OcrWord& w : read->Words()) words.push_back(w.text);
  for (const char* label :
       {"File", "Email", "Password", "Remember", "me",       "Login",    "Not",  "logged",
        "in",   "25",    "Volume",   "General",  "Advanced", "settings", "Add",  "row",
        "Row",  "1",     "5",        "Open",     "OK",       "Cancel",   "Apply"}) {
    EXPECT_NE(std::find(words.begin(), words.end(), label), words.end())
        << label << " missing from:\n"
        << read->text;
  }
}

TEST_F(TesseractTest, UnknownLanguageNamesTheInstalledOnes) {
  auto read = engine_->Read(LoadPng(kImages + "/terminal.png"), Point{0, 0},
                            OcrOptions{.lang = "xx_nonexistent"});
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(read.error().message.find("installed languages: "), std::string::npos);
  EXPECT_NE(read.error().message.find("eng"), std::string::npos) << read.error().message;
  auto installed = InstalledLanguages();
  ASSERT_TRUE(installed.ok());
  EXPECT_NE(std::find(installed->begin(), installed->end(), "eng"), installed->end());
  EXPECT_EQ(std::find(installed->begin(), installed->end(), "osd"), installed->end());
}

TEST_F(TesseractTest, ConcurrentReadsShareThePool) {
  const Image image = LoadPng(kImages + "/terminal.png");
  const auto reference = engine_->Read(image, Point{0, 0}, OcrOptions{.use_cache = false});
  ASSERT_TRUE(reference.ok());
  std::vector<std::string> texts(3);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < texts.size(); ++i) {
    threads.emplace_back([&, i] {
      auto r = engine_->Read(image, Point{0, 0}, OcrOptions{.use_cache = false});
      texts[i] = r.ok() ? r->text : r.error().ToString();
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& t : texts) EXPECT_EQ(t, reference->text);
}

TEST(TesseractSetupTest, MissingTessdataIsUnavailableWithWhatToInstall) {
  auto engine = OcrEngine::CreateTesseract(TesseractOptions{.tessdata_dir = "/nonexistent/dir"});
  ASSERT_FALSE(engine.ok());
  EXPECT_EQ(engine.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(engine.error().message.find("/nonexistent/dir"), std::string::npos);
}

}  // namespace
}  // namespace uiscope::ocr
