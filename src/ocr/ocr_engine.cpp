#include "ocr/ocr_engine.h"

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "ocr/line_finder.h"

namespace uiscope::ocr {
namespace {

// Automatic scale: lines are magnified until their tallest glyph is about
// kTargetGlyph pixels, in half steps (so a line's scale, part of its cache
// key, does not flicker with a pixel of height), at most kMaxAutoScale.
// Tesseract's LSTM resamples every line to a fixed height itself, so more
// magnification adds cost (the line image gets wider) but no detail. Small
// proportional UI fonts (10-12 px glyphs) read clearly better at 1.5x (no
// stray quote before an "A", higher confidences); 14 px terminal text reads
// as well at 1x as at 2x in two thirds of the time.
constexpr double kTargetGlyph = 16;
constexpr double kMaxAutoScale = 3;
// Margin of background around a line, as a share of its height (at least
// kMinPad pixels). It sets both the cost of a line and how well it reads:
// Tesseract cuts the line at its glyphs plus 4 pixels, clipped to the
// image, and resamples that box to the LSTM's fixed input height, so the
// narrower the margin, the larger the glyphs the LSTM sees and the more
// columns it has to read. 0.3 reads 10 pt terminal text at 99.4 % character
// accuracy (tests/fixtures/images/terminal.png; the tesseract CLI: 98.6 %).
// 0.6 reads a dense terminal screen about 20 % faster, but that text at
// 98.8 % and the fixture's "Row 1" as "Rowl": accuracy comes first.
constexpr double kMarginShare = 0.3;
constexpr int kMinPad = 5;

constexpr float kMinWordConfidence = 0.3f;
constexpr float kMinSymbolConfidence = 0.5f;  // words without a letter or digit
constexpr double kMinScale = 0.5;
constexpr double kMaxScale = 4;

// A region's neighbours on the same row further than this many line heights
// away start another line (a second column, a far-away label).
constexpr double kLineGapFactor = 3.0;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

double AutoScale(int glyph_height) {
  if (glyph_height <= 0) return 1;
  return std::clamp(std::round(2 * kTargetGlyph / glyph_height) / 2, 1.0, kMaxAutoScale);
}

// What besides the pixels decides a reading: the language and the scale
// asked for. (The cache is per process, so the preparation code cannot
// change under it.)
uint64_t OptionsSeed(const OcrOptions& options) {
  std::string key = options.lang;
  key.push_back('\0');
  key += std::to_string(options.scale);
  return XXH3_64bits(key.data(), key.size());
}

uint64_t Mix(uint64_t seed, double scale) {
  uint64_t bits = 0;
  std::memcpy(&bits, &scale, sizeof(bits));
  return XXH3_64bits_withSeed(&bits, sizeof(bits), seed);
}

// --- line preparation -------------------------------------------------------

struct PreparedLine {
  LineImage image;
  double scale = 1;
  int pad = 0;
};

// Dark text on a light background, contrast stretched so the ink is black
// and the background white, scaled, with a margin of background: what
// Tesseract's LSTM reads best. Light-on-dark lines (terminals with -rv,
// selected rows, dark themes) are inverted here, per line.
PreparedLine PrepareLine(const GrayImage& gray, const Rect& r, double scale) {
  std::array<int, 256> histogram{};
  for (int y = r.y; y < r.Bottom(); ++y) {
    const uint8_t* row = gray.Row(y) + r.x;
    for (int x = 0; x < r.w; ++x) ++histogram[row[x]];
  }
  const int background =
      static_cast<int>(std::max_element(histogram.begin(), histogram.end()) - histogram.begin());
  // Ink is the minority far from the background: darker or lighter?
  constexpr int kInkStep = 40;
  int64_t darker = 0, lighter = 0;
  for (int v = 0; v < 256; ++v) {
    if (v <= background - kInkStep) darker += histogram[v];
    if (v >= background + kInkStep) lighter += histogram[v];
  }
  const bool invert = lighter > darker;
  // Flat: the background colour (within a few levels, for dithering) covers
  // a large share of the crop. A tight crop of text is mostly background;
  // on a gradient the mode holds only a thin slice of it.
  constexpr int kFlatSpread = 6;
  constexpr double kFlatShare = 0.45;
  int64_t near_background = 0;
  for (int v = std::max(0, background - kFlatSpread); v <= std::min(255, background + kFlatSpread);
       ++v) {
    near_background += histogram[v];
  }
  std::array<int, 256> lut{};
  for (int v = 0; v < 256; ++v) lut[v] = invert ? 255 - v : v;
  const int bg = lut[background];
  // The darkest ink after inversion: its 2nd percentile, robust to a stray
  // pixel of another colour.
  const int64_t total = int64_t{r.w} * r.h;
  int64_t seen = 0;
  int ink = bg;
  for (int i = 0; i < 256; ++i) {
    const int v = invert ? 255 - i : i;  // ascending in output values
    seen += histogram[v];
    if (seen * 50 >= total) {
      ink = i;
      break;
    }
  }
  if (bg - ink >= 24) {
    for (int v = 0; v < 256; ++v) {
      const int o = lut[v];
      lut[v] = o >= bg ? 255 : std::clamp((o - ink) * 255 / (bg - ink), 0, 255);
    }
  } else {
    for (int v = 0; v < 256; ++v) lut[v] = lut[v] >= bg ? 255 : lut[v];
  }

  PreparedLine out;
  out.scale = scale;
  out.image.flat_background =
      static_cast<double>(near_background) >= kFlatShare * static_cast<double>(r.w) * r.h;
  const int w = std::max(1, static_cast<int>(std::lround(r.w * scale)));
  const int h = std::max(1, static_cast<int>(std::lround(r.h * scale)));
  out.pad = std::max(kMinPad, static_cast<int>(h * kMarginShare));
  LineImage& li = out.image;
  li.width = w + 2 * out.pad;
  li.height = h + 2 * out.pad;
  li.pixels.assign(static_cast<size_t>(li.width) * li.height, 255);
  if (scale == 1.0) {
    for (int y = 0; y < r.h; ++y) {
      const uint8_t* src = gray.Row(r.y + y) + r.x;
      uint8_t* dst = li.pixels.data() + static_cast<size_t>(y + out.pad) * li.width + out.pad;
      for (int x = 0; x < r.w; ++x) dst[x] = static_cast<uint8_t>(lut[src[x]]);
    }
    return out;
  }
  // Bilinear: smooth edges keep the LSTM's view of the strokes (nearest
  // neighbour makes staircases of anti-aliased glyphs).
  std::vector<int> x0(w), x1(w);
  std::vector<int> fx(w);  // 0..256
  for (int x = 0; x < w; ++x) {
    double src = std::clamp((x + 0.5) / scale - 0.5, 0.0, r.w - 1.0);
    x0[x] = static_cast<int>(src);
    x1[x] = std::min(x0[x] + 1, r.w - 1);
    fx[x] = static_cast<int>((src - x0[x]) * 256);
  }
  for (int y = 0; y < h; ++y) {
    double src = std::clamp((y + 0.5) / scale - 0.5, 0.0, r.h - 1.0);
    const int y0 = static_cast<int>(src);
    const int y1 = std::min(y0 + 1, r.h - 1);
    const int fy = static_cast<int>((src - y0) * 256);
    const uint8_t* a = gray.Row(r.y + y0) + r.x;
    const uint8_t* b = gray.Row(r.y + y1) + r.x;
    uint8_t* dst = li.pixels.data() + static_cast<size_t>(y + out.pad) * li.width + out.pad;
    for (int x = 0; x < w; ++x) {
      const int top = lut[a[x0[x]]] * (256 - fx[x]) + lut[a[x1[x]]] * fx[x];
      const int bottom = lut[b[x0[x]]] * (256 - fx[x]) + lut[b[x1[x]]] * fx[x];
      dst[x] = static_cast<uint8_t>((top * (256 - fy) + bottom * fy) >> 16);
    }
  }
  return out;
}

bool HasAlnum(const std::string& s) {
  for (unsigned char c : s) {
    if (std::isalnum(c) || c >= 0x80) return true;
  }
  return false;
}

// A box of a prepared line's pixels in coordinates relative to the region.
Rect ToRegionRect(const Rect& box, const PreparedLine& line, const Rect& region) {
  auto map = [&](int v) { return (v - line.pad) / line.scale; };
  const int x0 = std::clamp(static_cast<int>(std::floor(map(box.x))), 0, region.w);
  const int y0 = std::clamp(static_cast<int>(std::floor(map(box.y))), 0, region.h);
  const int x1 = std::clamp(static_cast<int>(std::ceil(map(box.Right()))), x0, region.w);
  const int y1 = std::clamp(static_cast<int>(std::ceil(map(box.Bottom()))), y0, region.h);
  return Rect{x0, y0, x1 - x0, y1 - y0};
}

// Words of a prepared line, in coordinates relative to the region.
std::vector<OcrWord> ToRegionWords(const std::vector<RecognizedWord>& words,
                                   const PreparedLine& line, const Rect& region) {
  std::vector<OcrWord> out;
  for (const RecognizedWord& w : words) {
    if (w.text.find_first_not_of(" \t\n") == std::string::npos) continue;
    // Icons, window decorations and box corners come back as low-confidence
    // junk ("P@Ie1nF:" at 0.00 for a title bar's buttons). On the terminals
    // of bench/ocr, words under 0.3 were wrong 21 times out of 24.
    if (w.confidence < kMinWordConfidence) continue;
    if (!HasAlnum(w.text) && w.confidence < kMinSymbolConfidence) continue;
    out.push_back({w.text, ToRegionRect(w.bounds, line, region), w.confidence});
  }
  return out;
}

// Second looks: a word read with low confidence is often a scale that
// happens to sit badly on its glyphs ("Row 1" at 1.5x reads "Rowl1" at
// 0.11; at 2x "Row 1" at 0.96). The stretch of the line around each such
// word (kept or dropped), and only that, is read again at a neighbouring
// scale, and the better reading of the stretch stays.
constexpr float kSecondLookBelow = 0.6f;

// Stretches of the region (region coordinates, full height) around its
// doubtful words, widened by half a line height on each side so a word cut
// in two is read whole, overlapping stretches joined.
std::vector<Rect> DoubtfulSpans(const std::vector<RecognizedWord>& words, const PreparedLine& line,
                                const Rect& region) {
  std::vector<Rect> spans;
  const int margin = std::max(2, region.h / 2);
  for (const RecognizedWord& w : words) {
    if (w.confidence >= kSecondLookBelow || !HasAlnum(w.text)) continue;
    const Rect box = ToRegionRect(w.bounds, line, region);
    const int x0 = std::max(0, box.x - margin);
    const int x1 = std::min(region.w, box.Right() + margin);
    if (x1 <= x0) continue;
    if (!spans.empty() && x0 <= spans.back().Right()) {
      spans.back().w = std::max(spans.back().Right(), x1) - spans.back().x;
    } else {
      spans.push_back(Rect{x0, 0, x1 - x0, region.h});
    }
  }
  return spans;
}

// The neighbouring scale a hard line is read at: half a step up (more
// pixels per stroke), or down when already at the largest scale.
double SecondScale(double scale) { return scale + 0.5 <= kMaxScale ? scale + 0.5 : scale - 0.5; }

// How much a reading says: its confident characters. A reading that drops a
// doubtful word loses that word's characters; one that reads more with
// equal confidence wins.
double ReadingScore(const std::vector<OcrWord>& words) {
  double score = 0;
  for (const OcrWord& w : words) score += w.confidence * static_cast<double>(w.text.size());
  return score;
}

// --- assembly ---------------------------------------------------------------

struct RegionWords {
  Rect bounds;  // image pixels
  std::vector<OcrWord> words;
};

float WeightedConfidence(const std::vector<OcrWord>& words) {
  double sum = 0, weight = 0;
  for (const OcrWord& w : words) {
    const double n = static_cast<double>(std::max<size_t>(1, w.text.size()));
    sum += w.confidence * n;
    weight += n;
  }
  return weight > 0 ? static_cast<float>(sum / weight) : 0.0f;
}

OcrLine MakeLine(std::vector<OcrWord> words) {
  OcrLine line;
  for (const OcrWord& w : words) {
    line.bounds = line.words.empty() ? w.bounds : Union(line.bounds, w.bounds);
    if (!line.text.empty()) line.text += ' ';
    line.text += w.text;
    line.words.push_back(w);
  }
  line.confidence = WeightedConfidence(line.words);
  return line;
}

std::vector<OcrLine> AssembleLines(std::vector<RegionWords> regions) {
  std::erase_if(regions, [](const RegionWords& r) { return r.words.empty(); });
  std::sort(regions.begin(), regions.end(), [](const RegionWords& a, const RegionWords& b) {
    return a.bounds.y != b.bounds.y ? a.bounds.y < b.bounds.y : a.bounds.x < b.bounds.x;
  });
  // Rows: regions whose vertical extents overlap by half the smaller height.
  struct Row {
    int y0, y1;
    std::vector<RegionWords*> members;
  };
  std::vector<Row> rows;
  for (RegionWords& r : regions) {
    Row* target = nullptr;
    for (auto it = rows.rbegin(); it != rows.rend() && it->y1 > r.bounds.y - r.bounds.h; ++it) {
      const int overlap = std::min(it->y1, r.bounds.Bottom()) - std::max(it->y0, r.bounds.y);
      if (overlap * 2 >= std::min(it->y1 - it->y0, r.bounds.h)) {
        target = &*it;
        break;
      }
    }
    if (!target) {
      rows.push_back({r.bounds.y, r.bounds.Bottom(), {}});
      target = &rows.back();
    }
    target->members.push_back(&r);
  }
  std::vector<OcrLine> lines;
  for (Row& row : rows) {
    std::sort(row.members.begin(), row.members.end(),
              [](const RegionWords* a, const RegionWords* b) { return a->bounds.x < b->bounds.x; });
    std::vector<OcrWord> words;
    int right = 0;
    for (const RegionWords* r : row.members) {
      const int height = std::max(r->bounds.h, row.y1 - row.y0);
      if (!words.empty() && r->bounds.x - right > kLineGapFactor * height) {
        lines.push_back(MakeLine(std::move(words)));
        words.clear();
      }
      words.insert(words.end(), r->words.begin(), r->words.end());
      right = std::max(right, r->bounds.Right());
    }
    if (!words.empty()) lines.push_back(MakeLine(std::move(words)));
  }
  std::stable_sort(lines.begin(), lines.end(), [](const OcrLine& a, const OcrLine& b) {
    // Same row (overlapping by half): left to right; else top to bottom.
    const int overlap =
        std::min(a.bounds.Bottom(), b.bounds.Bottom()) - std::max(a.bounds.y, b.bounds.y);
    if (overlap * 2 >= std::min(a.bounds.h, b.bounds.h)) return a.bounds.x < b.bounds.x;
    return a.bounds.y < b.bounds.y;
  });
  return lines;
}

void Finish(OcrResult& result) {
  result.text.clear();
  std::vector<OcrWord> all;
  for (const OcrLine& l : result.lines) {
    if (!result.text.empty()) result.text += '\n';
    result.text += l.text;
    all.insert(all.end(), l.words.begin(), l.words.end());
  }
  result.confidence = WeightedConfidence(all);
}

void Translate(OcrResult& result, Point by) {
  for (OcrLine& l : result.lines) {
    l.bounds = l.bounds.Translated(by.x, by.y);
    for (OcrWord& w : l.words) w.bounds = w.bounds.Translated(by.x, by.y);
  }
}

}  // namespace

std::vector<OcrWord> OcrResult::Words() const {
  std::vector<OcrWord> all;
  for (const OcrLine& l : lines) all.insert(all.end(), l.words.begin(), l.words.end());
  return all;
}

Status ValidateOptions(const OcrOptions& options, const std::vector<std::string>& languages) {
  if (options.scale != 0 && !(options.scale >= kMinScale && options.scale <= kMaxScale)) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        "scale must be 0 (automatic) or between 0.5 and 4, got " + std::to_string(options.scale));
  }
  return CheckLanguage(options.lang, languages);
}

OcrEngine::OcrEngine(std::unique_ptr<Recognizer> recognizer, OcrCacheOptions cache)
    : recognizer_(std::move(recognizer)), cache_(cache) {}

Result<std::unique_ptr<OcrEngine>> OcrEngine::CreateTesseract(const TesseractOptions& options) {
  auto recognizer = CreateTesseractRecognizer(options);
  if (!recognizer.ok()) return recognizer.error();
  return std::make_unique<OcrEngine>(std::move(recognizer).value());
}

Result<OcrResult> OcrEngine::Read(const Image& image, Point origin, const OcrOptions& options,
                                  std::span<const Rect> masks) {
  const auto start = std::chrono::steady_clock::now();
  if (!image.Valid()) {
    return MakeError(ErrorCode::kInvalidArgument, "OCR needs a non-empty image, got " +
                                                      std::to_string(image.width) + "x" +
                                                      std::to_string(image.height));
  }
  if (auto st = ValidateOptions(options, recognizer_->Languages()); !st.ok()) return st.error();
  std::vector<Rect> local_masks;
  for (const Rect& m : masks) local_masks.push_back(m.Translated(-origin.x, -origin.y));

  const uint64_t seed = OptionsSeed(options);
  uint64_t frame_key = 0;
  if (options.use_cache) {
    frame_key = HashImageMasked(image, local_masks, seed);
    if (auto hit = cache_.FindFrame(frame_key)) {
      OcrResult result = std::move(*hit);
      result.regions_reused += result.regions_read;
      result.regions_read = 0;
      result.cached = true;
      Translate(result, origin);
      result.processing_time_ms = Seconds(start) * 1000;
      return result;
    }
  }

  Layout layout;
  if (options.use_cache) {
    layout = layouts_.Find(image, origin, local_masks);
  } else {
    layout.gray = ToGray(image, local_masks);
    layout.regions = FindTextRegions(layout.gray);
    layout.rows_searched = image.height;
  }
  const GrayImage& gray = layout.gray;
  const std::vector<TextRegion>& regions = layout.regions;

  std::vector<RegionWords> found(regions.size());
  std::vector<uint64_t> keys(regions.size());
  std::vector<PreparedLine> prepared;
  std::vector<size_t> prepared_region;  // region index of each prepared line
  std::unordered_map<uint64_t, size_t> first_with_key;
  std::vector<std::pair<size_t, size_t>> twins;  // (region, region with the same pixels)
  int reused = 0;
  int result_retried = 0;
  for (size_t i = 0; i < regions.size(); ++i) {
    const Rect& r = regions[i].bounds;
    found[i].bounds = r;
    const double scale = options.scale > 0 ? options.scale : AutoScale(regions[i].glyph_height);
    keys[i] = HashRegion(gray, r, Mix(seed, scale));
    if (auto it = first_with_key.find(keys[i]); it != first_with_key.end()) {
      twins.emplace_back(i, it->second);
      ++reused;
      continue;
    }
    first_with_key.emplace(keys[i], i);
    if (options.use_cache) {
      if (auto words = cache_.FindRegion(keys[i])) {
        for (OcrWord& w : *words) w.bounds = w.bounds.Translated(r.x, r.y);
        found[i].words = std::move(*words);
        ++reused;
        continue;
      }
    }
    prepared.push_back(PrepareLine(gray, r, scale));
    prepared_region.push_back(i);
  }

  if (!prepared.empty()) {
    std::vector<LineImage> lines;
    lines.reserve(prepared.size());
    for (PreparedLine& p : prepared) lines.push_back(std::move(p.image));
    auto recognized = recognizer_->Recognize(lines, options.lang);
    if (!recognized.ok()) return recognized.error();
    std::vector<std::vector<OcrWord>> words(prepared.size());
    for (size_t k = 0; k < prepared.size(); ++k) {
      words[k] = ToRegionWords((*recognized)[k], prepared[k], regions[prepared_region[k]].bounds);
    }
    // Second looks at the doubtful stretches of each line (see
    // kSecondLookBelow), all in one batch.
    struct Stretch {
      size_t line;  // index into prepared
      Rect span;    // region coordinates
      PreparedLine prepared;
    };
    std::vector<Stretch> stretches;
    std::vector<LineImage> stretch_images;
    for (size_t k = 0; k < prepared.size(); ++k) {
      const Rect& r = regions[prepared_region[k]].bounds;
      for (const Rect& span : DoubtfulSpans((*recognized)[k], prepared[k], r)) {
        PreparedLine p =
            PrepareLine(gray, span.Translated(r.x, r.y), SecondScale(prepared[k].scale));
        stretch_images.push_back(std::move(p.image));
        stretches.push_back({k, span, std::move(p)});
      }
    }
    if (!stretches.empty()) {
      auto second = recognizer_->Recognize(stretch_images, options.lang);
      if (!second.ok()) return second.error();
      for (size_t n = 0; n < stretches.size(); ++n) {
        Stretch& st = stretches[n];
        std::vector<OcrWord> other = ToRegionWords((*second)[n], st.prepared, st.span);
        for (OcrWord& w : other) w.bounds = w.bounds.Translated(st.span.x, 0);
        // The first reading's words whose centre lies in the stretch.
        std::vector<OcrWord>& line_words = words[st.line];
        auto in_span = [&](const OcrWord& w) {
          const int cx = w.bounds.x + w.bounds.w / 2;
          return cx >= st.span.x && cx < st.span.Right();
        };
        std::vector<OcrWord> first;
        for (const OcrWord& w : line_words) {
          if (in_span(w)) first.push_back(w);
        }
        if (ReadingScore(other) <= ReadingScore(first)) continue;
        std::erase_if(line_words, in_span);
        line_words.insert(line_words.end(), other.begin(), other.end());
        std::sort(line_words.begin(), line_words.end(),
                  [](const OcrWord& a, const OcrWord& b) { return a.bounds.x < b.bounds.x; });
      }
      result_retried = static_cast<int>(stretches.size());
    }
    for (size_t k = 0; k < prepared.size(); ++k) {
      const size_t i = prepared_region[k];
      const Rect& r = regions[i].bounds;
      if (options.use_cache) cache_.PutRegion(keys[i], words[k]);
      for (OcrWord& w : words[k]) w.bounds = w.bounds.Translated(r.x, r.y);
      found[i].words = std::move(words[k]);
    }
  }
  for (const auto& [i, twin] : twins) {
    found[i].words = found[twin].words;
    for (OcrWord& w : found[i].words) {
      w.bounds = w.bounds.Translated(regions[i].bounds.x - regions[twin].bounds.x,
                                     regions[i].bounds.y - regions[twin].bounds.y);
    }
  }

  OcrResult result;
  result.lines = AssembleLines(std::move(found));
  Finish(result);
  result.regions_read = static_cast<int>(prepared.size());
  result.regions_reused = reused;
  result.stretches_reread = result_retried;
  result.rows_searched = layout.rows_searched;
  result.cached = result.regions_read == 0;
  if (options.use_cache) cache_.PutFrame(frame_key, result);
  Translate(result, origin);
  result.processing_time_ms = Seconds(start) * 1000;
  return result;
}

}  // namespace uiscope::ocr
