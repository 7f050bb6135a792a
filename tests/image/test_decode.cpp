#include "image/test_decode.h"

// clang-format off
#include <cstdio>  // first: jpeglib.h uses FILE and size_t without including them
#include <jpeglib.h>
// clang-format on
#include <png.h>
#include <webp/decode.h>

#include <csetjmp>
#include <cstring>
#include <memory>

namespace uiscope::test {
namespace {

struct JpegError {
  jpeg_error_mgr base;
  std::jmp_buf jump;
};

void JpegErrorExit(j_common_ptr cinfo) {
  std::longjmp(reinterpret_cast<JpegError*>(cinfo->err)->jump, 1);
}

struct Decompression {
  jpeg_decompress_struct cinfo{};
  JpegError error{};
  bool created = false;
  Image image;
  ~Decompression() {
    if (created) jpeg_destroy_decompress(&cinfo);
  }
};

// The libjpeg calls; the longjmp target. State lives in `d`, not in locals.
bool Decompress(const std::string& bytes, Decompression* d) {
  d->cinfo.err = jpeg_std_error(&d->error.base);
  d->error.base.error_exit = JpegErrorExit;
  if (setjmp(d->error.jump)) return false;
  jpeg_create_decompress(&d->cinfo);
  d->created = true;
  jpeg_mem_src(&d->cinfo, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  jpeg_read_header(&d->cinfo, TRUE);
  d->cinfo.out_color_space = JCS_RGB;
  jpeg_start_decompress(&d->cinfo);
  d->image =
      MakeImage(static_cast<int>(d->cinfo.output_width), static_cast<int>(d->cinfo.output_height));
  while (d->cinfo.output_scanline < d->cinfo.output_height) {
    JSAMPROW row = d->image.Pixel(0, static_cast<int>(d->cinfo.output_scanline));
    jpeg_read_scanlines(&d->cinfo, &row, 1);
  }
  jpeg_finish_decompress(&d->cinfo);
  return true;
}

}  // namespace

Result<Image> DecodePng(const std::string& bytes) {
  png_image png;
  std::memset(&png, 0, sizeof(png));
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&png, bytes.data(), bytes.size())) {
    return MakeError(ErrorCode::kInvalidArgument, std::string("not a PNG: ") + png.message);
  }
  png.format = PNG_FORMAT_RGB;
  Image image = MakeImage(static_cast<int>(png.width), static_cast<int>(png.height));
  if (!png_image_finish_read(&png, nullptr, image.rgb.data(), 0, nullptr)) {
    return MakeError(ErrorCode::kInvalidArgument, std::string("bad PNG: ") + png.message);
  }
  return image;
}

Result<Image> DecodeWebp(const std::string& bytes) {
  int w = 0, h = 0;
  std::unique_ptr<uint8_t, void (*)(void*)> rgb(
      WebPDecodeRGB(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &w, &h),
      WebPFree);
  if (!rgb) return MakeError(ErrorCode::kInvalidArgument, "not a WebP image");
  Image image = MakeImage(w, h);
  std::memcpy(image.rgb.data(), rgb.get(), image.rgb.size());
  return image;
}

Result<Image> DecodeJpeg(const std::string& bytes) {
  auto d = std::make_unique<Decompression>();
  if (!Decompress(bytes, d.get()))
    return MakeError(ErrorCode::kInvalidArgument, "not a JPEG image");
  return std::move(d->image);
}

Result<Image> DecodeAny(const std::string& bytes) {
  if (bytes.rfind("\x89PNG", 0) == 0) return DecodePng(bytes);
  if (bytes.size() > 12 && bytes.compare(0, 4, "RIFF") == 0 && bytes.compare(8, 4, "WEBP") == 0)
    return DecodeWebp(bytes);
  if (bytes.rfind("\xff\xd8", 0) == 0) return DecodeJpeg(bytes);
  return MakeError(ErrorCode::kInvalidArgument, "unknown image format");
}

}  // namespace uiscope::test
