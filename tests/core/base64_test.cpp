#include "core/base64.h"

#include <gtest/gtest.h>

namespace uiscope {
namespace {

TEST(Base64Test, EncodesTheRfcVectors) {
  // RFC 4648 §10.
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foob"), "Zm9vYg==");
  EXPECT_EQ(Base64Encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
}

TEST(Base64Test, DecodesWithOrWithoutPaddingAndRefusesTheMalformed) {
  EXPECT_EQ(Base64Decode("Zm9vYg=="), "foob");
  EXPECT_EQ(Base64Decode("Zm9vYg"), "foob");
  EXPECT_EQ(Base64Decode(""), "");
  EXPECT_EQ(Base64Decode("Zm9v YmFy"), std::nullopt);  // whitespace
  EXPECT_EQ(Base64Decode("Zm9vY"), std::nullopt);      // one character left over
  EXPECT_EQ(Base64Decode("Zm9-"), std::nullopt);       // URL alphabet
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
  EXPECT_EQ(Base64Decode(Base64Encode(bytes)), bytes);
}

}  // namespace
}  // namespace uiscope
