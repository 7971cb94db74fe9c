#pragma once

#include "channels/chat/chat_format.hpp"

namespace chopar::channels::chat {

// Microsoft Teams: an incoming webhook or a Workflows (Power Automate) URL
// of a chat or a team's channel (docs/api.md "Microsoft Teams"), posted an
// Adaptive Card 1.4: the title in bold, the body, and an "Open" button for
// the link. 2xx → sent, except the connector's "200 … delivery failed"
// answers (a 429 inside → retried, else failed); 429 → retried after its
// Retry-After; 404/410 (the webhook was removed) → address gone; 5xx →
// retried; other 4xx (400 bad card, 413 too large) → failed. A webhook rests
// after a 429 for its Retry-After (a second without one).
extern const ChatFormat kTeamsFormat;

// The pieces of kTeamsFormat, for tests.
std::string TeamsBody(const Message& message, std::string_view public_url);
Outcome TeamsOutcome(const net::HttpResponse& response, std::chrono::system_clock::time_point now);

}  // namespace chopar::channels::chat
