#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "broadcast/settings.hpp"
#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "db/background_loop.hpp"
#include "db/pool.hpp"
#include "hub/notify_service.hpp"
#include "templates/template_store.hpp"

namespace chopar::broadcast {

// What one fan-out batch did.
struct FanOutBatch {
  std::int64_t broadcast_id = 0;
  int recipients = 0;     // recipients walked
  int created = 0;        // notifications created (the rest existed: a repeated batch)
  bool finished = false;  // no recipient was left: the broadcast is done
  // A batch of a canceled broadcast's stop walk (stop_walk.hpp): the
  // deliveries it canceled, delayed notifications it deleted and digest
  // items it removed (its `recipients` are those it looked at; `finished`:
  // none are left).
  std::int64_t canceled = 0;
  std::int64_t delayed_deleted = 0;
  std::int64_t digest_items_removed = 0;
};

// Fans running broadcasts out to their recipients (docs/api.md "Topics and
// broadcasts"). Each batch is one transaction: lock one running broadcast
// (FOR UPDATE SKIP LOCKED, and only when its lease has run out or is this
// process's), read the next settings.batch recipients after its cursor in
// user id order, create their notifications and deliveries (dedup key
// "broadcast:<id>", one NOTIFY for the inbox streams and, when its
// deliveries are due at once, one for the workers), then advance the
// cursor, the counts and the lease — committed together. Without a template
// for the type the batch is one set-based statement
// (queries/fan_out_batch.sql: the recipients, the channels chosen from
// preferences and addresses, the rows, in the database, the content
// composed once); a templated or delayed notification is rendered per
// recipient by hub::NotifyService::NotifyIn. A crash rolls the batch back;
// the next process to take the broadcast repeats at most that batch, and the
// dedup key absorbs anything repeated. Any number of FanOuts in any number
// of processes may run against one database; one broadcast is fanned out by
// one of them at a time.
//
// What a canceled broadcast has not sent yet (queued deliveries, delayed
// notifications, digest items) is stopped the same way, a batch of
// recipients per transaction under the same lease, walking down from the
// last recipient the fan-out reached (StopNextBatch, stop_walk.hpp); the
// cancel itself ran the walk's first batch.
//
// The deliveries of a batch fall due settings.deliveries_per_second after
// the previous batch's (see FanOutSettings), so ordinary notifications are
// not queued behind a whole broadcast.
//
// Metrics: chopar_broadcast_recipients_total (recipients walked),
// chopar_notifications_created_total (hub::NotifyMetrics) and the loop's
// ("broadcast"). The pool, clock, registry and `templates` (may be null: no
// type has a template) must outlive the FanOut.
class FanOut {
 public:
  FanOut(db::Pool& pool, const core::Clock& clock, core::MetricsRegistry& metrics,
         FanOutSettings settings = {}, const templates::TemplateLookup* templates = nullptr);
  ~FanOut();  // Stop()
  FanOut(const FanOut&) = delete;
  FanOut& operator=(const FanOut&) = delete;

  // One batch of one claimable broadcast; nullopt when none is claimable.
  // Throws db::DbError / db::PoolTimeout (the batch is rolled back) and
  // hub::StoredRequestError for a stored notification it cannot decode
  // (written by a newer chopar, or edited by hand).
  // Thread-safe.
  std::optional<FanOutBatch> RunBatch();
  // Batches until none is claimable or Stop() is called; returns how many
  // were committed. Thread-safe.
  int RunOnce();

  // Starts the loop (db::BackgroundLoop "broadcast", woken by NOTIFY
  // chopar_broadcasts). Call once.
  void Start();
  // Stops the loop; a batch in progress commits or rolls back first.
  // Idempotent.
  void Stop();

  // This process's lease holder name (host, pid and a random part).
  [[nodiscard]] const std::string& owner() const { return owner_; }

 private:
  // What one batch walked and wrote.
  struct Walked {
    int recipients = 0;
    std::optional<std::int64_t> last_user_id;  // none when nothing was walked
    int created = 0;
    std::int64_t deliveries = 0;
    // The outcomes of the workflow steps the notifications created did.
    std::vector<std::string> workflow_steps;
  };

  // Who a broadcast walks: the subscribers of `topic` (nullopt: every user),
  // only those whose data contains `where` (JSON text) when it is given.
  struct Audience {
    std::optional<std::string> topic;
    std::optional<std::string> where;
  };
  // Whether the batch can be one set-based statement (fan_out_batch.sql):
  // no template for the type, a title, not delayed.
  bool IsSetBased(const hub::NotificationRequest& each, core::TimePoint now) const;
  // `wake_workers`: NOTIFY the delivery workers (the deliveries are due at once).
  Walked FanOutSetBased(db::Transaction& tx, const hub::NotificationRequest& each,
                        const Audience& audience, std::optional<std::int64_t> cursor,
                        core::TimePoint now, std::optional<core::TimePoint> deliveries_due,
                        bool wake_workers);
  // Rendered and chosen per recipient by hub::NotifyService::NotifyIn.
  Walked FanOutPerRecipient(db::Transaction& tx, const hub::NotificationRequest& each,
                            const Audience& audience, std::optional<std::int64_t> cursor,
                            core::TimePoint now, std::optional<core::TimePoint> deliveries_due);
  db::Next Step();
  // Until a running broadcast may be claimable, at most settings.max_sleep.
  std::chrono::milliseconds IdleWait();

  db::Pool& pool_;
  const core::Clock& clock_;
  const FanOutSettings settings_;
  const templates::TemplateLookup* templates_;
  const std::string owner_;
  hub::NotifyMetrics notify_metrics_;
  core::Counter& recipients_;
  // Declared last: built after, and destroyed before, everything its steps use.
  db::BackgroundLoop loop_;
};

}  // namespace chopar::broadcast
