// Image: an owned RGB pixel buffer (8 bits per channel, rows top to bottom),
// and its PNG encoding. Pure C++ apart from libpng; no X11 here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"

namespace uiscope {

struct Image {
  int width = 0;             // pixels
  int height = 0;            // pixels
  std::vector<uint8_t> rgb;  // width * height * 3 bytes
};

struct PngOptions {
  // zlib level 1–9. UI screenshots are large flat areas: level 1 with the
  // "up" filter compresses them nearly as well as level 9 at a fraction of
  // the time.
  int compression_level = 1;
};

Result<std::string> EncodePng(const Image& image, const PngOptions& options = {});

}  // namespace uiscope
