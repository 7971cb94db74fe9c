#pragma once

#include "channels/chat/chat_format.hpp"

namespace chopar::channels::chat {

// Discord's webhooks ("Execute Webhook", docs/api.md "Discord"): one embed
// per message (its title, the body as its description, the link as its
// URL), mentions switched off so a notification's text can never ping
// @everyone; posted with ?wait=true so the answer carries the message id.
// 429 → retried after its retry_after; 401/404 (the webhook or its token was
// deleted) → address gone; 5xx → retried; other 4xx → failed. A webhook
// rests while its bucket is empty (X-RateLimit-Remaining: 0 for
// X-RateLimit-Reset-After seconds) or after a 429.
extern const ChatFormat kDiscordFormat;

// The pieces of kDiscordFormat, for tests.
std::string DiscordBody(const Message& message, std::string_view public_url);
std::string DiscordTarget(std::string_view webhook);
Outcome DiscordOutcome(const net::HttpResponse& response,
                       std::chrono::system_clock::time_point now);

}  // namespace chopar::channels::chat
