// PNG through libpng, tuned for speed on UI screenshots.
//
// libpng's default tries all five row filters on every row and keeps the one
// that looks most compressible ("adaptive" filtering), then deflates at zlib
// level 6: ~75 ms for a 1080p UI frame on the 2-core reference machine. A UI
// frame is mostly flat colour and repeated rows, where the "up" filter alone
// turns whole rows into zeros, and zlib level 1 finds those runs quickly:
// ~15 ms, 5x faster, for a file ~25 % larger (bench_capture measures both in
// one run). Z_RLE and the other single filters were measured too and lose on
// size (RLE: 2x larger) or time (Paeth: 1.7x slower, no smaller).
#include <png.h>
#include <zlib.h>

#include <memory>

#include "image/image.h"

namespace uiscope {
namespace {

void AppendToString(png_structp png, png_bytep data, png_size_t length) {
  auto* out = static_cast<std::string*>(png_get_io_ptr(png));
  out->append(reinterpret_cast<const char*>(data), length);
}

void FlushNothing(png_structp) {}

// Owns the write and info structs (png_destroy_write_struct frees both) and
// the output.
struct PngWriter {
  png_structp png = nullptr;
  png_infop info = nullptr;
  std::string out;

  PngWriter()
      : png(png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr)),
        info(png != nullptr ? png_create_info_struct(png) : nullptr) {}
  ~PngWriter() { png_destroy_write_struct(&png, &info); }
  PngWriter(const PngWriter&) = delete;
  PngWriter& operator=(const PngWriter&) = delete;
};

// The libpng calls. libpng reports errors by longjmp to this function's
// setjmp; what they change lives in `w` (the caller's), never in locals of
// this function, whose values a longjmp would leave indeterminate.
bool Write(const Image& image, const PngOptions& options, PngWriter* w) {
  if (setjmp(png_jmpbuf(w->png))) return false;
  png_set_write_fn(w->png, &w->out, AppendToString, FlushNothing);
  png_set_IHDR(w->png, w->info, image.width, image.height, 8, PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level(w->png, options.compression_level);
  png_set_compression_strategy(w->png, Z_DEFAULT_STRATEGY);
  // One zlib output buffer per 256 KiB instead of per 8 KiB: fewer callbacks
  // and IDAT chunks.
  png_set_compression_buffer_size(w->png, 256 * 1024);
  png_set_filter(w->png, PNG_FILTER_TYPE_BASE, PNG_FILTER_UP);
  png_write_info(w->png, w->info);
  const size_t stride = static_cast<size_t>(image.width) * 3;
  for (int y = 0; y < image.height; ++y) {
    png_write_row(w->png, const_cast<png_bytep>(&image.rgb[y * stride]));
  }
  png_write_end(w->png, nullptr);
  return true;
}

}  // namespace

Result<std::string> EncodePng(const Image& image, const PngOptions& options) {
  if (!image.Valid()) {
    return MakeError(ErrorCode::kInvalidArgument, "cannot encode an empty or malformed image");
  }
  if (options.compression_level < 0 || options.compression_level > 9) {
    return MakeError(ErrorCode::kInvalidArgument, "PNG compression level must be 0-9");
  }
  auto writer = std::make_unique<PngWriter>();
  if (writer->png == nullptr || writer->info == nullptr) {
    return MakeError(ErrorCode::kInternal, "libpng: out of memory");
  }
  writer->out.reserve(image.rgb.size() / 8);
  if (!Write(image, options, writer.get())) {
    return MakeError(ErrorCode::kInternal, "libpng failed to encode");
  }
  return std::move(writer->out);
}

}  // namespace uiscope
