// WebP lossless through libwebp: the smallest lossless encoding of UI frames
// (a third of the fast PNG's size at the default effort; see WebpOptions).
#include <webp/encode.h>

#include <memory>

#include "image/image.h"

namespace uiscope {
namespace {

struct PictureDeleter {
  void operator()(WebPPicture* picture) const { WebPPictureFree(picture); }
};
struct MemoryWriterDeleter {
  void operator()(WebPMemoryWriter* writer) const { WebPMemoryWriterClear(writer); }
};

std::string WebpErrorText(WebPEncodingError error) {
  switch (error) {
    case VP8_ENC_ERROR_OUT_OF_MEMORY:
    case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY:
      return "out of memory";
    case VP8_ENC_ERROR_BAD_DIMENSION:
      return "the image is larger than WebP allows (16383 pixels a side)";
    default:
      return "error " + std::to_string(static_cast<int>(error));
  }
}

}  // namespace

Result<std::string> EncodeWebp(const Image& image, const WebpOptions& options) {
  if (!image.Valid()) {
    return MakeError(ErrorCode::kInvalidArgument, "cannot encode an empty or malformed image");
  }
  if (options.method < 0 || options.method > 6 || options.quality < 0 || options.quality > 100) {
    return MakeError(ErrorCode::kInvalidArgument, "WebP method must be 0-6 and quality 0-100");
  }
  if (image.width > WEBP_MAX_DIMENSION || image.height > WEBP_MAX_DIMENSION) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "WebP allows at most " + std::to_string(WEBP_MAX_DIMENSION) +
                         " pixels a side; use png or a smaller region / max_width");
  }
  WebPConfig config;
  if (!WebPConfigInit(&config)) {
    return MakeError(ErrorCode::kInternal, "libwebp: incompatible library version");
  }
  config.lossless = 1;
  config.method = options.method;
  config.quality = static_cast<float>(options.quality);

  WebPPicture picture_storage;
  if (!WebPPictureInit(&picture_storage)) {
    return MakeError(ErrorCode::kInternal, "libwebp: incompatible library version");
  }
  picture_storage.use_argb = 1;  // lossless works on ARGB; import converts once
  picture_storage.width = image.width;
  picture_storage.height = image.height;
  std::unique_ptr<WebPPicture, PictureDeleter> picture(&picture_storage);
  if (!WebPPictureImportRGB(picture.get(), image.rgb.data(), image.width * 3)) {
    return MakeError(ErrorCode::kInternal, "libwebp: out of memory importing the image");
  }

  WebPMemoryWriter writer_storage;
  WebPMemoryWriterInit(&writer_storage);
  std::unique_ptr<WebPMemoryWriter, MemoryWriterDeleter> writer(&writer_storage);
  picture->writer = WebPMemoryWrite;
  picture->custom_ptr = writer.get();
  if (!WebPEncode(&config, picture.get())) {
    return MakeError(ErrorCode::kInternal,
                     "libwebp failed to encode: " + WebpErrorText(picture->error_code));
  }
  return std::string(reinterpret_cast<const char*>(writer->mem), writer->size);
}

}  // namespace uiscope
