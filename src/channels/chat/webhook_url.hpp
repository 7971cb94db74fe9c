#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace chopar::channels::chat {

// Why `url` cannot be a chat webhook (a Discord or Microsoft Teams URL a
// user or an admin supplies), or nullopt when it can: an absolute https://
// URL without spaces or control characters whose host is public — not
// loopback, private, link-local or metadata (net/address_policy.hpp), the
// same policy as a Web Push endpoint. The host name is checked again once
// resolved, at send time. `allow_local` (a test setup with a local fake of
// the provider) also takes http:// and local hosts. Pure.
std::optional<std::string> WebhookUrlProblem(std::string_view url, bool allow_local);

}  // namespace chopar::channels::chat
