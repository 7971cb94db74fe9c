#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/channel_kind.hpp"

namespace chopar::db {
class Transaction;
}  // namespace chopar::db

namespace chopar::channels {

// One Web Push subscription of the recipient (a user may have several).
struct PushTarget {
  std::int64_t subscription_id = 0;
  std::string endpoint;
  std::string p256dh;  // base64url
  std::string auth;    // base64url
};

// One mobile device of the recipient (a user may have several): an FCM
// registration token or an APNs device token.
struct DeviceTarget {
  std::int64_t device_id = 0;
  std::string platform;  // "android", "ios" or "web"
  std::string token;
  std::string app;  // the app it belongs to ("" when the user has one app)
};

// A tenant's branding of the emails of its notifications
// (docs/tenants-and-access.md): each member as the API validated it.
struct Branding {
  std::optional<std::string> logo_url;       // http(s)
  std::optional<std::string> primary_color;  // #rrggbb
  std::optional<std::string> sender_name;    // the From display name
  std::optional<std::string> footer;         // plain text
};

// A stored email layout (docs/api.md "Layouts") the email is wrapped in
// instead of the built-in one: its html and text rendered with the
// layout's context (RenderEmail builds it). Each may throw when it cannot
// render (then the built-in layout is used). Set by the worker from the
// layout the notification's content names (`layout_key`); thread-safe.
struct EmailLayout {
  std::function<std::string(const nlohmann::json& values)> html;
  std::function<std::string(const nlohmann::json& values)> text;
};

// Everything a provider needs to send one delivery. Built by the worker from
// the claimed row; no database access is needed to send it.
struct Message {
  std::int64_t delivery_id = 0;
  std::int64_t notification_id = 0;
  std::int64_t user_id = 0;
  core::ChannelKind channel = core::ChannelKind::kEmail;
  int attempt = 1;  // 1 for the first try

  std::string type;
  std::string title;
  std::string body;
  std::optional<std::string> link;  // internal path, e.g. "/tasks/1"
  nlohmann::json data = nlohmann::json::object();
  std::string locale = "en";
  bool critical = false;
  // The category preferences name this notification by, if it has one.
  std::optional<std::string> category;
  // The notification's dedup key, for the channels that tell a push service
  // which notifications replace each other (APNs' apns-collapse-id); only
  // set for those (core::AddressStore::kDevice).
  std::optional<std::string> dedup_key;
  // A template's own texts for this channel, rendered when the notification
  // was created (see ApplyChannelTexts); unset, they are built from title
  // and body. Push's title and body replace `title` and `body` instead.
  std::optional<std::string> subject;  // email.subject
  std::optional<std::string> html;     // email.html: the content inside the email layout
  std::optional<std::string> text;     // email.text, telegram.text (HTML) or sms.text
  // The branding of the notification's tenant, for an email (the email
  // block's "branding" in the notification's content); none outside tenants.
  std::optional<Branding> branding;
  // The email layout the notification's content names (its email block's
  // "layout": {"key", "tenant"}), and the layout found for it when the
  // message is claimed; none: the built-in layout.
  std::optional<std::string> layout_key;
  std::optional<std::string> layout_tenant;
  std::optional<EmailLayout> layout;

  // The address for this channel (only the one for `channel` is set).
  std::optional<std::string> email;
  std::optional<std::string> phone;  // E.164
  std::optional<std::int64_t> telegram_chat_id;
  std::vector<PushTarget> push_targets;
  std::vector<DeviceTarget> device_targets;
  // A registered channel's address kept in chopar.user_addresses
  // (core::AddressStore::kUser).
  std::optional<std::string> address;
};

// Puts a template's rendered texts for the message's channel into it:
// `block` is what notifications.content holds for that channel, its
// registered fields (core::ChannelInfo::fields: {"subject", "html", "text"}
// for email, {"text"} for Telegram and SMS, {"title", "body"} for push), each
// into the message's member of that name; null, or members the channel does
// not have, change nothing. A "branding" object in the block becomes the
// message's branding, a "layout" object {"key", "tenant"} its layout_key
// and layout_tenant.
void ApplyChannelTexts(Message& message, const nlohmann::json& block);

// Why `message` cannot be handed to a provider (no address for its
// channel), or nullopt when it can.
std::optional<std::string> MissingAddress(const Message& message);

// The header every HTTP request to a provider carries for a delivery
// ("X-Chopar-Delivery-Id: 42"), so the provider's logs, a proxy or a test
// double can tell which delivery a request is and count repeats. (An email
// carries the delivery id at the start of its Message-ID.)
std::string DeliveryIdHeader(std::int64_t delivery_id);
// Adds DeliveryIdHeader and "X-Chopar-Instance: <pid>" (which process sent
// it: a repeat's timeline in the fault lab, or an operator reading a
// provider's logs, tells the senders apart) to a provider request's headers.
void AddDeliveryHeaders(std::vector<std::string>& headers, std::int64_t delivery_id);

enum class OutcomeKind {
  kSent,         // accepted by the provider
  kRetry,        // try again later (429, 5xx, timeout, SMTP 4xx)
  kPermanent,    // will never succeed as it is (other 4xx, SMTP 5xx)
  kAddressGone,  // the address no longer exists (Telegram 403, push 404/410)
  // The request reached the provider (or may have) and no answer came: it
  // may have been delivered. Final, never sent again (see OutcomeUnknown).
  kUnknown,
  // Not handed to any provider: the address is suppressed (a hard bounce,
  // docs/api.md "Suppressions"). The delivery is skipped.
  kSkipped,
};

// What happened to one message. The worker routes on `kind`; `detail` is the
// human-readable reason stored in deliveries.last_error.
struct [[nodiscard]] Outcome {
  OutcomeKind kind = OutcomeKind::kSent;
  std::string detail;
  std::optional<std::string> provider_message_id;
  // The provider's own delay (Retry-After, retry_after); wins over backoff.
  std::optional<std::chrono::seconds> retry_after;
  // Push subscriptions the push service reported gone (404/410), whatever
  // the overall kind: with two subscriptions, one gone and one delivered,
  // the outcome is kSent and the gone one is listed here.
  std::vector<std::int64_t> gone_push_subscriptions;
  // Likewise the mobile devices whose token the push service reported gone
  // (FCM UNREGISTERED, APNs 410).
  std::vector<std::int64_t> gone_devices;
  // Which provider gave the outcome, recorded as deliveries.provider: set
  // by a channel with several (FailoverChannel); empty, the worker records
  // the channel's ProviderName().
  std::string provider;
  // A retry whose message the provider may already hold (another sender of
  // this process's provider is sending it right now): it must come back to
  // the same provider, never move on to another (FailoverChannel).
  bool provider_may_hold = false;

  static Outcome Of(OutcomeKind kind, std::string reason) {
    Outcome o;
    o.kind = kind;
    o.detail = std::move(reason);
    return o;
  }
  static Outcome Sent(std::optional<std::string> provider_id = std::nullopt) {
    Outcome o;
    o.provider_message_id = std::move(provider_id);
    return o;
  }
  static Outcome Retry(std::string reason,
                       std::optional<std::chrono::seconds> after = std::nullopt) {
    Outcome o = Of(OutcomeKind::kRetry, std::move(reason));
    o.retry_after = after;
    return o;
  }
  static Outcome Permanent(std::string reason) {
    return Of(OutcomeKind::kPermanent, std::move(reason));
  }
  static Outcome AddressGone(std::string reason) {
    return Of(OutcomeKind::kAddressGone, std::move(reason));
  }
  static Outcome Skipped(std::string reason) {
    return Of(OutcomeKind::kSkipped, std::move(reason));
  }
  // Use OutcomeUnknown (channels/outcome_unknown.hpp), which words the reason.
  static Outcome Unknown(std::string reason) {
    return Of(OutcomeKind::kUnknown, std::move(reason));
  }
};

// One message's outcome, by the message's index in its batch.
struct IndexedOutcome {
  std::size_t index = 0;
  Outcome outcome;
};
// Takes outcomes as they become known, some messages at a time.
using OutcomeReport = std::function<void(std::vector<IndexedOutcome> outcomes)>;

// A provider for one channel. Send() takes a batch (all of the same channel)
// and returns exactly one outcome per message, in order. It must not throw
// for provider failures (those are outcomes); an exception means a bug or a
// lost database and makes the worker retry the messages it has no outcome
// for later. It is never called while a database transaction or row lock is
// held. Implementations must be safe to call from several worker threads at
// once.
class Channel {
 public:
  virtual ~Channel() = default;
  virtual std::vector<Outcome> Send(std::span<const Message> messages) = 0;

  // Sends like Send() but hands each message's outcome to `report` as soon
  // as it is known, so the worker records it while the rest of the batch is
  // still out: one message's slow provider then holds only that message's
  // outcome. Each message is reported once; an exception from `report` ends
  // the call with it. The default sends the whole batch, then reports every
  // outcome at once; a channel whose messages end at very different times
  // (Web Push, whose endpoints the subscribers choose) reports each as it
  // ends.
  virtual void SendReporting(std::span<const Message> messages, const OutcomeReport& report) {
    std::vector<Outcome> outcomes = Send(messages);
    std::vector<IndexedOutcome> all;
    all.reserve(outcomes.size());
    for (std::size_t i = 0; i < outcomes.size(); ++i) all.push_back({i, std::move(outcomes[i])});
    report(std::move(all));
  }
  // "sink", "smtp", "telegram", "webpush", "eskiz": for logs and metrics.
  [[nodiscard]] virtual std::string_view ProviderName() const = 0;

  // Whether this channel may be handed a message whose earlier send may
  // already have reached the provider (its worker's lease ran out mid-send)
  // without risking a second delivery: it keeps its own record of what was
  // sent and asks the provider before sending again. A channel that answers
  // false (the default) is never handed such a message: the delivery fails
  // as "outcome unknown" instead (docs/RELIABILITY.md, "Deliveries").
  [[nodiscard]] virtual bool GuardsRepeats() const { return false; }

  // A channel with no network to wait on (the sink, which writes a table)
  // may instead complete inside the claim's own transaction: the delivery
  // then goes queued → sent in one write, with no lease to hold and no
  // window in which a crash could send it twice. Such a channel answers
  // every message sent, or throws and the whole claim rolls back. Its writes
  // may be deferred (db::Transaction::Defer): they run before the claim's
  // own update, in the same transaction.
  [[nodiscard]] virtual bool SendsInClaim() const { return false; }
  virtual void SendInClaim(db::Transaction& /*claim*/, std::span<const Message> /*messages*/) {
    throw std::logic_error(std::string(ProviderName()) + " channel cannot send inside a claim");
  }
};

}  // namespace chopar::channels
