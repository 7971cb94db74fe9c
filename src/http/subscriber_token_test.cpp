#include "http/subscriber_token.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>

#include "core/encoding.hpp"
#include "core/key_derivation.hpp"

namespace chopar::http {
namespace {

using Outcome = VerifiedToken::Outcome;

constexpr std::string_view kSecret = "inbox-secret";
constexpr std::int64_t kNow = 1'800'000'000;
constexpr std::int64_t kLater = kNow + 3600;
const TokenCheck kAtNow{.now = kNow, .v1_until = std::nullopt};

// A v1 token, as earlier versions issued them.
std::string V1Token(std::int64_t user) {
  return std::to_string(user) + "." +
         core::Base64UrlEncode(core::HmacSha256(kSecret, std::to_string(user)));
}

TEST(SubscriberTokenTest, HasTheDocumentedShape) {
  const std::string key = core::DeriveKey(kSecret, core::KeyUse::kSubscriberTokens);
  const std::string claims = "v2.42.3." + std::to_string(kLater);
  const std::string expected = claims + "." + core::Base64UrlEncode(core::HmacSha256(key, claims));
  EXPECT_EQ(MakeSubscriberToken(kSecret, 42, 3, kLater), expected);
  EXPECT_EQ(expected.find('='), std::string::npos) << "base64url without padding";
}

TEST(SubscriberTokenTest, RoundTrips) {
  for (const std::int64_t user : {std::int64_t{1}, std::int64_t{42}, std::int64_t{900000001},
                                  std::numeric_limits<std::int64_t>::max()}) {
    for (const std::int64_t generation : {std::int64_t{0}, std::int64_t{7}}) {
      const auto verified =
          VerifySubscriberToken(kSecret, MakeSubscriberToken(kSecret, user, generation, kLater), kAtNow);
      EXPECT_EQ(verified.outcome, Outcome::kValid);
      EXPECT_EQ(verified.user_id, user);
      EXPECT_EQ(verified.generation, generation);
    }
  }
}

TEST(SubscriberTokenTest, ExpiresAtItsExpiry) {
  const std::string token = MakeSubscriberToken(kSecret, 7, 0, kLater);
  EXPECT_EQ(VerifySubscriberToken(kSecret, token, {.now = kLater - 1, .v1_until = std::nullopt}).outcome, Outcome::kValid);
  EXPECT_EQ(VerifySubscriberToken(kSecret, token, {.now = kLater, .v1_until = std::nullopt}).outcome, Outcome::kExpired);
  EXPECT_EQ(VerifySubscriberToken(kSecret, token, {.now = kLater + 86400, .v1_until = std::nullopt}).outcome,
            Outcome::kExpired);
}

TEST(SubscriberTokenTest, ALaterExpiryOrGenerationWrittenInDoesNotVerify) {
  const std::string token = MakeSubscriberToken(kSecret, 7, 2, kLater);
  const std::string signature = token.substr(token.rfind('.') + 1);
  for (const std::string& forged :
       {"v2.7.2." + std::to_string(kLater + 1000) + "." + signature,
        "v2.7.3." + std::to_string(kLater) + "." + signature,
        "v2.8.2." + std::to_string(kLater) + "." + signature}) {
    EXPECT_EQ(VerifySubscriberToken(kSecret, forged, kAtNow).outcome, Outcome::kInvalid) << forged;
  }
}

TEST(SubscriberTokenTest, V1TokensWorkUntilTheCutoffOnly) {
  const std::string token = V1Token(42);
  const auto before = VerifySubscriberToken(kSecret, token, {.now = kNow, .v1_until = kNow + 1});
  EXPECT_EQ(before.outcome, Outcome::kValid);
  EXPECT_EQ(before.user_id, 42);
  EXPECT_EQ(before.generation, 0) << "a v1 token counts as generation 0";
  EXPECT_EQ(VerifySubscriberToken(kSecret, token, {.now = kNow, .v1_until = kNow}).outcome,
            Outcome::kV1Retired);
  EXPECT_EQ(VerifySubscriberToken(kSecret, token, kAtNow).outcome, Outcome::kV1Retired)
      << "no cutoff configured: never accepted";
  EXPECT_EQ(
      VerifySubscriberToken("other", token, {.now = kNow, .v1_until = kNow + 1}).outcome,
      Outcome::kInvalid);
}

TEST(SubscriberTokenTest, AV2TokenIsNotSignedWithTheInboxSecretItself) {
  // The signature of the same claims under the raw secret (the key of v1
  // tokens and of links signed by earlier versions) is refused.
  const std::string claims = "v2.7.0." + std::to_string(kLater);
  EXPECT_EQ(VerifySubscriberToken(
                kSecret, claims + "." + core::Base64UrlEncode(core::HmacSha256(kSecret, claims)),
                kAtNow)
                .outcome,
            Outcome::kInvalid);
}

TEST(SubscriberTokenTest, AnotherSecretDoesNotVerify) {
  const std::string token = MakeSubscriberToken(kSecret, 7, 0, kLater);
  EXPECT_EQ(VerifySubscriberToken("other-secret", token, kAtNow).outcome, Outcome::kInvalid);
  EXPECT_EQ(VerifySubscriberToken("", token, kAtNow).outcome, Outcome::kInvalid);
}

TEST(SubscriberTokenTest, MalformedTokensDoNotVerify) {
  const std::string good = MakeSubscriberToken(kSecret, 7, 0, kLater);
  const std::string signature = good.substr(good.rfind('.') + 1);
  const std::string exp = std::to_string(kLater);
  for (const std::string& bad :
       {std::string(), std::string("v2"), std::string("v2."), "v2.7.0." + exp,
        "v2.7.0." + exp + ".", "v2.07.0." + exp + "." + signature,
        "v2.7.00." + exp + "." + signature, "v2.7.-0." + exp + "." + signature,
        "v2.+7.0." + exp + "." + signature, "v2.0.0." + exp + "." + signature,
        "v2.7.0.0" + exp + "." + signature, "v2.7.0." + exp + "." + signature + "=",
        "v2.7.0." + exp + "." + signature.substr(1), good + ".extra", "V2" + good.substr(2),
        "v2.7.0.99999999999999999999." + signature}) {
    EXPECT_EQ(VerifySubscriberToken(kSecret, bad, kAtNow).outcome, Outcome::kInvalid) << bad;
  }
  // v1 forms keep their canonical-number rule.
  const std::string v1_signature = V1Token(7).substr(2);
  for (const std::string& bad : {"07." + v1_signature, "+7." + v1_signature, "0." + v1_signature,
                                 "7." + v1_signature + "x"}) {
    EXPECT_EQ(VerifySubscriberToken(kSecret, bad, {.now = kNow, .v1_until = kLater}).outcome,
              Outcome::kInvalid)
        << bad;
  }
}

TEST(SubscriberTokenTest, RefusesToMakeUnusableTokens) {
  EXPECT_THROW(MakeSubscriberToken("", 1, 0, kLater), std::invalid_argument);
  EXPECT_THROW(MakeSubscriberToken(kSecret, 0, 0, kLater), std::invalid_argument);
  EXPECT_THROW(MakeSubscriberToken(kSecret, -3, 0, kLater), std::invalid_argument);
  EXPECT_THROW(MakeSubscriberToken(kSecret, 1, -1, kLater), std::invalid_argument);
  EXPECT_THROW(MakeSubscriberToken(kSecret, 1, 0, 0), std::invalid_argument);
}

TEST(V1TokenCutoffTest, IsMidnightUtcAfterTheDate) {
  EXPECT_EQ(V1TokenCutoff("2027-06-30"), 1'814'400'000);  // 2027-07-01T00:00:00Z
  EXPECT_EQ(V1TokenCutoff("1970-01-01"), 86'400);
  EXPECT_EQ(V1TokenCutoff(""), std::nullopt);
}

TEST(V1TokenCutoffTest, RefusesWhatIsNotARealDate) {
  for (const char* bad : {"2027-6-30", "2027-06-31", "2027-13-01", "30.06.2027", "2027-06-30T00",
                          "next year", "2027/06/30", "2027-0a-30"}) {
    EXPECT_THROW((void)V1TokenCutoff(bad), std::invalid_argument) << bad;
  }
}

}  // namespace
}  // namespace chopar::http
