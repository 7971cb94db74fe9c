#include "channels/mobile/apns_auth.hpp"

#include <gtest/gtest.h>

#include "channels/mobile/jwt.hpp"
#include "testing/test_keys.hpp"

namespace chopar::channels::mobile {
namespace {

using nlohmann::json;
using std::chrono::minutes;
using std::chrono::seconds;

const core::TimePoint kStart = core::TimePoint(seconds(1'700'000'000));
constexpr const char* kKeyId = "ABC123DEFG";
constexpr const char* kTeamId = "DEF123GHIJ";

std::int64_t IatOf(const std::string& token, EVP_PKEY* public_key) {
  const auto decoded = VerifyJwt(token, public_key);
  EXPECT_TRUE(decoded);
  return decoded ? decoded->claims.at("iat").get<std::int64_t>() : -1;
}

TEST(ApnsKeyTest, LoadsAP8KeyAndChecksTheIds) {
  const std::string pem = testing::NewP256KeyPem();
  const ApnsKey key = LoadApnsKey(pem, kKeyId, kTeamId);
  EXPECT_EQ(key.key_id, kKeyId);
  EXPECT_EQ(key.team_id, kTeamId);
  EXPECT_THROW((void)LoadApnsKey(pem, "short", kTeamId), std::invalid_argument);
  EXPECT_THROW((void)LoadApnsKey(pem, kKeyId, "DEF123GHI!"), std::invalid_argument);
}

TEST(ApnsKeyTest, RefusesWhatIsNotAP256KeyWithoutQuotingIt) {
  const std::string rsa = testing::NewRsaKeyPem();
  for (const std::string& text : {rsa, std::string("not a key"), std::string()}) {
    try {
      (void)LoadApnsKey(text, kKeyId, kTeamId);
      ADD_FAILURE() << "accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).find(rsa.substr(28, 16)), std::string::npos) << e.what();
    }
  }
}

TEST(ApnsProviderTokenTest, Es256JwtVerifiesWithThePublicKey) {
  const std::string pem = testing::NewP256KeyPem();
  const std::string token = SignApnsProviderToken(LoadApnsKey(pem, kKeyId, kTeamId), kStart);
  const auto decoded = VerifyJwt(token, testing::PublicKeyOfPem(pem).get());
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->header, json({{"alg", "ES256"}, {"kid", kKeyId}}));
  EXPECT_EQ(decoded->claims, json({{"iss", kTeamId}, {"iat", 1'700'000'000}}));
  EXPECT_FALSE(VerifyJwt(token, testing::PublicKeyOfPem(testing::NewP256KeyPem()).get()));
}

class ApnsTokenCacheTest : public ::testing::Test {
 protected:
  std::string pem_ = testing::NewP256KeyPem();
  core::EvpPkey public_key_ = testing::PublicKeyOfPem(pem_);
  core::SimulatedClock clock_{kStart};
  ApnsTokenCache cache_{LoadApnsKey(pem_, kKeyId, kTeamId), clock_};
};

TEST_F(ApnsTokenCacheTest, ReusesTheTokenThenRefreshesItAfterFortyMinutes) {
  const std::string first = cache_.Token();
  EXPECT_EQ(IatOf(first, public_key_.get()), 1'700'000'000);
  clock_.Advance(minutes(39) + seconds(59));
  EXPECT_EQ(cache_.Token(), first);
  clock_.Advance(seconds(1));
  const std::string second = cache_.Token();
  EXPECT_NE(second, first);
  EXPECT_EQ(IatOf(second, public_key_.get()), 1'700'000'000 + 40 * 60);
  clock_.Advance(minutes(10));
  EXPECT_EQ(cache_.Token(), second);
}

TEST_F(ApnsTokenCacheTest, InvalidateRefreshesOnlyATokenOldEnoughForApple) {
  const std::string first = cache_.Token();
  clock_.Advance(minutes(19));
  // Apple refuses a replacement within 20 minutes (TooManyProviderTokenUpdates).
  EXPECT_FALSE(cache_.Invalidate(first));
  EXPECT_EQ(cache_.Token(), first);
  clock_.Advance(minutes(1));
  EXPECT_FALSE(cache_.Invalidate("some other token"));
  EXPECT_TRUE(cache_.Invalidate(first));
  const std::string second = cache_.Token();
  EXPECT_NE(second, first);
  EXPECT_EQ(IatOf(second, public_key_.get()), 1'700'000'000 + 20 * 60);
}

}  // namespace
}  // namespace chopar::channels::mobile
