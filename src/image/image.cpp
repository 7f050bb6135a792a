#include "image/image.h"

namespace uiscope {

Image MakeImage(int width, int height) {
  Image image;
  if (width <= 0 || height <= 0) return image;
  image.width = width;
  image.height = height;
  image.rgb.assign(static_cast<size_t>(width) * height * 3, 0);
  return image;
}

Result<ImageEncoding> ParseImageEncoding(std::string_view name) {
  if (name == "png") return ImageEncoding::kPng;
  if (name == "webp") return ImageEncoding::kWebp;
  if (name == "jpeg" || name == "jpg") return ImageEncoding::kJpeg;
  return MakeError(ErrorCode::kInvalidArgument,
                   "unknown image encoding \"" + std::string(name) + "\" (valid: png, webp, jpeg)");
}

std::string_view ImageEncodingName(ImageEncoding encoding) {
  switch (encoding) {
    case ImageEncoding::kPng:
      return "png";
    case ImageEncoding::kWebp:
      return "webp";
    case ImageEncoding::kJpeg:
      return "jpeg";
  }
  return "png";
}

std::string_view MimeType(ImageEncoding encoding) {
  switch (encoding) {
    case ImageEncoding::kPng:
      return "image/png";
    case ImageEncoding::kWebp:
      return "image/webp";
    case ImageEncoding::kJpeg:
      return "image/jpeg";
  }
  return "image/png";
}

std::string_view FileExtension(ImageEncoding encoding) {
  switch (encoding) {
    case ImageEncoding::kPng:
      return "png";
    case ImageEncoding::kWebp:
      return "webp";
    case ImageEncoding::kJpeg:
      return "jpg";
  }
  return "png";
}

Result<std::string> EncodeImage(const Image& image, const EncodeOptions& options) {
  switch (options.encoding) {
    case ImageEncoding::kPng:
      return EncodePng(image, options.png);
    case ImageEncoding::kWebp:
      return EncodeWebp(image, options.webp);
    case ImageEncoding::kJpeg:
      return EncodeJpeg(image, options.jpeg);
  }
  return MakeError(ErrorCode::kInvalidArgument, "unknown image encoding");
}

}  // namespace uiscope
