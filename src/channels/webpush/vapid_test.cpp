#include "channels/webpush/vapid.hpp"

#include <gtest/gtest.h>
#include <openssl/bn.h>
#include <openssl/ec.h>

#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <vector>

#include "core/encoding.hpp"

namespace chopar::channels::webpush {
namespace {

using std::chrono::hours;
using std::chrono::seconds;

constexpr std::string_view kSubject = "mailto:admin@example.com";

struct Jwt {
  nlohmann::json header;
  nlohmann::json claims;
  std::string signing_input;
  std::string signature;  // raw r || s
};

Jwt Split(const std::string& token) {
  const auto first = token.find('.');
  const auto second = token.find('.', first + 1);
  EXPECT_NE(first, std::string::npos);
  EXPECT_NE(second, std::string::npos);
  EXPECT_EQ(token.find('.', second + 1), std::string::npos);
  Jwt jwt;
  jwt.header = nlohmann::json::parse(core::Base64UrlDecode(token.substr(0, first)).value());
  jwt.claims = nlohmann::json::parse(core::Base64UrlDecode(token.substr(first + 1, second - first - 1)).value());
  jwt.signing_input = token.substr(0, second);
  jwt.signature = core::Base64UrlDecode(token.substr(second + 1)).value();
  return jwt;
}

// Verifies a JWS ES256 signature the way a push service does: r || s back
// to DER, then ECDSA-SHA256 with the advertised public key.
bool VerifyEs256(std::string_view public_key_b64, const std::string& signing_input, const std::string& signature) {
  if (signature.size() != 64) return false;
  const EvpPkey key = P256PublicKey(core::Base64UrlDecode(public_key_b64).value());
  const auto* raw = reinterpret_cast<const unsigned char*>(signature.data());
  std::unique_ptr<ECDSA_SIG, decltype(&ECDSA_SIG_free)> sig(ECDSA_SIG_new(), &ECDSA_SIG_free);
  BIGNUM* r = BN_bin2bn(raw, 32, nullptr);
  BIGNUM* s = BN_bin2bn(raw + 32, 32, nullptr);
  if (!sig || r == nullptr || s == nullptr || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
    BN_free(r);
    BN_free(s);
    return false;
  }
  unsigned char* der = nullptr;
  const int der_size = i2d_ECDSA_SIG(sig.get(), &der);
  std::unique_ptr<unsigned char, void (*)(unsigned char*)> der_owner(der, [](unsigned char* p) { OPENSSL_free(p); });
  if (der_size <= 0) return false;
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1) return false;
  return EVP_DigestVerify(ctx.get(), der, static_cast<std::size_t>(der_size),
                          reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size()) == 1;
}

std::string TokenOf(const std::string& authorization) {
  // "vapid t=<jwt>, k=<key>"
  const auto t = authorization.find("t=");
  const auto comma = authorization.find(", k=");
  return authorization.substr(t + 2, comma - t - 2);
}

class VapidTest : public ::testing::Test {
 protected:
  core::SimulatedClock clock_{core::TimePoint(seconds(1'790'000'000))};
  VapidKeys keys_ = GenerateVapidKeys();
  VapidSigner signer_{keys_.public_key, keys_.private_key, std::string(kSubject), clock_};
};

TEST(VapidKeysTest, GeneratedKeysHaveTheConfigForms) {
  const VapidKeys keys = GenerateVapidKeys();
  const auto pub = core::Base64UrlDecode(keys.public_key);
  const auto priv = core::Base64UrlDecode(keys.private_key);
  ASSERT_TRUE(pub && priv);
  EXPECT_EQ(pub->size(), 65U);
  EXPECT_EQ((*pub)[0], '\x04');
  EXPECT_EQ(priv->size(), 32U);
  EXPECT_EQ(keys.public_key.find('='), std::string::npos);
  EXPECT_NE(GenerateVapidKeys().private_key, keys.private_key);
  // The pair belongs together (the signer checks it).
  EXPECT_NO_THROW(VapidSigner(keys.public_key, keys.private_key, "mailto:a@example.com", core::SystemClock()));
}

TEST_F(VapidTest, TokenVerifiesWithThePublicKeyAndCarriesTheClaims) {
  const std::string authorization = signer_.Authorization("https://fcm.googleapis.com");
  ASSERT_TRUE(authorization.starts_with("vapid t="));
  EXPECT_TRUE(authorization.ends_with(", k=" + keys_.public_key));

  const Jwt jwt = Split(TokenOf(authorization));
  EXPECT_EQ(jwt.header, (nlohmann::json{{"typ", "JWT"}, {"alg", "ES256"}}));
  EXPECT_EQ(jwt.claims["aud"], "https://fcm.googleapis.com");
  EXPECT_EQ(jwt.claims["sub"], kSubject);
  const auto now = std::chrono::duration_cast<seconds>(clock_.Now().time_since_epoch()).count();
  const auto exp = jwt.claims["exp"].get<std::int64_t>();
  EXPECT_EQ(exp, now + 12 * 3600);
  EXPECT_LE(exp, now + 24 * 3600);
  EXPECT_EQ(jwt.signature.size(), 64U);
  EXPECT_TRUE(VerifyEs256(keys_.public_key, jwt.signing_input, jwt.signature));
}

TEST_F(VapidTest, AlteredClaimsOrAnotherKeyFailVerification) {
  const Jwt jwt = Split(signer_.SignToken("https://push.example.com"));
  std::string altered = jwt.signing_input;
  altered.back() = altered.back() == 'A' ? 'B' : 'A';
  EXPECT_FALSE(VerifyEs256(keys_.public_key, altered, jwt.signature));
  EXPECT_FALSE(VerifyEs256(GenerateVapidKeys().public_key, jwt.signing_input, jwt.signature));
}

TEST_F(VapidTest, CachesOneTokenPerOriginUntilNearExpiry) {
  const std::string fcm = signer_.Authorization("https://fcm.googleapis.com");
  const std::string mozilla = signer_.Authorization("https://updates.push.services.mozilla.com");
  EXPECT_NE(fcm, mozilla);
  EXPECT_EQ(Split(TokenOf(mozilla)).claims["aud"], "https://updates.push.services.mozilla.com");

  clock_.Advance(hours(10));
  EXPECT_EQ(signer_.Authorization("https://fcm.googleapis.com"), fcm);

  // Less than an hour of validity left: a new token, valid 12 h from now.
  clock_.Advance(hours(1) + seconds(1));
  const std::string renewed = signer_.Authorization("https://fcm.googleapis.com");
  EXPECT_NE(renewed, fcm);
  const auto now = std::chrono::duration_cast<seconds>(clock_.Now().time_since_epoch()).count();
  EXPECT_EQ(Split(TokenOf(renewed)).claims["exp"].get<std::int64_t>(), now + 12 * 3600);
  EXPECT_EQ(signer_.Authorization("https://fcm.googleapis.com"), renewed);
}

TEST_F(VapidTest, ConcurrentCallersShareOneTokenPerOrigin) {
  constexpr int kThreads = 8;
  std::vector<std::set<std::string>> seen(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      for (int j = 0; j < 200; ++j) seen[i].insert(signer_.Authorization("https://origin" + std::to_string(j % 4) + ".example"));
    });
  }
  for (auto& t : threads) t.join();
  std::set<std::string> all;
  for (const auto& s : seen) all.insert(s.begin(), s.end());
  EXPECT_EQ(all.size(), 4U);
}

TEST(VapidConfigTest, RejectsBadKeysAndSubject) {
  const VapidKeys keys = GenerateVapidKeys();
  const VapidKeys other = GenerateVapidKeys();
  const core::SystemClock clock;
  EXPECT_THROW(VapidSigner(keys.public_key, other.private_key, "mailto:a@b.c", clock), std::invalid_argument);
  EXPECT_THROW(VapidSigner(keys.private_key, keys.private_key, "mailto:a@b.c", clock), std::invalid_argument);
  EXPECT_THROW(VapidSigner(keys.public_key, "not*base64", "mailto:a@b.c", clock), std::invalid_argument);
  EXPECT_THROW(VapidSigner("", "", "mailto:a@b.c", clock), std::invalid_argument);
  EXPECT_THROW(VapidSigner(keys.public_key, keys.private_key, "admin@example.com", clock), std::invalid_argument);
  EXPECT_NO_THROW(VapidSigner(keys.public_key, keys.private_key, "https://example.com/contact", clock));
}

TEST(UrlOriginTest, IsSchemeHostAndNonDefaultPort) {
  EXPECT_EQ(UrlOrigin("https://fcm.googleapis.com/fcm/send/abc:def"), "https://fcm.googleapis.com");
  EXPECT_EQ(UrlOrigin("https://Push.Example.COM:443/x?y=1"), "https://push.example.com");
  EXPECT_EQ(UrlOrigin("https://push.example.com:8443/x"), "https://push.example.com:8443");
  EXPECT_EQ(UrlOrigin("http://127.0.0.1:8080/push/1"), "http://127.0.0.1:8080");
  EXPECT_EQ(UrlOrigin("http://127.0.0.1:80/push/1"), "http://127.0.0.1");
  EXPECT_EQ(UrlOrigin("https://[::1]:9443/p"), "https://[::1]:9443");
  EXPECT_EQ(UrlOrigin("https://user:secret@push.example.com/p"), "https://push.example.com");
  EXPECT_EQ(UrlOrigin("ftp://push.example.com/p"), std::nullopt);
  EXPECT_EQ(UrlOrigin("/relative/path"), std::nullopt);
  EXPECT_EQ(UrlOrigin(""), std::nullopt);
}

}  // namespace
}  // namespace chopar::channels::webpush
