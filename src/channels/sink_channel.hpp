#pragma once

#include "channels/channel.hpp"
#include "db/pool.hpp"

namespace chopar::channels {

// The channel used when a provider has no credentials: it records each
// message in chopar.sink_messages (one insert per batch: inside the worker's
// claim, or on its own pooled connection when called through Send) and
// reports it sent. Each row is the message as that channel's provider would
// have carried it (render.hpp, links absolute against `public_url`): an
// email's subject, text and HTML; the Telegram HTML text; the push title and
// body; the SMS text (a template's own texts for the channel where the
// notification has them; the email's unsubscribe link signed with
// `unsubscribe_secret`, as the email channel signs it). The admin console
// shows the table; tests count its rows to prove each delivery was sent
// exactly once. Thread-safe.
class SinkChannel final : public Channel {
 public:
  explicit SinkChannel(db::Pool& pool, std::string public_url = {},
                       std::string unsubscribe_secret = {})
      : pool_(pool),
        public_url_(std::move(public_url)),
        unsubscribe_secret_(std::move(unsubscribe_secret)) {}
  std::vector<Outcome> Send(std::span<const Message> messages) override;
  [[nodiscard]] std::string_view ProviderName() const override { return "sink"; }
  // The worker records sink messages inside its claim (see Channel).
  [[nodiscard]] bool SendsInClaim() const override { return true; }
  void SendInClaim(db::Transaction& claim, std::span<const Message> messages) override;

 private:
  [[nodiscard]] db::Params Rows(std::span<const Message> messages) const;

  db::Pool& pool_;
  std::string public_url_;
  std::string unsubscribe_secret_;
};

}  // namespace chopar::channels
