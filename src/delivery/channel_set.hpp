#pragma once

#include "channels/channel.hpp"
#include "core/channel_kind.hpp"

namespace chopar::delivery {

// The provider for each channel: the built-in four, and any registered
// channel given its own with With(). Holds references: the channels must
// outlive every Worker that uses the set. Copyable; thread-safe to read.
class ChannelSet {
 public:
  ChannelSet(channels::Channel& email, channels::Channel& telegram, channels::Channel& push,
             channels::Channel& sms)
      : channels_{&email, &telegram, &push, &sms} {}

  // One provider for every channel (the sink, or a test double).
  static ChannelSet AllTo(channels::Channel& channel) {
    ChannelSet set(channel, channel, channel, channel);
    for (core::ChannelKind kind : core::AllChannels()) set.channels_[kind] = &channel;
    return set;
  }

  // This set with `channel` as `kind`'s provider.
  [[nodiscard]] ChannelSet With(core::ChannelKind kind, channels::Channel& channel) const {
    ChannelSet set = *this;
    set.channels_[kind] = &channel;
    return set;
  }

  // `kind`'s provider, or one that fails every message as permanent ("no
  // provider for channel …") when the set has none for it.
  [[nodiscard]] channels::Channel& For(core::ChannelKind kind) const;

 private:
  core::PerChannel<channels::Channel*> channels_;
};

}  // namespace chopar::delivery
