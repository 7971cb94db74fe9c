#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "channels/channel.hpp"
#include "core/channel_kind.hpp"
#include "core/clock.hpp"
#include "db/pool.hpp"
#include "db/statement_time.hpp"
#include "delivery/channel_set.hpp"
#include "delivery/horizon.hpp"
#include "delivery/settings.hpp"
#include "templates/template_store.hpp"

namespace chopar::delivery {

// A delivery this worker owns after a claim: `sending` under `claim_token`
// until its lease runs out. `message.attempt` is the attempt being made.
// Claimed is not yet started: BeginSends marks the send of a channel's
// batch started just before the batch is handed over.
struct ClaimedDelivery {
  channels::Message message;
  std::string claim_token;
  core::TimePoint created_at;
};

// A claimed delivery's id and claim token: what proves ownership of it.
struct ClaimKey {
  std::int64_t id = 0;
  std::string token;
};
std::vector<ClaimKey> KeysOf(std::span<const ClaimedDelivery> claimed);

// What one claim did.
struct ClaimResult {
  std::vector<ClaimedDelivery> to_send;  // → sending
  int locked = 0;                        // rows decided on (0: nothing was due)
  int deferred = 0;                      // stayed queued (quiet hours)
  core::PerChannel<int> skipped;         // → skipped (hourly limit, throttle)
  core::PerChannel<int> canceled;        // → canceled (escalation: read)
  core::PerChannel<int> failed;          // → failed (lease lost on the last attempt)
  // → sent inside the claim by a channel that sends in claims (the sink),
  // and each one's seconds from creation to sent.
  core::PerChannel<int> sent;
  std::vector<std::pair<core::ChannelKind, double>> sent_latency;
  // When the claim took less than a batch, it took every due row no other
  // claim held, and its last round trip also asked when a claim could find
  // work next (queries/next_wakeup.sql): milliseconds (negative when that is
  // already past), nullopt inside when nothing is pending. Not asked after a
  // full batch (the worker claims again at once).
  std::optional<std::optional<double>> next_due_ms;
  // The claim found the horizon of active deliveries lower than the one it
  // was bound by (an older delivery was requeued): it may have left due rows
  // out, and the next claim, bound by the lower one, should come at once.
  bool horizon_lowered = false;
};

// Claims up to settings.batch due deliveries in ONE short transaction
// ("claim_deliveries"): locks due queued rows and expired `sending` rows with
// FOR UPDATE SKIP LOCKED; fails the expired ones whose send had started and
// whose channel cannot tell a repeat (PreDecide: "outcome unknown"); cancels
// escalated ones (unless_read) whose notification was read; defers
// non-critical ones inside their user's quiet hours; for types whose
// template (from `templates`, when given) has a throttle, takes the (user,
// type) advisory locks in sorted order, counts the type's window and skips
// what is over it (`throttled`); takes the (user, channel) advisory locks in
// sorted order, counts the sliding hour and skips what is over the limit; marks the rest `sending`
// with a fresh claim token, a lease until now + lease and attempts + 1; then commits. The returned
// messages carry content and address, so sending needs no database.
// Messages for a channel that sends in claims (the sink) are handed to it
// inside this transaction instead and go straight to `sent`.
//
// `now` is the instant every decision of the claim is made at: nullopt (in
// production) for the database's now(), read once by the first statement
// and used for all of them, so hosts whose clocks disagree still agree on
// leases, due rows and the hourly window; a test's simulated time
// otherwise (see db::SqlNow). Throws db::DbError / db::PoolTimeout; then
// nothing was claimed. Thread-safe; any number of claims may run at once, in
// any processes.
//
// The status lookups are bound by `horizon` (the worker's, shared by its
// loops), and the claim keeps what it read of the row there; without one
// they are bound by -infinity and read every week.
ClaimResult ClaimBatch(db::Pool& pool, std::optional<core::TimePoint> now,
                       const WorkerSettings& settings, const ChannelSet& channels,
                       const templates::TemplateLookup* templates = nullptr,
                       ActiveHorizon* horizon = nullptr);

}  // namespace chopar::delivery
