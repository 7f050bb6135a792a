// GrayImage: the 8-bit luminance plane OCR works on, made from a captured RGB
// Image with the masked rectangles (password fields) filled before any of
// their pixels is converted, so masked text never reaches the line finder,
// the cache or Tesseract.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/geometry.h"
#include "image/image.h"

namespace uiscope::ocr {

struct GrayImage {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;  // width * height, rows top to bottom

  uint8_t At(int x, int y) const { return pixels[static_cast<size_t>(y) * width + x]; }
  const uint8_t* Row(int y) const { return pixels.data() + static_cast<size_t>(y) * width; }
  uint8_t* Row(int y) { return pixels.data() + static_cast<size_t>(y) * width; }
};

// The value masked pixels get: white, so a mask on a light background leaves
// no edge at all.
constexpr uint8_t kMaskFill = 255;

// Luminance (ITU-R BT.601 weights) of `image`; pixels inside any of `masks`
// (image coordinates, clipped to the image) are kMaskFill and never read.
GrayImage ToGray(const Image& image, std::span<const Rect> masks = {});

// The pixels of `rect` (inside the image) as a new image.
GrayImage Crop(const GrayImage& image, const Rect& rect);

}  // namespace uiscope::ocr
