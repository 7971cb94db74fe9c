#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace chopar::outbox {

// Standard Webhooks signing (https://www.standardwebhooks.com): a receiver's
// existing library verifies what chopar sends.

// The signing key of a "whsec_<base64>" secret (the prefix is optional, as
// in the reference libraries): the decoded bytes. nullopt when the base64
// part is empty or not base64.
std::optional<std::string> DecodeWebhookSecret(std::string_view secret);

// The webhook-signature header value for one attempt:
// "v1," + base64(HMAC-SHA256(key, "<id>.<timestamp>.<body>")).
std::string SignWebhook(std::string_view key, std::string_view id, std::int64_t timestamp,
                        std::string_view body);

}  // namespace chopar::outbox
