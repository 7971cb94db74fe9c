#pragma once

// The notification the provider benchmarks send: the same Uzbek text for
// every channel; the caller sets the channel's address.

#include <cstdint>
#include <string>

#include "channels/channel.hpp"

namespace chopar::bench {

inline channels::Message SampleMessage(std::int64_t id, core::ChannelKind channel) {
  channels::Message m;
  m.delivery_id = id;
  m.notification_id = id;
  m.user_id = id;
  m.channel = channel;
  m.type = "task.due";
  m.title = "Muddat yaqin";
  m.body = "Non olish — 18:00";
  m.link = "/tasks/" + std::to_string(id);
  m.locale = "uz";
  return m;
}

}  // namespace chopar::bench
