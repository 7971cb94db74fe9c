#include "outbox/standard_webhooks.hpp"

#include "core/encoding.hpp"

namespace chopar::outbox {

namespace {
constexpr std::string_view kSecretPrefix = "whsec_";
}  // namespace

std::optional<std::string> DecodeWebhookSecret(std::string_view secret) {
  if (secret.starts_with(kSecretPrefix)) secret.remove_prefix(kSecretPrefix.size());
  auto key = core::Base64Decode(secret);
  if (!key || key->empty()) return std::nullopt;
  return key;
}

std::string SignWebhook(std::string_view key, std::string_view id, std::int64_t timestamp,
                        std::string_view body) {
  std::string signed_content;
  signed_content.reserve(id.size() + body.size() + 24);
  signed_content.append(id).append(".").append(std::to_string(timestamp)).append(".").append(body);
  return "v1," + core::Base64Encode(core::HmacSha256(key, signed_content));
}

}  // namespace chopar::outbox
