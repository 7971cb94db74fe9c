#pragma once

#include "channels/channel.hpp"
#include "core/channel_kind.hpp"

namespace chopar::delivery {

// The provider for each of the four channels. Holds references: the channels
// must outlive every Worker that uses the set. Copyable; thread-safe to read.
class ChannelSet {
 public:
  ChannelSet(channels::Channel& email, channels::Channel& telegram, channels::Channel& push,
             channels::Channel& sms)
      : channels_{&email, &telegram, &push, &sms} {}

  // One provider for every channel (the sink, or a test double).
  static ChannelSet AllTo(channels::Channel& channel) {
    return ChannelSet(channel, channel, channel, channel);
  }

  [[nodiscard]] channels::Channel& For(core::ChannelKind kind) const { return *channels_[kind]; }

 private:
  core::PerChannel<channels::Channel*> channels_;
};

}  // namespace chopar::delivery
