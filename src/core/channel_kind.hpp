#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <utility>

namespace chopar::core {

// The four delivery channels. In-app is not a channel: every notification is
// stored in the inbox.
enum class ChannelKind { kEmail, kTelegram, kPush, kSms };

inline constexpr std::array<ChannelKind, 4> kAllChannels = {
    ChannelKind::kEmail, ChannelKind::kTelegram, ChannelKind::kPush, ChannelKind::kSms};

// "email", "telegram", "push", "sms" — the names used in the API and the database.
constexpr std::string_view ChannelName(ChannelKind kind) {
  switch (kind) {
    case ChannelKind::kEmail: return "email";
    case ChannelKind::kTelegram: return "telegram";
    case ChannelKind::kPush: return "push";
    case ChannelKind::kSms: return "sms";
  }
  return "";
}

// nullopt for a name that is not one of the four.
constexpr std::optional<ChannelKind> ParseChannel(std::string_view name) {
  for (ChannelKind kind : kAllChannels) {
    if (ChannelName(kind) == name) return kind;
  }
  return std::nullopt;
}

constexpr std::size_t ChannelIndex(ChannelKind kind) { return static_cast<std::size_t>(kind); }

inline constexpr std::size_t kChannelCount = kAllChannels.size();

// One value per channel, indexed by ChannelKind: hourly limits, counts by
// channel, the provider of each channel. A regular value type (copyable when
// T is, comparable when T is); default-constructed values are T{}.
template <typename T>
class PerChannel {
 public:
  constexpr PerChannel() = default;
  // In the order of kAllChannels.
  constexpr PerChannel(T email, T telegram, T push, T sms)
      : values_{std::move(email), std::move(telegram), std::move(push), std::move(sms)} {}

  constexpr T& operator[](ChannelKind kind) { return values_[ChannelIndex(kind)]; }
  constexpr const T& operator[](ChannelKind kind) const { return values_[ChannelIndex(kind)]; }

  // The values in the order of kAllChannels.
  constexpr auto begin() { return values_.begin(); }
  constexpr auto end() { return values_.end(); }
  constexpr auto begin() const { return values_.begin(); }
  constexpr auto end() const { return values_.end(); }

  constexpr bool operator==(const PerChannel&) const = default;

 private:
  std::array<T, kChannelCount> values_{};
};

}  // namespace chopar::core
