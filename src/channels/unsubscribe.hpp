#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "channels/channel.hpp"
#include "core/channel_kind.hpp"

namespace chopar::channels {

// One-click unsubscribe links (RFC 8058; docs/api.md "Preferences by
// category and type"): a link turns one scope of notifications off on one
// channel for one user, and carries a signature so that nobody can make the
// link of another user. Pure functions; thread-safe.

// What a link turns off: a category ("category", "tasks"), or a type when
// the notification has no category ("type", "task.due").
struct UnsubscribeScope {
  std::string kind;  // "category" or "type"
  std::string name;

  // The notification's category, else its type.
  static UnsubscribeScope Of(const Message& message);
  bool operator==(const UnsubscribeScope&) const = default;
};

// base64url(HMAC-SHA256(key = DeriveKey(inbox secret, kSignedLinks),
// "unsubscribe\n<user>\n<kind>:<name>\n<channel>")), unpadded: a key of
// links alone, so a link signature can never pass for a subscriber token.
// `secret` is the inbox secret.
std::string SignUnsubscribe(std::string_view secret, std::int64_t user_id,
                            const UnsubscribeScope& scope, core::ChannelKind channel);

// Whether `signature` is the one for these values (compared in constant
// time): made with the links' key, or, for links mailed by earlier
// versions, the same text signed with the inbox secret itself (still
// accepted: its first line keeps it from ever equalling a subscriber
// token). False for an empty secret.
bool VerifyUnsubscribe(std::string_view secret, std::int64_t user_id, const UnsubscribeScope& scope,
                       core::ChannelKind channel, std::string_view signature);

// <public_url>/v1/unsubscribe?user=<id>&<kind>=<name>&channel=<channel>&sig=<signature>
std::string UnsubscribeUrl(std::string_view public_url, std::string_view secret,
                           std::int64_t user_id, const UnsubscribeScope& scope,
                           core::ChannelKind channel);

}  // namespace chopar::channels
