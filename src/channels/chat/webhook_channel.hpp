#pragma once

#include <chrono>
#include <string>

#include "channels/channel.hpp"
#include "channels/chat/chat_format.hpp"
#include "channels/chat/webhook_rests.hpp"
#include "net/http_client.hpp"

namespace chopar::channels::chat {

// How chopar posts to chat webhooks; a value, set once at construction from
// the channel's section ([channels.discord], [channels.msteams]).
struct ChatWebhookSettings {
  std::string public_url;  // [server] public_url: base of the links
  // http:// and local webhooks (loopback, private): only for a test setup
  // with a local fake of the service.
  bool allow_local_webhooks = false;
  std::chrono::milliseconds timeout{10000};  // per post, from its own start
  // How long a post may wait for its webhook's rest to end before the
  // delivery is given back to be retried when it has (a longer rest).
  std::chrono::milliseconds max_wait{2000};
};

// A channel whose address is a webhook URL (the user's "addresses"): each
// message one POST of `format`'s JSON body, all of a batch at once. The URL
// must pass WebhookUrlProblem (else the delivery fails) and is connected to
// only on public addresses as resolved at send time (unless
// allow_local_webhooks). A failure before the request was written is
// retried; after it, the outcome is unknown and final (OutcomeUnknown).
// Thread-safe.
class ChatWebhookChannel final : public Channel {
 public:
  ChatWebhookChannel(const ChatFormat& format, ChatWebhookSettings settings, net::HttpClient& http);

  std::vector<Outcome> Send(std::span<const Message> messages) override;
  [[nodiscard]] std::string_view ProviderName() const override { return format_.provider; }

 private:
  const ChatFormat& format_;
  ChatWebhookSettings settings_;
  net::HttpClient& http_;
  WebhookRests rests_;
};

}  // namespace chopar::channels::chat
