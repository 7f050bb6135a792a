// OcrEngine: the text in an image, as words and lines with screen bounds and
// confidences (DESIGN §5.3), fast and cached.
//
// Pipeline of one Read:
//   1. the whole image (masked pixels left out) is hashed: an image read
//      before with the same options is answered from the cache;
//   2. it is converted to grey with the masks filled (password fields: their
//      pixels are never read), and its text lines are found by the line
//      finder (line_finder.h), a few milliseconds for a full screen;
//   3. each line region is hashed; regions read before come from the cache,
//      the others are prepared (light-on-dark inverted, contrast stretched,
//      scaled so small UI fonts read well, padded) and read in parallel by the
//      Recognizer (Tesseract pool, recognizer.h); the stretches around words
//      read with low confidence are read once more at another scale;
//   4. regions are assembled into lines in reading order, in screen pixels.
// So a changed screen costs only its changed lines: a terminal that printed
// one line re-reads one line.
//
// The engine and its cache live as long as their owner (the read_text tool
// keeps one for the server's lifetime): Tesseract is initialised once per
// worker and language, not per call.
//
// Thread safety: Read may be called from several threads at once.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/geometry.h"
#include "core/result.h"
#include "image/image.h"
#include "ocr/layout_memory.h"
#include "ocr/ocr_cache.h"
#include "ocr/ocr_types.h"
#include "ocr/recognizer.h"

namespace uiscope::ocr {

struct OcrOptions {
  // Magnification before recognition. 0 = per line, from its glyph height
  // (small UI and terminal fonts are read at about 2x); else 0.5 to 4.
  double scale = 0;
  std::string lang = "eng";  // an installed language, or several joined by '+'
  bool use_cache = true;     // false: read everything again (benchmarks)
};

// Checks scale and lang against `languages`; InvalidArgument says what is
// allowed.
Status ValidateOptions(const OcrOptions& options, const std::vector<std::string>& languages);

class OcrEngine {
 public:
  OcrEngine(std::unique_ptr<Recognizer> recognizer, OcrCacheOptions cache = {});

  // An engine over the Tesseract pool (Unavailable when no language data is
  // installed, with the package to install).
  static Result<std::unique_ptr<OcrEngine>> CreateTesseract(const TesseractOptions& options = {});

  // Reads the text of `image`, whose top-left pixel is at `origin` on the
  // screen; results are in screen pixels. `masks` (screen pixels) are
  // blanked before anything else looks at the pixels.
  Result<OcrResult> Read(const Image& image, Point origin, const OcrOptions& options,
                         std::span<const Rect> masks = {});

  std::vector<std::string> Languages() const { return recognizer_->Languages(); }
  std::string RecognizerIdentity() const { return recognizer_->Identity(); }
  OcrCache& cache() { return cache_; }

 private:
  std::unique_ptr<Recognizer> recognizer_;
  OcrCache cache_;
  LayoutMemory layouts_;
};

}  // namespace uiscope::ocr
