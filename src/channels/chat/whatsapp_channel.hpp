#pragma once

#include <string>

#include "channels/channel.hpp"
#include "channels/chat/webhook_rests.hpp"
#include "channels/chat/whatsapp.hpp"
#include "net/http_client.hpp"

namespace chopar::channels::chat {

// Sends each message as a template message of the WhatsApp Business Cloud
// API (whatsapp.hpp), all of a batch at once, to the user's WhatsApp number
// (their "whatsapp" address). Throughput limits are the business number's:
// after a 429 or a 130429 the number takes no more messages for the
// Retry-After (a second without one), and a message that would wait longer
// than two seconds is given back to be retried then. A failure before the
// request was written is retried; after it, the outcome is unknown and
// final (OutcomeUnknown): Meta has no idempotency key to ask with.
// Thread-safe.
class WhatsAppChannel final : public Channel {
 public:
  WhatsAppChannel(WhatsAppSettings settings, net::HttpClient& http);

  std::vector<Outcome> Send(std::span<const Message> messages) override;
  [[nodiscard]] std::string_view ProviderName() const override { return "whatsapp"; }

 private:
  WhatsAppSettings settings_;
  std::string messages_url_;
  net::HttpClient& http_;
  WebhookRests rests_;  // one entry: the business number
};

}  // namespace chopar::channels::chat
