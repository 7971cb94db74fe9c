#pragma once

#include <array>
#include <optional>
#include <string_view>

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

}  // namespace chopar::core
