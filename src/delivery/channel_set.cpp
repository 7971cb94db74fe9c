#include "delivery/channel_set.hpp"

namespace chopar::delivery {
namespace {

// The provider of a registered channel this process was given none for: its
// deliveries fail, and say why, instead of waiting for a provider that
// will not come.
class NoProvider final : public channels::Channel {
 public:
  std::vector<channels::Outcome> Send(std::span<const channels::Message> messages) override {
    std::vector<channels::Outcome> outcomes;
    outcomes.reserve(messages.size());
    for (const channels::Message& m : messages) {
      outcomes.push_back(channels::Outcome::Permanent("no provider for channel " +
                                                      std::string(core::ChannelName(m.channel))));
    }
    return outcomes;
  }
  [[nodiscard]] std::string_view ProviderName() const override { return "none"; }
};

}  // namespace

channels::Channel& ChannelSet::For(core::ChannelKind kind) const {
  static NoProvider none;
  channels::Channel* channel = channels_[kind];
  return channel != nullptr ? *channel : none;
}

}  // namespace chopar::delivery
