#include "channels/mobile/jwt.hpp"

#include <gtest/gtest.h>

#include "channels/mobile/pem_key.hpp"
#include "core/encoding.hpp"
#include "testing/test_keys.hpp"

namespace chopar::channels::mobile {
namespace {

using nlohmann::json;

const json kClaims = {{"iss", "someone"}, {"iat", 1700000000}};

// Swaps one part of a compact JWS for another.
std::string WithPart(const std::string& token, int index, const std::string& part) {
  const auto first = token.find('.');
  const auto second = token.find('.', first + 1);
  if (index == 0) return part + token.substr(first);
  if (index == 1) return token.substr(0, first + 1) + part + token.substr(second);
  return token.substr(0, second + 1) + part;
}

TEST(JwtTest, Rs256SignatureVerifiesWithOpenSslDirectly) {
  const std::string pem = testing::NewRsaKeyPem();
  const core::EvpPkey key = PrivateKeyFromPem(pem);
  const core::EvpPkey public_key = testing::PublicKeyOfPem(pem);
  const std::string token =
      SignJwt({{"alg", "RS256"}, {"typ", "JWT"}}, kClaims, key.get(), JwtAlgorithm::kRs256);

  // Checked without VerifyJwt: PKCS#1 v1.5 with SHA-256 over "header.claims".
  const auto second = token.rfind('.');
  const std::string input = token.substr(0, second);
  const std::string signature = core::Base64UrlDecode(token.substr(second + 1)).value();
  EXPECT_EQ(signature.size(), 256u);
  core::EvpMdCtx ctx(EVP_MD_CTX_new());
  ASSERT_EQ(EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, public_key.get()), 1);
  EXPECT_EQ(EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                             signature.size(), reinterpret_cast<const unsigned char*>(input.data()),
                             input.size()),
            1);

  const auto decoded = VerifyJwt(token, public_key.get());
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->header, json({{"alg", "RS256"}, {"typ", "JWT"}}));
  EXPECT_EQ(decoded->claims, kClaims);
}

TEST(JwtTest, Es256SignatureIsRawRAndSAndVerifies) {
  const std::string pem = testing::NewP256KeyPem();
  const core::EvpPkey key = PrivateKeyFromPem(pem);
  const std::string token =
      SignJwt({{"alg", "ES256"}, {"kid", "K"}}, kClaims, key.get(), JwtAlgorithm::kEs256);
  EXPECT_EQ(core::Base64UrlDecode(token.substr(token.rfind('.') + 1)).value().size(), 64u);
  const auto decoded = VerifyJwt(token, testing::PublicKeyOfPem(pem).get());
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->claims, kClaims);
}

TEST(JwtTest, TamperedClaimsOrAnotherKeyDoNotVerify) {
  const std::string pem = testing::NewP256KeyPem();
  const core::EvpPkey key = PrivateKeyFromPem(pem);
  const std::string token = SignJwt({{"alg", "ES256"}}, kClaims, key.get(), JwtAlgorithm::kEs256);
  const std::string forged =
      WithPart(token, 1, core::Base64UrlEncode(R"({"iat":1700000000,"iss":"mallory"})"));
  EXPECT_FALSE(VerifyJwt(forged, testing::PublicKeyOfPem(pem).get()));
  EXPECT_FALSE(VerifyJwt(token, testing::PublicKeyOfPem(testing::NewP256KeyPem()).get()));
}

TEST(JwtTest, AlgorithmNoneAndMismatchedKeysAreRefused) {
  const std::string rsa_pem = testing::NewRsaKeyPem();
  const core::EvpPkey rsa = PrivateKeyFromPem(rsa_pem);
  const std::string token = SignJwt({{"alg", "RS256"}}, kClaims, rsa.get(), JwtAlgorithm::kRs256);
  const core::EvpPkey public_key = testing::PublicKeyOfPem(rsa_pem);
  EXPECT_FALSE(
      VerifyJwt(WithPart(token, 0, core::Base64UrlEncode(R"({"alg":"none"})")), public_key.get()));
  EXPECT_FALSE(VerifyJwt(WithPart(token, 2, ""), public_key.get()));
  // An ES256 header on an RSA-signed token: the key does not fit the algorithm.
  EXPECT_FALSE(
      VerifyJwt(WithPart(token, 0, core::Base64UrlEncode(R"({"alg":"ES256"})")), public_key.get()));
  EXPECT_FALSE(VerifyJwt(token, testing::PublicKeyOfPem(testing::NewP256KeyPem()).get()));
  EXPECT_THROW((void)SignJwt({{"alg", "ES256"}}, kClaims, rsa.get(), JwtAlgorithm::kEs256),
               std::runtime_error);
}

TEST(JwtTest, MalformedTokensAreRefused) {
  const core::EvpPkey public_key = testing::PublicKeyOfPem(testing::NewP256KeyPem());
  for (const char* token : {"", ".", "..", "a.b", "a.b.c.d", "!!.??.**", "e30.e30.AAAA"}) {
    EXPECT_FALSE(VerifyJwt(token, public_key.get())) << token;
  }
}

TEST(PemKeyTest, NoKeyIsANullHandle) {
  EXPECT_FALSE(PrivateKeyFromPem(""));
  EXPECT_FALSE(PrivateKeyFromPem("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"));
  EXPECT_TRUE(PrivateKeyFromPem(testing::NewP256KeyPem()));
}

}  // namespace
}  // namespace chopar::channels::mobile
