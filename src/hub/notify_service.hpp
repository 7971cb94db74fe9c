#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/channel_kind.hpp"
#include "core/clock.hpp"
#include "core/coalescer.hpp"
#include "core/metrics.hpp"
#include "core/request_error.hpp"
#include "db/pool.hpp"
#include "hub/actions_and_tags.hpp"
#include "templates/template_store.hpp"

namespace chopar::hub {

// A validated notification to create (docs/api.md POST /v1/notifications).
struct NotificationRequest {
  std::int64_t user_id = 0;
  std::string type;
  // Empty: not given (then the type's template must say it). Non-empty
  // title and body win over the template's (see ComposeContent).
  std::string title;
  std::string body;
  // The category preferences apply to, when the type's template names none.
  std::optional<std::string> category;
  std::optional<std::string> link;
  nlohmann::json data = nlohmann::json::object();
  std::optional<std::string> dedup_key;
  std::vector<core::ChannelKind> channels{core::AllChannels().begin(), core::AllChannels().end()};
  bool critical = false;
  // Not before (docs/api.md "Workflows"): `send_at`, or `delay_seconds` after
  // the notify call. Later than now: a delayed notification, nothing visible
  // or sent until then; now or earlier: at once.
  std::optional<core::TimePoint> send_at;
  std::optional<int> delay_seconds;
  // Cancels it and its deliveries (POST /v1/notifications/cancel).
  std::optional<std::string> cancellation_key;
  // The tenant the notification is in (docs/tenants-and-access.md): the
  // user must belong to it; its template of the type, its default
  // preferences and its branding apply. None: as before tenants.
  std::optional<std::string> tenant;
  // Its buttons (none: its template's, if any) and its tags (merged with
  // its template's): docs/api.md "Actions and tags".
  std::vector<NotificationAction> actions;
  std::vector<std::string> tags;
  // The id drawn when a delayed notification was asked for, which it gets
  // when released. Never read from a request body.
  std::optional<std::int64_t> id;

  // When it is due if notified at `now`.
  [[nodiscard]] core::TimePoint DueAt(core::TimePoint now) const {
    if (send_at) return *send_at;
    return now + std::chrono::seconds(delay_seconds.value_or(0));
  }
};

// The longest delay_seconds (a year).
inline constexpr int kMaxDelaySeconds = 366 * 24 * 3600;

// Parses and validates one request body. Throws core::RequestError
// (kInvalidJson, kInvalidField) naming the field: wrong types, missing user_id/type, a type or
// category that does not match ^[a-z]+(\.[a-z_]+)*$, an external link, unknown channels, lengths.
// A missing title is refused when the notification is created, if its type has no template.
// "actions" and "tags" as ParseActions and core::ParseTags read them.
// "tenant", when given, must be a tenant key (membership is checked when it is created:
// kInvalidField "tenant" for a user who does not belong to that tenant, or no such tenant).
NotificationRequest ParseNotificationRequest(const nlohmann::json& body);

struct NotifyResult {
  std::int64_t id = 0;
  bool created = false;
  std::vector<core::ChannelKind> channels;  // empty when not created, or delayed
  // A delayed notification: when it appears (its channels are chosen then).
  std::optional<core::TimePoint> send_at;
  // The outcomes of the workflow steps the call did itself, in the
  // statement that created the notification (none without steps):
  // NotifyMetrics counts them once committed.
  std::vector<std::string> workflow_steps;
};

// One item of a batch: created (or found by its dedup key), or refused.
using BatchItemResult = std::variant<NotifyResult, core::RequestError>;

// chopar_notifications_created_total in a registry, resolved once. It
// counts committed notifications only: whoever commits counts.
class NotifyMetrics {
 public:
  explicit NotifyMetrics(core::MetricsRegistry& registry);
  // Counts the results that created a notification (a delayed one counts
  // when it is released), and the workflow steps they did
  // (chopar_workflow_steps_total); call after the commit that made them
  // durable. Thread-safe.
  void CountCommitted(const std::vector<BatchItemResult>& results);
  // Counts `created` notifications written without a result each (a
  // broadcast's set-based batch); call after their commit. Thread-safe.
  void CountCreated(std::int64_t created);
  // Counts workflow steps done (their outcomes) by notifications whose
  // results were not handed to CountCommitted; after their commit.
  void CountWorkflowSteps(const std::vector<std::string>& outcomes);

 private:
  core::MetricsRegistry& registry_;
  core::Counter& created_;
};

// Creates notifications: the in-app row, one delivery per chosen channel and
// one NOTIFY to wake workers and inbox streams, all in one statement.
// With `templates`, a type that has a template is rendered in each user's
// locale (hub/notification_content.hpp) and its category decides with the
// type which channels the user's preferences allow (hub/channel_choice.hpp).
// Thread-safe (each call borrows its own connection). The pool, clock and
// registry must outlive the service; so must `templates`, which may be null
// (no type has a template).
class NotifyService {
 public:
  // Single notifications that arrive while one is being written wait and are
  // written together next, by one statement: see Notify.
  static constexpr std::size_t kMaxCoalescedBatch = 64;

  NotifyService(db::Pool& pool, const core::Clock& clock, core::MetricsRegistry& metrics,
                const templates::TemplateLookup* templates = nullptr);

  // One notification. Throws core::RequestError kUserNotFound for an unknown user (also for one
  // erased or being erased: docs/privacy.md), kInvalidField for a title neither the request nor a
  // template gives. Those for an erased user are counted in
  // chopar_erased_user_events_dropped_total{source="notify"} (looked up only then: the hot path
  // asks nothing more).
  // Calls from several threads are coalesced (core::Coalescer): one that
  // finds no other being written is written at once; the ones that arrive
  // meanwhile are written together as one NotifyBatch, up to
  // kMaxCoalescedBatch, each with its own result. Under load that shares a
  // statement's fixed cost (a round trip, the commit, the NOTIFY) among them.
  NotifyResult Notify(const NotificationRequest& request);
  // How many Notify calls wait for a write to take them (tests).
  [[nodiscard]] std::size_t WaitingSingles() const { return singles_.Waiting(); }

  // Many notifications in one statement of set-based SQL. Each item is
  // accepted or rejected on its own (unknown user → its own error); results
  // are in input order.
  std::vector<BatchItemResult> NotifyBatch(const std::vector<NotificationRequest>& requests);

  // The same inside a transaction the caller owns (the scheduler and the
  // relay create notifications atomically with their own bookkeeping). The
  // caller commits; the NOTIFY is sent at that commit, and the caller counts
  // what it committed (NotifyMetrics::CountCommitted).
  // Statements the caller deferred on `tx` run first. A broadcast's batch
  // gives `broadcast_due`: its deliveries fall due then instead of at `now`
  // (a broadcast spreads its deliveries out in time) and are bulk, claimed
  // after the ordinary deliveries that are due. Digest windows are
  // decided at `simulated_windows_now` when set (a simulated clock),
  // otherwise at the database's clock under the windows' locks (workflow::JoinDigests).
  static std::vector<BatchItemResult> NotifyIn(
      db::Transaction& tx, const std::vector<NotificationRequest>& requests, core::TimePoint now,
      const templates::TemplateLookup* templates = nullptr,
      std::optional<core::TimePoint> broadcast_due = std::nullopt,
      std::optional<core::TimePoint> simulated_windows_now = std::nullopt);

 private:
  // Counts the results for users not found that were erased.
  void CountErasedUsers(const std::vector<NotificationRequest>& requests,
                        const std::vector<BatchItemResult>& results);

  db::Pool& pool_;
  const core::Clock& clock_;
  NotifyMetrics metrics_;
  const templates::TemplateLookup* templates_;
  core::Histogram& coalesced_;
  core::Counter& erased_dropped_;
  core::Coalescer<NotificationRequest, BatchItemResult> singles_;
};

}  // namespace chopar::hub
