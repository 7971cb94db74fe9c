#include "outbox/standard_webhooks.hpp"

#include <gtest/gtest.h>

namespace chopar::outbox {
namespace {

// The test vector of the Standard Webhooks specification's reference
// libraries: what any receiver library checks against.
TEST(StandardWebhooksTest, ReproducesTheSpecificationsTestVector) {
  const auto key = DecodeWebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
  ASSERT_TRUE(key.has_value());
  EXPECT_EQ(
      SignWebhook(*key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, R"({"test": 2432232314})"),
      "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
}

TEST(StandardWebhooksTest, TheSecretsPrefixIsOptionalAndItsBodyMustBeBase64) {
  EXPECT_EQ(DecodeWebhookSecret("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
            DecodeWebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"));
  EXPECT_EQ(DecodeWebhookSecret("whsec_"), std::nullopt);
  EXPECT_EQ(DecodeWebhookSecret("whsec_not base64!"), std::nullopt);
  EXPECT_EQ(DecodeWebhookSecret(""), std::nullopt);
}

TEST(StandardWebhooksTest, EveryPartOfTheSignedContentChangesTheSignature) {
  const std::string key = "secret-key";
  const std::string base = SignWebhook(key, "id", 1, "{}");
  EXPECT_NE(SignWebhook(key, "id2", 1, "{}"), base);
  EXPECT_NE(SignWebhook(key, "id", 2, "{}"), base);
  EXPECT_NE(SignWebhook(key, "id", 1, "{ }"), base);
  EXPECT_NE(SignWebhook("other-key", "id", 1, "{}"), base);
}

}  // namespace
}  // namespace chopar::outbox
