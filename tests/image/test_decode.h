// Decoders for the tests of encoded images (tests only): each decodes with
// the same library uiscope encodes with, back to an RGB Image, or returns an
// Error saying why not.
#pragma once

#include <string>

#include "core/result.h"
#include "image/image.h"

namespace uiscope::test {

Result<Image> DecodePng(const std::string& bytes);
Result<Image> DecodeWebp(const std::string& bytes);
Result<Image> DecodeJpeg(const std::string& bytes);
// By the signature at the start of `bytes`.
Result<Image> DecodeAny(const std::string& bytes);

}  // namespace uiscope::test
