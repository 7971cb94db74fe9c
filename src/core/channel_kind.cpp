#include "core/channel_kind.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "core/text.hpp"

namespace chopar::core {
namespace {

using enum StandsFor;

// The in-app title and body stand for themselves; these are each built-in
// channel's own texts (docs/api.md "Templates and localization").
constexpr MessageField kEmailFields[] = {
    {"subject", false, 2000, 2000, kTitle},
    {"html", true, 100000, 512 * 1024, kBody},
    {"text", false, 50000, 256 * 1024, kBody},
};
constexpr MessageField kTelegramFields[] = {{"text", true, 8000, 4096 * 4, kTitleAndBody}};
constexpr MessageField kPushFields[] = {
    {"title", false, 2000, 2000, kTitle},
    {"body", false, 8000, 4000, kBody},
};
constexpr MessageField kSmsFields[] = {{"text", false, 2000, 2000, kTitleAndBody}};

// The members of channels::Message a template's field can fill.
constexpr std::string_view kMessageMembers[] = {"subject", "html", "text", "title", "body"};

bool IsChannelName(std::string_view name) {
  if (name.empty() || name.size() > 32 || name.front() < 'a' || name.front() > 'z') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

}  // namespace

// The registry: written by RegisterChannel before the process reads it
// (see there), then only read, so it needs no lock.
class ChannelRegistry {
 public:
  static ChannelRegistry& Get() {
    static ChannelRegistry registry;
    return registry;
  }

  ChannelKind Add(const ChannelInfo& info) {
    if (!IsChannelName(info.name)) {
      throw std::invalid_argument("channel name '" + std::string(info.name) +
                                  "' must be 1 to 32 lowercase letters, digits or '_', "
                                  "starting with a letter");
    }
    if (Find(info.name)) {
      throw std::invalid_argument("channel '" + std::string(info.name) + "' is registered already");
    }
    for (const MessageField& field : info.fields) {
      if (std::find(std::begin(kMessageMembers), std::end(kMessageMembers), field.key) ==
          std::end(kMessageMembers)) {
        throw std::invalid_argument("channel '" + std::string(info.name) + "' field '" +
                                    std::string(field.key) + "' must be one of " +
                                    ChoiceText(kMessageMembers));
      }
    }
    if (infos_.size() == kMaxChannels) {
      throw std::length_error("at most " + std::to_string(kMaxChannels) + " channels");
    }
    const ChannelKind kind(static_cast<std::uint8_t>(infos_.size()));
    infos_.push_back(info);
    kinds_.push_back(kind);
    return kind;
  }

  [[nodiscard]] std::optional<ChannelKind> Find(std::string_view name) const {
    for (const ChannelKind kind : kinds_) {
      if (infos_[kind.index()].name == name) return kind;
    }
    return std::nullopt;
  }

  [[nodiscard]] std::span<const ChannelKind> kinds() const { return kinds_; }
  [[nodiscard]] const ChannelInfo& info(ChannelKind kind) const { return infos_[kind.index()]; }

 private:
  ChannelRegistry() {
    infos_.reserve(kMaxChannels);
    kinds_.reserve(kMaxChannels);
    Add({"email", "email", true, 20, "channels.email", kEmailFields});
    Add({"telegram", "telegram_chat", true, 30, "channels.telegram", kTelegramFields});
    Add({"push", "push_subscription", true, 30, "channels.push", kPushFields});
    // Texts cost money and reach a phone at any hour: only when asked for.
    Add({"sms", "phone", false, 3, "channels.sms", kSmsFields});
  }

  std::vector<ChannelInfo> infos_;
  std::vector<ChannelKind> kinds_;
};

AddressStore StoreOf(const ChannelInfo& info) {
  if (info.address == "email") return AddressStore::kEmail;
  if (info.address == "phone") return AddressStore::kPhone;
  if (info.address == "telegram_chat") return AddressStore::kTelegramChat;
  if (info.address == "push_subscription") return AddressStore::kPushSubscription;
  if (info.address == "mobile_device") return AddressStore::kDevice;
  return AddressStore::kUser;
}

std::vector<std::string> ChannelsKeptIn(AddressStore store) {
  std::vector<std::string> names;
  for (const ChannelKind kind : AllChannels()) {
    if (StoreOf(InfoOf(kind)) == store) names.emplace_back(ChannelName(kind));
  }
  return names;
}

ChannelKind RegisterChannel(const ChannelInfo& info) { return ChannelRegistry::Get().Add(info); }

std::span<const ChannelKind> AllChannels() { return ChannelRegistry::Get().kinds(); }

std::size_t ChannelCount() { return AllChannels().size(); }

const ChannelInfo& InfoOf(ChannelKind kind) { return ChannelRegistry::Get().info(kind); }

std::optional<ChannelKind> ParseChannel(std::string_view name) {
  return ChannelRegistry::Get().Find(name);
}

std::string ChannelNamesText() {
  std::vector<std::string_view> names;
  for (const ChannelKind kind : AllChannels()) names.push_back(ChannelName(kind));
  return ChoiceText(names);
}

PerChannel<int> RegisteredHourlyLimits() {
  PerChannel<int> limits;
  for (const ChannelKind kind : AllChannels()) limits[kind] = InfoOf(kind).hourly_limit;
  return limits;
}

}  // namespace chopar::core
