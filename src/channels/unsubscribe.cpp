#include "channels/unsubscribe.hpp"

#include <cctype>

#include "core/encoding.hpp"
#include "core/key_derivation.hpp"
#include "core/text.hpp"

namespace chopar::channels {
namespace {

std::string SignedText(std::int64_t user_id, const UnsubscribeScope& scope,
                       core::ChannelKind channel) {
  return "unsubscribe\n" + std::to_string(user_id) + "\n" + scope.kind + ":" + scope.name + "\n" +
         std::string(core::ChannelName(channel));
}

}  // namespace

UnsubscribeScope UnsubscribeScope::Of(const Message& message) {
  if (message.category) return {"category", *message.category};
  return {"type", message.type};
}

std::string SignUnsubscribe(std::string_view secret, std::int64_t user_id,
                            const UnsubscribeScope& scope, core::ChannelKind channel) {
  return core::Base64UrlEncode(core::HmacSha256(core::DeriveKey(secret, core::KeyUse::kSignedLinks),
                                                SignedText(user_id, scope, channel)));
}

bool VerifyUnsubscribe(std::string_view secret, std::int64_t user_id, const UnsubscribeScope& scope,
                       core::ChannelKind channel, std::string_view signature) {
  if (secret.empty()) return false;
  const std::string legacy =
      core::Base64UrlEncode(core::HmacSha256(secret, SignedText(user_id, scope, channel)));
  // Both compared, whichever matches, so the time does not tell which key.
  const bool current =
      core::ConstantTimeEquals(SignUnsubscribe(secret, user_id, scope, channel), signature);
  const bool earlier = core::ConstantTimeEquals(legacy, signature);
  return current || earlier;
}

std::string UnsubscribeUrl(std::string_view public_url, std::string_view secret,
                           std::int64_t user_id, const UnsubscribeScope& scope,
                           core::ChannelKind channel) {
  return std::string(core::WithoutTrailingSlashes(public_url)) +
         "/v1/unsubscribe?user=" + std::to_string(user_id) + "&" + scope.kind + "=" +
         core::PercentEncode(scope.name) + "&channel=" + std::string(core::ChannelName(channel)) +
         "&sig=" + SignUnsubscribe(secret, user_id, scope, channel);
}

}  // namespace chopar::channels
