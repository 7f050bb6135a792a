// Helpers shared by the OCR tests (tests only): PNG loading, text accuracy
// measures and a recording fake Recognizer.
#pragma once

#include <leptonica/allheaders.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "image/image.h"
#include "ocr/recognizer.h"

namespace uiscope::test {

struct PixDeleter {
  void operator()(Pix* p) const { pixDestroy(&p); }
};
using PixPtr = std::unique_ptr<Pix, PixDeleter>;

// A PNG as an RGB Image (empty when it cannot be read).
inline Image LoadPng(const std::string& path) {
  PixPtr pix(pixRead(path.c_str()));
  Image image;
  if (!pix) return image;
  PixPtr rgb(pixConvertTo32(pix.get()));
  image.width = static_cast<int>(pixGetWidth(rgb.get()));
  image.height = static_cast<int>(pixGetHeight(rgb.get()));
  image.rgb.resize(static_cast<size_t>(image.width) * image.height * 3);
  const l_uint32* data = pixGetData(rgb.get());
  const int wpl = pixGetWpl(rgb.get());
  uint8_t* out = image.rgb.data();
  for (int y = 0; y < image.height; ++y) {
    const l_uint32* line = data + static_cast<size_t>(y) * wpl;
    for (int x = 0; x < image.width; ++x) {
      l_int32 r, g, b;
      extractRGBValues(line[x], &r, &g, &b);
      *out++ = static_cast<uint8_t>(r);
      *out++ = static_cast<uint8_t>(g);
      *out++ = static_cast<uint8_t>(b);
    }
  }
  return image;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Lines without leading/trailing blanks, runs of blanks as one space, empty
// lines dropped: OCR does not report how many spaces separate two words.
inline std::string NormaliseSpaces(const std::string& text) {
  std::string out, line;
  std::istringstream in(text);
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string word, joined;
    while (words >> word) joined += (joined.empty() ? "" : " ") + word;
    if (joined.empty()) continue;
    out += (out.empty() ? "" : "\n") + joined;
  }
  return out;
}

inline size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// 1 - edit distance / length of the truth, over whitespace-normalised text.
inline double CharacterAccuracy(const std::string& truth, const std::string& read) {
  const std::string t = NormaliseSpaces(truth), r = NormaliseSpaces(read);
  if (t.empty()) return r.empty() ? 1.0 : 0.0;
  const double d = static_cast<double>(EditDistance(t, r));
  return std::max(0.0, 1.0 - d / static_cast<double>(t.size()));
}

// A Recognizer that reads nothing: every line comes back as one word
// "line<N>" (N counts calls) spanning the line's dark pixels, with the
// confidence `confidence(N)` (0.9 unless set). It records the images it was
// given, so tests see what OCR would have been shown.
class RecordingRecognizer final : public ocr::Recognizer {
 public:
  std::function<float(int call)> confidence = [](int) { return 0.9f; };

  std::vector<std::string> Languages() const override { return {"deu", "eng"}; }

  Result<std::vector<std::vector<ocr::RecognizedWord>>> Recognize(
      std::span<const ocr::LineImage> lines, const std::string& lang) override {
    if (auto st = ocr::CheckLanguage(lang, Languages()); !st.ok()) return st.error();
    std::lock_guard lock(mutex_);
    std::vector<std::vector<ocr::RecognizedWord>> out;
    for (const ocr::LineImage& line : lines) {
      seen_.push_back(line);
      int x0 = line.width, y0 = line.height, x1 = 0, y1 = 0;
      for (int y = 0; y < line.height; ++y) {
        for (int x = 0; x < line.width; ++x) {
          if (line.pixels[static_cast<size_t>(y) * line.width + x] < 128) {
            x0 = std::min(x0, x);
            y0 = std::min(y0, y);
            x1 = std::max(x1, x + 1);
            y1 = std::max(y1, y + 1);
          }
        }
      }
      if (x1 <= x0) {
        x0 = y0 = 0;
        x1 = line.width;
        y1 = line.height;
      }
      ++calls_;
      out.push_back(
          {{"line" + std::to_string(calls_), Rect{x0, y0, x1 - x0, y1 - y0}, confidence(calls_)}});
    }
    return out;
  }

  int calls() const {
    std::lock_guard lock(mutex_);
    return calls_;
  }
  std::vector<ocr::LineImage> seen() const {
    std::lock_guard lock(mutex_);
    return seen_;
  }

 private:
  mutable std::mutex mutex_;
  int calls_ = 0;
  std::vector<ocr::LineImage> seen_;
};

}  // namespace uiscope::test
