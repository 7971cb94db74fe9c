#pragma once

#include "channels/channel.hpp"
#include "db/pool.hpp"

namespace chopar::channels {

// The channel used when a provider has no credentials: it records each
// message in chopar.sink_messages (one insert per batch: inside the worker's
// claim, or on its own pooled connection when called through Send) and
// reports it sent. The admin console shows the table;
// tests count its rows to prove each delivery was sent exactly once.
// Thread-safe.
class SinkChannel final : public Channel {
 public:
  explicit SinkChannel(db::Pool& pool) : pool_(pool) {}
  std::vector<Outcome> Send(std::span<const Message> messages) override;
  [[nodiscard]] std::string_view ProviderName() const override { return "sink"; }
  // The worker records sink messages inside its claim (see Channel).
  [[nodiscard]] bool SendsInClaim() const override { return true; }
  void SendInClaim(db::Transaction& claim, std::span<const Message> messages) override;

 private:
  db::Pool& pool_;
};

}  // namespace chopar::channels
