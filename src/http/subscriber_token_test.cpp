#include "http/subscriber_token.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "core/encoding.hpp"

namespace chopar::http {
namespace {

constexpr std::string_view kSecret = "inbox-secret";

TEST(SubscriberTokenTest, HasTheDocumentedShape) {
  const std::string expected = "42." + core::Base64UrlEncode(core::HmacSha256(kSecret, "42"));
  EXPECT_EQ(MakeSubscriberToken(kSecret, 42), expected);
  EXPECT_EQ(expected.find('='), std::string::npos) << "base64url without padding";
}

TEST(SubscriberTokenTest, RoundTrips) {
  for (const std::int64_t user : {std::int64_t{1}, std::int64_t{42}, std::int64_t{900000001},
                                  std::numeric_limits<std::int64_t>::max()}) {
    EXPECT_EQ(VerifySubscriberToken(kSecret, MakeSubscriberToken(kSecret, user)), user);
  }
}

TEST(SubscriberTokenTest, AnotherUsersSignatureDoesNotVerify) {
  const std::string token_of_7 = MakeSubscriberToken(kSecret, 7);
  const std::string signature = token_of_7.substr(token_of_7.find('.') + 1);
  EXPECT_EQ(VerifySubscriberToken(kSecret, "8." + signature), std::nullopt);
}

TEST(SubscriberTokenTest, AnotherSecretDoesNotVerify) {
  EXPECT_EQ(VerifySubscriberToken("other-secret", MakeSubscriberToken(kSecret, 7)), std::nullopt);
  EXPECT_EQ(VerifySubscriberToken("", MakeSubscriberToken(kSecret, 7)), std::nullopt);
}

TEST(SubscriberTokenTest, MalformedTokensDoNotVerify) {
  const std::string good = MakeSubscriberToken(kSecret, 7);
  const std::string signature = good.substr(good.find('.') + 1);
  for (const std::string& bad :
       {std::string(), std::string("7"), std::string("7."), std::string(".") + signature,
        "07." + signature, "+7." + signature, "-7." + signature, "0." + signature,
        " 7." + signature, "7 ." + signature, "7." + signature + "=", "7." + signature + "x",
        "7." + signature.substr(1), "99999999999999999999." + signature, good + ".extra"}) {
    EXPECT_EQ(VerifySubscriberToken(kSecret, bad), std::nullopt) << bad;
  }
}

TEST(SubscriberTokenTest, RefusesToMakeUnusableTokens) {
  EXPECT_THROW(MakeSubscriberToken("", 1), std::invalid_argument);
  EXPECT_THROW(MakeSubscriberToken(kSecret, 0), std::invalid_argument);
  EXPECT_THROW(MakeSubscriberToken(kSecret, -3), std::invalid_argument);
}

}  // namespace
}  // namespace chopar::http
