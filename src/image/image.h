// Image: an owned RGB pixel buffer (8 bits per channel, rows top to bottom),
// and its encodings: PNG (libpng), WebP lossless (libwebp), JPEG
// (libjpeg-turbo). Pure C++ apart from those libraries; no X11 here.
//
// The encoders are tuned for UI screenshots (large flat areas, sharp text)
// and for speed: a screenshot is encoded on every tool call, so a few percent
// of size never pays for several times the time. bench/capture measures the
// choices below on a 1920x1080 UI frame.
//
// Thread safety: the functions keep no state; distinct images may be encoded
// concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace uiscope {

struct Image {
  int width = 0;             // pixels
  int height = 0;            // pixels
  std::vector<uint8_t> rgb;  // width * height * 3 bytes

  // True when the buffer matches the dimensions and is not empty.
  bool Valid() const {
    return width > 0 && height > 0 && rgb.size() == static_cast<size_t>(width) * height * 3;
  }
  // The first byte (red) of pixel (x, y); no bounds check.
  uint8_t* Pixel(int x, int y) { return &rgb[(static_cast<size_t>(y) * width + x) * 3]; }
  const uint8_t* Pixel(int x, int y) const {
    return &rgb[(static_cast<size_t>(y) * width + x) * 3];
  }
};

// A blank (black) image of the given size.
Image MakeImage(int width, int height);

enum class ImageEncoding { kPng, kWebp, kJpeg };

// "png" | "webp" | "jpeg" (also "jpg"); InvalidArgument naming the valid ones.
Result<ImageEncoding> ParseImageEncoding(std::string_view name);
std::string_view ImageEncodingName(ImageEncoding encoding);  // "png", "webp", "jpeg"
std::string_view MimeType(ImageEncoding encoding);           // "image/png", ...
std::string_view FileExtension(ImageEncoding encoding);      // "png", "webp", "jpg"

struct PngOptions {
  // zlib level 0-9. Levels 1-3 use zlib's fast matcher; from 4 on, the lazy
  // one costs 2.5x the time for ~20 % less on UI frames (bench_capture).
  int compression_level = 1;
};

struct WebpOptions {
  // libwebp's lossless trade-offs (WebPConfig::method 0-6, ::quality 0-100:
  // for lossless, the effort spent, not fidelity). Measured on a 1080p UI
  // frame (bench_capture): method 1 / quality 0 encodes in about the time of
  // the fast PNG at a third of its size; method 0 is no faster and 4x larger;
  // method 3-4 / quality 50-90 saves another 40-55 % for 3-4x the time.
  int method = 1;
  int quality = 0;
};

struct JpegOptions {
  int quality = 80;  // 1–100
  // 4:4:4 keeps coloured text and thin coloured outlines (marks) crisp; 4:2:0
  // is ~30 % smaller. Default: 4:4:4 from quality 90 up, else 4:2:0.
  enum class Subsampling { kAuto, k444, k420 };
  Subsampling subsampling = Subsampling::kAuto;
};

Result<std::string> EncodePng(const Image& image, const PngOptions& options = {});
Result<std::string> EncodeWebp(const Image& image, const WebpOptions& options = {});
Result<std::string> EncodeJpeg(const Image& image, const JpegOptions& options = {});

struct EncodeOptions {
  ImageEncoding encoding = ImageEncoding::kPng;
  PngOptions png;
  WebpOptions webp;
  JpegOptions jpeg;
};
// The encoder `options.encoding` names.
Result<std::string> EncodeImage(const Image& image, const EncodeOptions& options);

}  // namespace uiscope
