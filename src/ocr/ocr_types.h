// What OCR returns: words and lines with their bounds and confidences.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "core/geometry.h"

namespace uiscope::ocr {

struct OcrWord {
  std::string text;      // UTF-8
  Rect bounds;           // screen pixels (OcrEngine::Read's origin added)
  float confidence = 0;  // 0..1, Tesseract's word confidence / 100
};

// Below this confidence, a word of 1-3 characters is a symbol OCR took for
// letters (gnome-calculator's π read as "Tl" at 0.64, title-bar icons as
// "cr" at 0.54, a combo's arrow as "v" at 0.68); words read as words score
// 0.8 and more. Longer words are text at any confidence the engine returns
// (a tab's "Page 1" on a tinted strip scores lower and is still text).
inline constexpr float kMinSymbolTextConfidence = 0.7f;

// Whether `w` was read as text rather than as a symbol taken for letters.
inline bool ReadAsText(const OcrWord& w) {
  return w.text.size() > 3 || w.confidence >= kMinSymbolTextConfidence;
}

// How surely `words` are text (Detection::name_confidence, core/merge.h):
// 1 when one of them was read as text, else the best of their confidences.
template <typename Words>
float TextConfidence(const Words& words) {
  float best = 0;
  for (const OcrWord& w : words) {
    if (w.text.size() > 3) return 1;
    best = std::max(best, w.confidence);
  }
  return best;
}

// One line of text as a person reads it: the words of one row, left to
// right; text far apart on the same row (columns) are separate lines.
struct OcrLine {
  std::string text;      // the words joined by single spaces
  Rect bounds;           // screen pixels, union of the words' regions
  float confidence = 0;  // mean of the words', weighted by their length
  std::vector<OcrWord> words;
};

struct OcrResult {
  std::vector<OcrLine> lines;  // top to bottom, then left to right
  std::string text;            // the lines joined by '\n'
  float confidence = 0;        // mean word confidence weighted by length; 0 with no words
  double processing_time_ms = 0;
  // Nothing was recognised: every region (or the whole unchanged image) came
  // from the cache.
  bool cached = false;
  int regions_read = 0;    // text regions recognised by the engine in this call
  int regions_reused = 0;  // text regions whose words came from the cache
  // Doubtful stretches of the lines read that were read a second time at
  // another scale (low-confidence words; see OcrEngine).
  int stretches_reread = 0;
  // Rows of the image searched for text lines: all of them on a first read,
  // the band that changed on a later read of the same place.
  int rows_searched = 0;

  // Every word of every line, in reading order.
  std::vector<OcrWord> Words() const;
};

}  // namespace uiscope::ocr
