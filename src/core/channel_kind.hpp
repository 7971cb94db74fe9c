#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace chopar::core {

// The four delivery channels. In-app is not a channel: every notification is
// stored in the inbox.
enum class ChannelKind { kEmail, kTelegram, kPush, kSms };

inline constexpr std::array<ChannelKind, 4> kAllChannels = {
    ChannelKind::kEmail, ChannelKind::kTelegram, ChannelKind::kPush, ChannelKind::kSms};

constexpr std::size_t ChannelIndex(ChannelKind kind) { return static_cast<std::size_t>(kind); }

// What a channel is beyond its name, said once: the kind of address it
// delivers to, whether it is on for a user whose preferences do not say,
// and its provider's section of the configuration. GET /v1/channels serves
// them (with the fields a template may give each, templates/target.hpp), so
// the console and the bell read the channels from the server.
struct ChannelInfo {
  std::string_view name;              // ChannelName
  std::string_view address;           // "email", "telegram_chat", "push_subscription", "phone"
  bool on_by_default;                 // without a preference saying otherwise
  std::string_view settings_section;  // "channels.email"
};

inline constexpr std::array<ChannelInfo, 4> kChannelInfo = {{
    {"email", "email", true, "channels.email"},
    {"telegram", "telegram_chat", true, "channels.telegram"},
    {"push", "push_subscription", true, "channels.push"},
    // Texts cost money and reach a phone at any hour: only when asked for.
    {"sms", "phone", false, "channels.sms"},
}};

static_assert(kChannelInfo.size() == kAllChannels.size());

constexpr const ChannelInfo& InfoOf(ChannelKind kind) { return kChannelInfo[ChannelIndex(kind)]; }

// "email", "telegram", "push", "sms" — the names used in the API and the database.
constexpr std::string_view ChannelName(ChannelKind kind) { return InfoOf(kind).name; }

// nullopt for a name that is not one of the four.
constexpr std::optional<ChannelKind> ParseChannel(std::string_view name) {
  for (ChannelKind kind : kAllChannels) {
    if (ChannelName(kind) == name) return kind;
  }
  return std::nullopt;
}

// "email, telegram, push or sms": the names as a message lists them.
inline std::string ChannelNamesText() {
  std::string text;
  for (std::size_t i = 0; i < kChannelInfo.size(); ++i) {
    if (i > 0) text += i + 1 == kChannelInfo.size() ? " or " : ", ";
    text += kChannelInfo[i].name;
  }
  return text;
}

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
