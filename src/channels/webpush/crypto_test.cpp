#include "channels/webpush/crypto.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "core/encoding.hpp"

namespace chopar::channels::webpush {
namespace {

std::string B64(std::string_view text) {
  auto bytes = core::Base64UrlDecode(text);
  if (!bytes) throw std::invalid_argument("bad base64url in test vector");
  return *bytes;
}

// RFC 8291 Appendix A ("Intermediate Values for Encryption"), base64url.
struct Rfc8291 {
  static constexpr std::string_view kPlaintext = "When I grow up, I want to be a watermelon";
  static constexpr std::string_view kAsPublic =
      "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8";
  static constexpr std::string_view kAsPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw";
  static constexpr std::string_view kUaPublic =
      "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
  static constexpr std::string_view kUaPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94";
  static constexpr std::string_view kSalt = "DGv6ra1nlYgDCS1FRnbzlw";
  static constexpr std::string_view kAuthSecret = "BTBZMqHH6r4Tts7J_aSIgg";
  static constexpr std::string_view kEcdhSecret = "kyrL1jIIOHEzg3sM2ZWRHDRB62YACZhhSlknJ672kSs";
  static constexpr std::string_view kIkm = "S4lYMb_L0FxCeq0WhDx813KgSYqU26kOyzWUdsXYyrg";
  static constexpr std::string_view kCek = "oIhVW04MRdy2XN9CiKLxTg";
  static constexpr std::string_view kNonce = "4h_95klXJ5E_qnoN";
  static constexpr std::string_view kHeader =
      "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8";
  static constexpr std::string_view kCiphertext =
      "8pfeW0KbunFT06SuDKoJH9Ql87S1QUrdirN6GcG7sFz1y1sqLgVi1VhjVkHsUoEsbI_0LpXMuGvnzQ";
  static constexpr std::string_view kBody =
      "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27ml"
      "mlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPT"
      "pK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN";
};

P256KeyPair RfcSender() { return {B64(Rfc8291::kAsPublic), B64(Rfc8291::kAsPrivate)}; }
P256KeyPair RfcUserAgent() { return {B64(Rfc8291::kUaPublic), B64(Rfc8291::kUaPrivate)}; }

TEST(WebPushCryptoTest, ReproducesRfc8291AppendixAByteForByte) {
  const std::string body = EncryptPushPayload(Rfc8291::kPlaintext, B64(Rfc8291::kUaPublic),
                                              B64(Rfc8291::kAuthSecret), RfcSender(), B64(Rfc8291::kSalt));
  EXPECT_EQ(core::Base64UrlEncode(body), Rfc8291::kBody);
  EXPECT_EQ(body, B64(Rfc8291::kHeader) + B64(Rfc8291::kCiphertext));
  EXPECT_EQ(body.size(), kPushHeaderSize + Rfc8291::kPlaintext.size() + 1 + 16);
}

TEST(WebPushCryptoTest, MatchesRfc8291IntermediateValues) {
  const EvpPkey sender = P256PrivateKey(RfcSender());
  const EvpPkey ua = P256PublicKey(B64(Rfc8291::kUaPublic));
  const std::string secret = EcdhSharedSecret(sender.get(), ua.get());
  EXPECT_EQ(core::Base64UrlEncode(secret), Rfc8291::kEcdhSecret);

  // ECDH is symmetric: the user agent computes the same secret.
  const EvpPkey ua_private = P256PrivateKey(RfcUserAgent());
  const EvpPkey sender_public = P256PublicKey(B64(Rfc8291::kAsPublic));
  EXPECT_EQ(EcdhSharedSecret(ua_private.get(), sender_public.get()), secret);

  const PushKeySchedule keys = DerivePushKeys(secret, B64(Rfc8291::kAuthSecret), B64(Rfc8291::kUaPublic),
                                              B64(Rfc8291::kAsPublic), B64(Rfc8291::kSalt));
  EXPECT_EQ(core::Base64UrlEncode(keys.ikm), Rfc8291::kIkm);
  EXPECT_EQ(core::Base64UrlEncode(keys.cek), Rfc8291::kCek);
  EXPECT_EQ(core::Base64UrlEncode(keys.nonce), Rfc8291::kNonce);
}

TEST(WebPushCryptoTest, UserAgentDecryptsTheAppendixMessage) {
  const auto plaintext = DecryptPushPayload(B64(Rfc8291::kBody), RfcUserAgent(), B64(Rfc8291::kAuthSecret));
  ASSERT_TRUE(plaintext.has_value());
  EXPECT_EQ(*plaintext, Rfc8291::kPlaintext);
}

TEST(WebPushCryptoTest, HkdfMatchesRfc5869TestCase1) {
  const std::string ikm(22, '\x0b');
  const std::string salt = *core::Base64UrlDecode("AAECAwQFBgcICQoLDA");        // 0x00..0x0c
  const std::string info = "\xf0\xf1\xf2\xf3\xf4\xf5\xf6\xf7\xf8\xf9";
  EXPECT_EQ(core::HexEncode(HkdfSha256(salt, ikm, info, 42)),
            "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865");
}

TEST(WebPushCryptoTest, FreshKeyAndSaltPerMessageAndRoundTrip) {
  const P256KeyPair ua = GenerateP256KeyPair();
  ASSERT_EQ(ua.public_key.size(), kP256PublicKeySize);
  ASSERT_EQ(ua.private_key.size(), kP256PrivateKeySize);
  const std::string auth = "0123456789abcdef";
  const std::string text = R"({"title":"Muddat yaqin — 18:00"})";

  const std::string first = EncryptPushPayload(text, ua.public_key, auth);
  const std::string second = EncryptPushPayload(text, ua.public_key, auth);
  EXPECT_NE(first.substr(0, kPushSaltSize), second.substr(0, kPushSaltSize));
  EXPECT_NE(first.substr(21, 65), second.substr(21, 65));
  EXPECT_EQ(first.substr(16, 5), std::string("\x00\x00\x10\x00\x41", 5));  // rs = 4096, idlen = 65

  EXPECT_EQ(DecryptPushPayload(first, ua, auth), text);
  EXPECT_EQ(DecryptPushPayload(second, ua, auth), text);
}

TEST(WebPushCryptoTest, WrongAuthOrTamperedBodyDoesNotDecrypt) {
  const P256KeyPair ua = GenerateP256KeyPair();
  const std::string auth = "0123456789abcdef";
  std::string body = EncryptPushPayload("hello", ua.public_key, auth);
  EXPECT_FALSE(DecryptPushPayload(body, ua, "fedcba9876543210").has_value());
  EXPECT_FALSE(DecryptPushPayload(body, GenerateP256KeyPair(), auth).has_value());
  body.back() = static_cast<char>(body.back() ^ 1);
  EXPECT_FALSE(DecryptPushPayload(body, ua, auth).has_value());
  EXPECT_FALSE(DecryptPushPayload("short", ua, auth).has_value());
}

TEST(WebPushCryptoTest, LargestPayloadFillsExactlyOneRecord) {
  const P256KeyPair ua = GenerateP256KeyPair();
  const std::string auth = "0123456789abcdef";
  const std::string largest(kPushMaxPlaintext, 'x');
  const std::string body = EncryptPushPayload(largest, ua.public_key, auth);
  EXPECT_EQ(body.size(), std::size_t{kPushRecordSize});
  EXPECT_EQ(DecryptPushPayload(body, ua, auth), largest);
  EXPECT_THROW((void)EncryptPushPayload(largest + "x", ua.public_key, auth), std::invalid_argument);
}

TEST(WebPushCryptoTest, RejectsBadKeys) {
  std::string off_curve = B64(Rfc8291::kUaPublic);
  off_curve[40] = static_cast<char>(off_curve[40] ^ 1);
  EXPECT_THROW((void)P256PublicKey(off_curve), std::invalid_argument);
  EXPECT_THROW((void)P256PublicKey(B64(Rfc8291::kUaPublic).substr(1)), std::invalid_argument);
  // Each half valid, but they do not belong together.
  EXPECT_THROW((void)P256PrivateKey({B64(Rfc8291::kUaPublic), B64(Rfc8291::kAsPrivate)}), std::invalid_argument);
  EXPECT_THROW((void)EncryptPushPayload("x", off_curve, B64(Rfc8291::kAuthSecret)), std::invalid_argument);
  EXPECT_THROW((void)EncryptPushPayload("x", B64(Rfc8291::kUaPublic), "short"), std::invalid_argument);
}

}  // namespace
}  // namespace chopar::channels::webpush
