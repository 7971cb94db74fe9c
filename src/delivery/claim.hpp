#pragma once

#include <string>
#include <utility>
#include <vector>

#include "channels/channel.hpp"
#include "core/channel_kind.hpp"
#include "core/clock.hpp"
#include "db/pool.hpp"
#include "delivery/channel_set.hpp"
#include "delivery/settings.hpp"

namespace chopar::delivery {

// A delivery this worker owns after a claim: `sending` under `claim_token`
// until its lease runs out. `message.attempt` is the attempt being made.
struct ClaimedDelivery {
  channels::Message message;
  std::string claim_token;
  core::TimePoint created_at;
};

// What one claim did.
struct ClaimResult {
  std::vector<ClaimedDelivery> to_send;  // → sending
  int locked = 0;                        // rows decided on (0: nothing was due)
  int deferred = 0;                      // stayed queued (quiet hours)
  core::PerChannel<int> skipped;         // → skipped (hourly limit)
  core::PerChannel<int> failed;          // → failed (lease lost on the last attempt)
  // → sent inside the claim by a channel that sends in claims (the sink),
  // and each one's seconds from creation to sent.
  core::PerChannel<int> sent;
  std::vector<std::pair<core::ChannelKind, double>> sent_latency;
};

// Claims up to settings.batch due deliveries in ONE short transaction
// ("claim_deliveries"): locks due queued rows and expired `sending` rows with
// FOR UPDATE SKIP LOCKED; defers non-critical ones inside their user's quiet
// hours; takes the (user, channel) advisory locks in sorted order, counts the
// sliding hour and skips what is over the limit; marks the rest `sending`
// with a fresh claim token, a lease until now + lease and attempts + 1; then
// commits. The returned messages carry content and address, so sending needs
// no database. Messages for a channel that sends in claims (the sink) are
// handed to it inside this transaction instead and go straight to `sent`. `now` is passed to SQL
// (the database clock is never read). Throws db::DbError / db::PoolTimeout; then nothing was
// claimed. Thread-safe; any number of claims may run at once, in any processes.
ClaimResult ClaimBatch(db::Pool& pool, core::TimePoint now, const WorkerSettings& settings,
                       const ChannelSet& channels);

// The text form in which chopar passes an instant to SQL ($n::timestamptz).
std::string SqlTime(core::TimePoint t);

}  // namespace chopar::delivery
