#pragma once

#include "channels/chat/chat_format.hpp"

namespace chopar::channels::chat {

// Slack's incoming webhooks (docs/api.md "Slack"): Block Kit blocks — a
// header with the title, a section with the body, a button for the link —
// and the title and body as the notification's plain `text` (what a
// notification on a phone shows). 200 `ok` → sent; `no_service`,
// `channel_not_found`, `no_team`, `team_disabled` (404), `channel_is_archived`
// (410) and `invalid_token` (403) → address gone; other 4xx (`invalid_payload`,
// `action_prohibited`, …) → failed; 429 → retried after its Retry-After, and
// the webhook rests that long; 5xx → retried.
extern const ChatFormat kSlackFormat;

// The pieces of kSlackFormat, for tests.
std::string SlackBody(const Message& message, std::string_view public_url);
Outcome SlackOutcome(const net::HttpResponse& response, std::chrono::system_clock::time_point now);

// `text` with &, < and > escaped as Slack's text fields require (a
// notification's "<!channel>" must stay text, never a mention). Pure.
std::string SlackEscape(std::string_view text);

}  // namespace chopar::channels::chat
