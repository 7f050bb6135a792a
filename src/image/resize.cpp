#include "image/resize.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace uiscope {
namespace {

// Along one axis: the source pixels each output pixel covers. Every output
// pixel reads the same number of source pixels (`taps`, padded with zero
// weights), starting at first[i], so the inner loops have a fixed length.
// Weights are in 1/65536 and sum to exactly 65536 per output pixel.
struct Spans {
  int taps = 0;
  std::vector<int> first;         // per output pixel
  std::vector<uint32_t> weights;  // per output pixel, `taps` each
};

Spans AreaSpans(int src_size, int dst_size) {
  const double ratio = static_cast<double>(src_size) / dst_size;  // >= 1
  std::vector<int> firsts(dst_size);
  std::vector<std::vector<uint32_t>> lists(dst_size);
  Spans spans;
  for (int i = 0; i < dst_size; ++i) {
    const double start = i * ratio;
    const double end = std::min<double>((i + 1) * ratio, src_size);
    const int first = static_cast<int>(start);
    const int last = std::min(src_size - 1, static_cast<int>(std::ceil(end)) - 1);
    uint32_t total = 0;
    for (int s = first; s <= last; ++s) {
      const double cover = std::min<double>(s + 1, end) - std::max<double>(s, start);
      const auto w = static_cast<uint32_t>(std::lround(cover / ratio * 65536.0));
      lists[i].push_back(w);
      total += w;
    }
    // Rounding leftovers go to the largest weight, so flat areas stay exact.
    *std::max_element(lists[i].begin(), lists[i].end()) += 65536 - total;
    firsts[i] = first;
    spans.taps = std::max(spans.taps, static_cast<int>(lists[i].size()));
  }
  spans.first.resize(dst_size);
  spans.weights.assign(static_cast<size_t>(dst_size) * spans.taps, 0);
  for (int i = 0; i < dst_size; ++i) {
    // Near the end the window slides left instead of reading past the edge.
    const int first = std::min(firsts[i], src_size - spans.taps);
    spans.first[i] = first;
    const int shift = firsts[i] - first;
    for (size_t k = 0; k < lists[i].size(); ++k)
      spans.weights[static_cast<size_t>(i) * spans.taps + shift + k] = lists[i][k];
  }
  return spans;
}

}  // namespace

Result<Image> ResizeArea(const Image& src, int width, int height) {
  if (!src.Valid()) return MakeError(ErrorCode::kInvalidArgument, "cannot resize an empty image");
  if (width <= 0 || height <= 0 || width > src.width || height > src.height) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "can only shrink a " + std::to_string(src.width) + "x" +
                         std::to_string(src.height) + " image, not resize it to " +
                         std::to_string(width) + "x" + std::to_string(height));
  }
  if (width == src.width && height == src.height) return src;

  const Spans xs = AreaSpans(src.width, width);
  const Spans ys = AreaSpans(src.height, height);

  // Vertical pass first (whole contiguous rows: the loop vectorises, and the
  // horizontal pass then has fewer rows): 8-bit values times 16.16 weights,
  // kept with 8 fractional bits in 16 bits (<= 255 * 256).
  const size_t src_row = static_cast<size_t>(src.width) * 3;
  std::vector<uint16_t> mid(src_row * height);
  std::vector<uint32_t> acc(src_row);
  for (int y = 0; y < height; ++y) {
    std::fill(acc.begin(), acc.end(), 128u);  // rounds the >> 8 below
    for (int k = 0; k < ys.taps; ++k) {
      const uint32_t w = ys.weights[static_cast<size_t>(y) * ys.taps + k];
      if (w == 0) continue;
      const uint8_t* row = src.Pixel(0, ys.first[y] + k);
      for (size_t i = 0; i < src_row; ++i) acc[i] += row[i] * w;
    }
    uint16_t* out = &mid[static_cast<size_t>(y) * src_row];
    for (size_t i = 0; i < src_row; ++i) out[i] = static_cast<uint16_t>(acc[i] >> 8);
  }

  // Horizontal pass: those 16-bit values times 16.16 weights summing to
  // 65536 stay below 2^32 (65280 * 65536 + rounding), so 32 bits suffice.
  Image dst = MakeImage(width, height);
  const int taps = xs.taps;
  for (int y = 0; y < height; ++y) {
    const uint16_t* in = &mid[static_cast<size_t>(y) * src_row];
    uint8_t* out = dst.Pixel(0, y);
    for (int x = 0; x < width; ++x) {
      const uint16_t* p = in + static_cast<size_t>(xs.first[x]) * 3;
      const uint32_t* w = &xs.weights[static_cast<size_t>(x) * taps];
      uint32_t r = 1u << 23, g = 1u << 23, b = 1u << 23;  // round the >> 24
      for (int k = 0; k < taps; ++k, p += 3) {
        r += p[0] * w[k];
        g += p[1] * w[k];
        b += p[2] * w[k];
      }
      out[x * 3] = static_cast<uint8_t>(r >> 24);
      out[x * 3 + 1] = static_cast<uint8_t>(g >> 24);
      out[x * 3 + 2] = static_cast<uint8_t>(b >> 24);
    }
  }
  return dst;
}

Result<Downscaled> DownscaleToWidth(Image src, int max_width) {
  if (!src.Valid()) return MakeError(ErrorCode::kInvalidArgument, "cannot resize an empty image");
  if (max_width < 0) return MakeError(ErrorCode::kInvalidArgument, "max_width must be >= 0");
  if (max_width == 0 || src.width <= max_width) return Downscaled{std::move(src), 1.0};
  const double scale = static_cast<double>(max_width) / src.width;
  const int height = std::max(1, static_cast<int>(std::lround(src.height * scale)));
  auto image = ResizeArea(src, max_width, height);
  if (!image.ok()) return image.error();
  return Downscaled{std::move(image).value(), scale};
}

}  // namespace uiscope
