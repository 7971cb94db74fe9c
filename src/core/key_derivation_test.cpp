#include "core/key_derivation.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "core/encoding.hpp"

namespace chopar::core {
namespace {

std::string Bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out += static_cast<char>(v);
  return out;
}

TEST(HkdfSha256, MatchesRfc5869TestCase1) {
  const std::string ikm(22, '\x0b');
  const std::string salt = Bytes({0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09,
                                  0x0a, 0x0b, 0x0c});
  const std::string info = Bytes({0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9});
  EXPECT_EQ(HexEncode(HkdfSha256(ikm, salt, info, 42)),
            "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865");
}

TEST(HkdfSha256, MatchesRfc5869TestCase3WithoutSaltOrInfo) {
  EXPECT_EQ(HexEncode(HkdfSha256(std::string(22, '\x0b'), "", "", 42)),
            "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8");
}

TEST(HkdfSha256, RefusesAnOutputLengthOutOfRange) {
  EXPECT_THROW((void)HkdfSha256("k", "", "", 0), std::invalid_argument);
  EXPECT_THROW((void)HkdfSha256("k", "", "", 255 * 32 + 1), std::invalid_argument);
}

TEST(DeriveKey, EachUseHasItsOwnKeyAndNeitherIsTheSecret) {
  const std::string tokens = DeriveKey("inbox-secret", KeyUse::kSubscriberTokens);
  const std::string links = DeriveKey("inbox-secret", KeyUse::kSignedLinks);
  EXPECT_EQ(tokens.size(), 32u);
  EXPECT_NE(tokens, links);
  EXPECT_NE(tokens, DeriveKey("another-secret", KeyUse::kSubscriberTokens));
  EXPECT_EQ(tokens, DeriveKey("inbox-secret", KeyUse::kSubscriberTokens));
}

}  // namespace
}  // namespace chopar::core
