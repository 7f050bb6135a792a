#include <png.h>

#include <memory>

#include "image/image.h"

namespace uiscope {
namespace {

void AppendToString(png_structp png, png_bytep data, png_size_t length) {
  auto* out = static_cast<std::string*>(png_get_io_ptr(png));
  out->append(reinterpret_cast<const char*>(data), length);
}

void FlushNothing(png_structp) {}

}  // namespace

Result<std::string> EncodePng(const Image& image, const PngOptions& options) {
  if (image.width <= 0 || image.height <= 0 ||
      image.rgb.size() != static_cast<size_t>(image.width) * image.height * 3) {
    return MakeError(ErrorCode::kInvalidArgument, "cannot encode an empty or malformed image");
  }
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  if (png == nullptr) return MakeError(ErrorCode::kInternal, "libpng: out of memory");
  png_infop info = png_create_info_struct(png);
  struct Destroy {
    png_structp* png;
    png_infop* info;
    ~Destroy() { png_destroy_write_struct(png, info); }
  } destroy{&png, &info};
  if (info == nullptr) return MakeError(ErrorCode::kInternal, "libpng: out of memory");

  std::string out;
  out.reserve(image.rgb.size() / 8);
  // libpng reports errors by longjmp: nothing with a destructor may live
  // between here and the end of encoding except what is declared above.
  if (setjmp(png_jmpbuf(png))) return MakeError(ErrorCode::kInternal, "libpng failed to encode");
  png_set_write_fn(png, &out, AppendToString, FlushNothing);
  png_set_IHDR(png, info, image.width, image.height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level(png, options.compression_level);
  png_set_filter(png, 0, PNG_FILTER_UP);
  png_write_info(png, info);
  for (int y = 0; y < image.height; ++y) {
    png_write_row(png, const_cast<png_bytep>(&image.rgb[static_cast<size_t>(y) * image.width * 3]));
  }
  png_write_end(png, nullptr);
  return out;
}

}  // namespace uiscope
