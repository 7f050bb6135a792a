// ReadText (DESIGN §5.3, seed 000): the text on screen — the whole screen, a
// region or a window — as lines and words with screen bounds and
// confidences, through the OCR engine (src/ocr), cached by content.
//
// Password fields are masked before OCR: the accessibility tree of the
// desktop is observed first, and the pixels of every showing node with the
// password state are filled before the OCR engine converts the image, so
// neither Tesseract, the line finder nor the cache ever holds them.
//
// TextReader owns the OCR engine and its cache, so Tesseract is initialised
// once per worker and an unchanged region is answered from the cache; the
// read_text tool and `observe --sources ocr` keep one for their lifetime.
// Thread-safe: Read may be called from several threads (the desktop part runs
// under the workspace lease, OCR after it is released).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/geometry.h"
#include "core/result.h"
#include "engine/observe.h"
#include "engine/workspace.h"
#include "image/image.h"
#include "ocr/ocr_engine.h"

namespace uiscope {

struct ReadTextRequest {
  std::optional<Rect> region;  // screen pixels, clipped to the screen; exclusive with window
  // A window: an X window ID ("0x1e00007" or decimal) or the ID of a window
  // element from observe ("win_b253"). "" = none.
  std::string window;
  double scale = 0;          // 0 = automatic per line; else 0.5 to 4
  std::string lang = "eng";  // an installed Tesseract language, or several joined by '+'
  // Scope and deadline of the accessibility observation that locates
  // password fields and window elements.
  ObserveRequest observe;
};

struct ReadTextResult {
  ocr::OcrResult ocr;     // lines and words in screen pixels, text, confidence, cache counts
  Rect region;            // screen pixels read
  std::string display;    // ":N"
  int masked_fields = 0;  // password fields blanked before OCR
  double capture_ms = 0;
  double observe_ms = 0;  // locating password fields (and the window element)
  double total_ms = 0;    // the whole call: observe, capture, OCR
  std::vector<std::string> warnings;
};

class TextReader {
 public:
  explicit TextReader(ocr::TesseractOptions options = {});
  ~TextReader();
  TextReader(const TextReader&) = delete;
  TextReader& operator=(const TextReader&) = delete;

  // Reads the lease's desktop. Observes (for password fields and window
  // elements) and captures under the lease, then releases it before OCR, so
  // other tools are not held up by recognition. Errors: InvalidArgument (bad
  // region, region and window together, unknown language, bad scale),
  // NotFound (unknown window), Unsupported (a desktop without a screen),
  // Unavailable (no Tesseract data, or the X server went away). When the X
  // server went away, `*display_gone` is set: Workspace::Invalidate the
  // display so the next call reconnects.
  Result<ReadTextResult> Read(Workspace::Lease lease, const ReadTextRequest& request,
                              bool* display_gone = nullptr);

  // OCR of an image whose pixel (0, 0) is screen pixel `origin`, with
  // `masks` (screen pixels) blanked first. For `observe --sources ocr`, tests
  // and benchmarks.
  Result<ocr::OcrResult> ReadImage(const Image& image, Point origin, const ocr::OcrOptions& options,
                                   std::span<const Rect> masks = {});

  // The installed OCR languages; Unavailable without Tesseract data.
  Result<std::vector<std::string>> Languages();

  // The engine, created on first use (Unavailable without Tesseract data).
  Result<ocr::OcrEngine*> Engine();
  // Keeps the text line regions read in `file` (OcrCacheFile()): loaded
  // when the engine is created, saved (the kKeptRegions most recent) when
  // the reader is destroyed if it read anything new. For one-shot processes
  // (CLI calls), so that a call reads again what the previous one read for
  // the cost of a hash. Call before the first read.
  void KeepCacheIn(std::string file);
  static constexpr size_t kKeptRegions = 4096;

 private:
  ocr::TesseractOptions options_;
  std::mutex mutex_;
  std::unique_ptr<ocr::OcrEngine> engine_;
  std::string cache_file_;
};

// Where CLI calls keep the OCR regions they read: the state directory's
// ocr-cache.bin (0600, like the rest of it). The screen text it holds is
// what uiscope keeps between calls, so it follows the memory consent: kept
// only while learning is on (config "memory": {"learning": ...}), deleted
// by any `uiscope memory forget`.
std::string OcrCacheFile();

// The screen rectangles of the showing password fields in `roots`.
std::vector<Rect> PasswordFieldBounds(const std::vector<Node>& roots);

}  // namespace uiscope
