// JPEG through libjpeg(-turbo)'s libjpeg API: the smallest encoding when
// exact pixels do not matter (photos, video frames, remote desktops).

// clang-format off
#include <cstdio>  // first: jpeglib.h uses FILE and size_t without including them
#include <jpeglib.h>
// clang-format on

#include <csetjmp>
#include <cstdlib>
#include <memory>

#include "image/image.h"

namespace uiscope {
namespace {

// libjpeg reports fatal errors through error_exit, which must not return:
// it longjmps back to Compress() with the message.
struct ErrorManager {
  jpeg_error_mgr base;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void ErrorExit(j_common_ptr cinfo) {
  auto* self = reinterpret_cast<ErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, self->message);
  std::longjmp(self->jump, 1);
}

void OutputNothing(j_common_ptr) {}  // warnings are not printed to stderr

// Everything libjpeg touches, owned in one place: the compressor (destroyed
// once created) and the output buffer jpeg_mem_dest mallocs and may
// reallocate as it grows (freed whatever happened).
struct Compression {
  jpeg_compress_struct cinfo{};
  ErrorManager errors{};
  bool created = false;
  unsigned char* buffer = nullptr;
  unsigned long size = 0;

  Compression() = default;
  Compression(const Compression&) = delete;
  Compression& operator=(const Compression&) = delete;
  ~Compression() {
    if (created) jpeg_destroy_compress(&cinfo);
    std::free(buffer);
  }
};

// The libjpeg calls. A longjmp lands in this function's setjmp; what it
// changes lives in `c` (the caller's), never in locals of this function,
// whose values a longjmp would leave indeterminate.
bool Compress(const Image& image, const JpegOptions& options, Compression* c) {
  c->cinfo.err = jpeg_std_error(&c->errors.base);
  c->errors.base.error_exit = ErrorExit;
  c->errors.base.output_message = OutputNothing;
  if (setjmp(c->errors.jump)) return false;
  jpeg_create_compress(&c->cinfo);
  c->created = true;
  jpeg_mem_dest(&c->cinfo, &c->buffer, &c->size);

  jpeg_compress_struct& cinfo = c->cinfo;
  cinfo.image_width = static_cast<JDIMENSION>(image.width);
  cinfo.image_height = static_cast<JDIMENSION>(image.height);
  cinfo.input_components = 3;
  cinfo.in_color_space = JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, options.quality, TRUE);
  // The integer DCT of libjpeg-turbo is SIMD-accelerated; the float one is
  // not and is no better at these qualities.
  cinfo.dct_method = JDCT_ISLOW;
  const bool full_chroma =
      options.subsampling == JpegOptions::Subsampling::k444 ||
      (options.subsampling == JpegOptions::Subsampling::kAuto && options.quality >= 90);
  if (full_chroma) {  // luma sampled like chroma: 4:4:4
    cinfo.comp_info[0].h_samp_factor = 1;
    cinfo.comp_info[0].v_samp_factor = 1;
  }
  jpeg_start_compress(&cinfo, TRUE);
  const size_t stride = static_cast<size_t>(image.width) * 3;
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW rows[16];
    JDIMENSION n = 0;
    for (; n < 16 && cinfo.next_scanline + n < cinfo.image_height; ++n) {
      rows[n] = const_cast<JSAMPROW>(&image.rgb[(cinfo.next_scanline + n) * stride]);
    }
    jpeg_write_scanlines(&cinfo, rows, n);
  }
  jpeg_finish_compress(&cinfo);
  return true;
}

}  // namespace

Result<std::string> EncodeJpeg(const Image& image, const JpegOptions& options) {
  if (!image.Valid()) {
    return MakeError(ErrorCode::kInvalidArgument, "cannot encode an empty or malformed image");
  }
  if (options.quality < 1 || options.quality > 100) {
    return MakeError(ErrorCode::kInvalidArgument, "JPEG quality must be 1-100");
  }
  if (image.width > JPEG_MAX_DIMENSION || image.height > JPEG_MAX_DIMENSION) {
    return MakeError(ErrorCode::kInvalidArgument, "the image is larger than JPEG allows");
  }
  auto c = std::make_unique<Compression>();
  if (!Compress(image, options, c.get())) {
    return MakeError(ErrorCode::kInternal, std::string("libjpeg failed: ") + c->errors.message);
  }
  return std::string(reinterpret_cast<const char*>(c->buffer), c->size);
}

}  // namespace uiscope
