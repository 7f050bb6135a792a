// Recognizer: reads single text lines (prepared crops) into words.
//
// This is the part of OCR that needs an engine; everything around it (where
// the lines are, caching, coordinates) is uiscope's and lives in OcrEngine.
// The implementation is Tesseract (TessBaseAPI, LSTM, page segmentation
// "single line"): a pool of workers, one per core, each holding its own
// TessBaseAPI per language, initialised once on first use and reused for
// every later line. Tests may supply a recording fake.
//
// Thread safety: Recognize may be called from several threads at once; the
// lines of all calls share the pool.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/geometry.h"
#include "core/result.h"

namespace uiscope::ocr {

// One line of text to read: 8-bit grey, dark text on a light background,
// with a margin of background around the ink.
struct LineImage {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;  // width * height
  // The background is one flat colour (most UI and terminal text): a global
  // threshold separates the ink as well as a local one, at a fraction of the
  // cost. False for text on gradients, images or uneven fills, which get
  // Sauvola's local thresholds.
  bool flat_background = false;
};

struct RecognizedWord {
  std::string text;      // UTF-8
  Rect bounds;           // LineImage pixels
  float confidence = 0;  // 0..1
};

class Recognizer {
 public:
  virtual ~Recognizer() = default;

  // The languages that can be asked for (e.g. {"eng"}), sorted.
  virtual std::vector<std::string> Languages() const = 0;
  // What would read the same pixels differently if it changed (the engine,
  // its version, its trained data), for caches kept beyond one process;
  // "" = unknown, nothing read by it is kept.
  virtual std::string Identity() const { return ""; }

  // Reads every line in parallel; result i holds the words of lines[i], left
  // to right. `lang` is one installed language or several joined by '+'
  // ("eng+deu"); an unknown one is InvalidArgument naming the installed
  // ones.
  virtual Result<std::vector<std::vector<RecognizedWord>>> Recognize(
      std::span<const LineImage> lines, const std::string& lang) = 0;
};

struct TesseractOptions {
  int workers = 0;           // 0 = one per core
  std::string tessdata_dir;  // "" = $TESSDATA_PREFIX, else the installed tessdata
};

// The Tesseract pool. Unavailable (with the package to install) when no
// tessdata directory or no language is found. Worker threads start at once;
// each TessBaseAPI is created on the first line of its language.
Result<std::unique_ptr<Recognizer>> CreateTesseractRecognizer(const TesseractOptions& options = {});

// The languages installed in `tessdata_dir` ("" = $TESSDATA_PREFIX, else the
// installed tessdata), without starting anything; Unavailable (with the
// package to install) when there are none.
Result<std::vector<std::string>> InstalledLanguages(const std::string& tessdata_dir = "");

// "eng", "eng+deu": OK when every part is in `installed`, else
// InvalidArgument naming them.
Status CheckLanguage(const std::string& lang, const std::vector<std::string>& installed);

}  // namespace uiscope::ocr
