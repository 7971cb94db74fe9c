#include "core/sealed_box.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "core/aes_gcm.hpp"
#include "core/encoding.hpp"

namespace chopar::core {
namespace {

const std::string kKey(32, '\x5a');

TEST(SealedBoxTest, OpensWhatItSealedAndNothingElse) {
  const std::string token = "xoxb-1234-5678-abcdefghijklmnop";
  const std::string sealed = Seal(kKey, "slack:T0123ABCD", token);
  EXPECT_EQ(sealed.size(), token.size() + kSealedBoxOverhead);
  EXPECT_EQ(sealed.find(token), std::string::npos) << "the plaintext does not show";
  EXPECT_EQ(Open(kKey, "slack:T0123ABCD", sealed), token);

  EXPECT_NE(Seal(kKey, "slack:T0123ABCD", token), sealed) << "a fresh nonce each time";
  EXPECT_FALSE(Open(kKey, "slack:T9999ZZZZ", sealed)) << "another row's context";
  EXPECT_FALSE(Open(std::string(32, '\x5b'), "slack:T0123ABCD", sealed)) << "another key";
  for (std::size_t i = 0; i < sealed.size(); ++i) {
    std::string changed = sealed;
    changed[i] = static_cast<char>(changed[i] ^ 0x01);
    EXPECT_FALSE(Open(kKey, "slack:T0123ABCD", changed)) << "byte " << i;
  }
  EXPECT_FALSE(Open(kKey, "slack:T0123ABCD", sealed.substr(0, kSealedBoxOverhead - 1)));
  EXPECT_FALSE(Open(kKey, "slack:T0123ABCD", ""));
  EXPECT_EQ(Open(kKey, "", Seal(kKey, "", "")), "");
}

TEST(SealedBoxTest, RefusesAKeyOfAnotherLength) {
  EXPECT_THROW(Seal(std::string(16, 'k'), "c", "p"), std::invalid_argument);
  EXPECT_THROW((void)Open(std::string(31, 'k'), "c", std::string(40, 'x')), std::invalid_argument);
}

// NIST's GCM test case 16 (AES-256, 60-byte plaintext, 20-byte AAD, the
// 96-bit IV), from "The Galois/Counter Mode of Operation" (McGrew, Viega).
TEST(AesGcmTest, MatchesTheGcmSpecificationsTestCase16) {
  auto bytes = [](const std::string& hex) {
    std::string out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
      out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    }
    return out;
  };
  const std::string key = bytes("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308");
  const std::string iv = bytes("cafebabefacedbaddecaf888");
  const std::string plaintext = bytes(
      "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449"
      "a6b525b16aedf5aa0de657ba637b39");
  const std::string aad = bytes("feedfacedeadbeeffeedfacedeadbeefabaddad2");
  const std::string expected =
      "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056"
      "828838c5f61e6393ba7a0abcc9f662"
      "76fc6ece0f4e1768cddf8853bb2d551b";
  const std::string sealed = AesGcmSeal(key, iv, aad, plaintext);
  EXPECT_EQ(HexEncode(sealed), expected);
  EXPECT_EQ(AesGcmOpen(key, iv, aad, sealed), plaintext);
  EXPECT_FALSE(AesGcmOpen(key, iv, "", sealed));
  EXPECT_THROW(AesGcmSeal(key, "short", aad, plaintext), std::invalid_argument);
}

}  // namespace
}  // namespace chopar::core
