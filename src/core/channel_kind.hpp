#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace chopar::core {

// A delivery channel: one of the kinds registered in this process (the four
// built-in ones, email, telegram, push and sms, then any a binary registers
// with RegisterChannel). In-app is not a channel: every notification is
// stored in the inbox. A small value: the kind's place in the registry.
class ChannelKind {
 public:
  static const ChannelKind kEmail;
  static const ChannelKind kTelegram;
  static const ChannelKind kPush;
  static const ChannelKind kSms;

  // Email: what a value-initialised kind has always been.
  constexpr ChannelKind() = default;

  // The kind's place in the registry, 0 .. ChannelCount() - 1.
  [[nodiscard]] constexpr std::size_t index() const { return index_; }

  constexpr auto operator<=>(const ChannelKind&) const = default;

 private:
  friend class ChannelRegistry;
  constexpr explicit ChannelKind(std::uint8_t index) : index_(index) {}

  std::uint8_t index_ = 0;
};

inline constexpr ChannelKind ChannelKind::kEmail{0};
inline constexpr ChannelKind ChannelKind::kTelegram{1};
inline constexpr ChannelKind ChannelKind::kPush{2};
inline constexpr ChannelKind ChannelKind::kSms{3};

// How many kinds one process may register, built-in ones included: the
// size of every PerChannel.
inline constexpr std::size_t kMaxChannels = 16;

// Where a user's address for a channel is kept. The built-in channels'
// addresses have their own columns and tables (users.email, users.phone,
// telegram_connections, push_subscriptions), and so have mobile devices
// (chopar.devices, several a user: address "mobile_device"); every other
// address type is a text in chopar.user_addresses, set through PUT
// /v1/users/{id} "addresses".
enum class AddressStore : std::uint8_t {
  kEmail,
  kPhone,
  kTelegramChat,
  kPushSubscription,
  kDevice,
  kUser
};

// Which of the in-app texts a channel's template field stands in for: a
// request's own title (or body) replaces a template's field that stands for
// it, so a request that says its own text is not contradicted on a channel.
enum class StandsFor : std::uint8_t { kTitle, kBody, kTitleAndBody };

// A text a template may give a channel ("email.html"), and which member of
// the message carries it to the provider (channels::Message has subject,
// html, text, title and body).
struct MessageField {
  std::string_view key;    // "html": the member inside the channel's template block
  bool html_escaped;       // its Mustache values are HTML-escaped
  std::size_t max_source;  // longest template accepted, in bytes
  std::size_t max_output;  // longest rendering sent, in bytes
  StandsFor stands_for;
};

// What a channel is beyond its name, said once where it is registered: the
// kind of address it delivers to, whether it is on for a user whose
// preferences do not say, its hourly limit unless [limits.hourly] says, its
// provider's section of the configuration and the texts a template may give
// it. GET /v1/channels serves them, so the console and the bell read the
// channels from the server. Views: the registrant keeps the strings (string
// literals) and the fields alive for the life of the process.
struct ChannelInfo {
  std::string_view name;              // "email": the name in the API and the database
  std::string_view address;           // "email", "telegram_chat", "push_subscription", "phone", …
  bool on_by_default;                 // without a preference saying otherwise
  int hourly_limit;                   // per user, unless [limits.hourly] says
  std::string_view settings_section;  // "channels.email"
  std::span<const MessageField> fields;
  // For an address kept in chopar.user_addresses: why `address` cannot be
  // one of this channel's (PUT /v1/users/{id} "addresses" answers 400
  // `invalid_field` with it), or nullopt when it can. Null: any text of 1 to
  // 2048 bytes without control characters is.
  std::optional<std::string> (*address_problem)(std::string_view address) = nullptr;
};

// Where `info`'s addresses are kept: the built-in address types by name,
// any other in chopar.user_addresses.
AddressStore StoreOf(const ChannelInfo& info);

// The names of the channels whose addresses are kept in `store`, in
// registration order: what a statement that reads addresses is told.
std::vector<std::string> ChannelsKeptIn(AddressStore store);

// Adds a channel kind to this process, after the built-in four and any
// registered before it, and returns it. Call it before anything reads the
// channels (a namespace-scope constant of the binary that provides the
// channel, or the top of main): what was built from the registry before
// (a PerChannel, the template fields, the metrics) does not learn of it.
// Throws std::invalid_argument for a name that is not lowercase letters,
// digits and '_' (at most 32, starting with a letter), is registered
// already, or has a field the message cannot carry, and std::length_error
// past kMaxChannels.
ChannelKind RegisterChannel(const ChannelInfo& info);

// Every registered kind, in registration order (the built-in four first).
std::span<const ChannelKind> AllChannels();
std::size_t ChannelCount();

const ChannelInfo& InfoOf(ChannelKind kind);

// "email", "telegram", "push", "sms", …: the names used in the API and the database.
inline std::string_view ChannelName(ChannelKind kind) { return InfoOf(kind).name; }

// nullopt for a name that is not a registered channel.
std::optional<ChannelKind> ParseChannel(std::string_view name);

// "email, telegram, push or sms": the names as a message lists them.
std::string ChannelNamesText();

// One value per channel, indexed by ChannelKind: hourly limits, counts by
// channel, the provider of each channel. A regular value type (copyable when
// T is, comparable when T is); default-constructed values are T{}. Iterates
// over the registered kinds.
template <typename T>
class PerChannel {
 public:
  constexpr PerChannel() = default;
  // The built-in four, in the order of AllChannels(); any other is T{}.
  constexpr PerChannel(T email, T telegram, T push, T sms)
      : values_{std::move(email), std::move(telegram), std::move(push), std::move(sms)} {}

  constexpr T& operator[](ChannelKind kind) { return values_[kind.index()]; }
  constexpr const T& operator[](ChannelKind kind) const { return values_[kind.index()]; }

  // The values of the registered kinds, in the order of AllChannels().
  auto begin() { return values_.begin(); }
  auto end() { return values_.begin() + static_cast<std::ptrdiff_t>(ChannelCount()); }
  auto begin() const { return values_.begin(); }
  auto end() const { return values_.begin() + static_cast<std::ptrdiff_t>(ChannelCount()); }

  constexpr bool operator==(const PerChannel&) const = default;

 private:
  std::array<T, kMaxChannels> values_{};
};

// Each channel's hourly limit per user as registered (ChannelInfo::hourly_limit).
PerChannel<int> RegisteredHourlyLimits();

// What a user has in each address store: whether the built-in stores hold
// an address for them, and `own(name)`, whether chopar.user_addresses holds
// their address on the channel so named.
template <typename OwnAddress>
struct AddressesHeld {
  bool email = false;
  bool phone = false;
  bool telegram_chat = false;  // an active connection
  bool push_subscription = false;
  bool device = false;  // a mobile device (FCM or APNs token)
  OwnAddress own;
};

// Whether each registered channel has an address to deliver to, by where
// its addresses are kept: the one reading of the address stores, shared by
// notify's channel choice and the user's `channels` map.
template <typename OwnAddress>
PerChannel<bool> ReachableChannels(const AddressesHeld<OwnAddress>& held) {
  PerChannel<bool> reachable;
  for (const ChannelKind kind : AllChannels()) {
    const ChannelInfo& info = InfoOf(kind);
    switch (StoreOf(info)) {
      case AddressStore::kEmail:
        reachable[kind] = held.email;
        break;
      case AddressStore::kPhone:
        reachable[kind] = held.phone;
        break;
      case AddressStore::kTelegramChat:
        reachable[kind] = held.telegram_chat;
        break;
      case AddressStore::kPushSubscription:
        reachable[kind] = held.push_subscription;
        break;
      case AddressStore::kDevice:
        reachable[kind] = held.device;
        break;
      case AddressStore::kUser:
        reachable[kind] = held.own(info.name);
        break;
    }
  }
  return reachable;
}

}  // namespace chopar::core
