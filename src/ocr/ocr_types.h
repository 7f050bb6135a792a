// What OCR returns: words and lines with their bounds and confidences.
#pragma once

#include <string>
#include <vector>

#include "core/geometry.h"

namespace uiscope::ocr {

struct OcrWord {
  std::string text;      // UTF-8
  Rect bounds;           // screen pixels (OcrEngine::Read's origin added)
  float confidence = 0;  // 0..1, Tesseract's word confidence / 100
};

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
