#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "channels/channel.hpp"
#include "core/backoff.hpp"
#include "core/channel_kind.hpp"
#include "core/clock.hpp"
#include "db/pool.hpp"
#include "delivery/claim.hpp"
#include "delivery/settings.hpp"

namespace chopar::delivery {

// The row change one provider outcome asks for.
struct OutcomeUpdate {
  std::string status;  // "sent", "queued" (retry later) or "failed"
  std::optional<core::TimePoint> next_attempt_at;  // "queued" only
  std::optional<std::string> reason;               // → last_error; nullopt keeps the old one
  std::optional<std::string> provider_message_id;
  std::optional<std::int64_t> telegram_chat_gone;  // deactivate this chat
  std::vector<std::int64_t> gone_push;             // delete these subscriptions
};

// Maps an outcome to the row change. Sent → sent (previous reason kept);
// retry → queued at now + the provider's retry_after, else jittered backoff
// for this attempt, or failed once the attempt was the last allowed;
// permanent → failed; address gone → failed, with the Telegram chat to
// deactivate or the push subscriptions to delete (the ones listed, or every
// target of the message when none is). Gone push subscriptions listed on a
// sent outcome are deleted too. Pure apart from the draw from `random`.
OutcomeUpdate PlanOutcome(const ClaimedDelivery& claimed, const channels::Outcome& outcome,
                          core::TimePoint now, const WorkerSettings& settings, core::Random& random);

// What RecordOutcomes changed.
struct RecordResult {
  int applied = 0;  // rows this worker still owned
  int ignored = 0;  // late answers: the claim had been taken back or released
  int retried = 0;
  core::PerChannel<int> sent;
  core::PerChannel<int> failed;
  // Seconds from creation to sent, per sent delivery, for the latency metric.
  std::vector<std::pair<core::ChannelKind, double>> sent_latency;
};

// Records the outcomes of one sent batch (outcomes[i] belongs to claimed[i])
// in ONE short transaction ("record_deliveries") with one set-based
// statement. Only rows still `sending` under their claim token change.
// Throws db::DbError / db::PoolTimeout; then nothing was recorded (the
// leases run out and the deliveries are sent again). Thread-safe.
RecordResult RecordOutcomes(db::Pool& pool, core::TimePoint now, std::span<const ClaimedDelivery> claimed,
                            std::span<const channels::Outcome> outcomes, const WorkerSettings& settings,
                            core::Random& random);

// Puts claims back in the queue (shutdown drain): each (delivery id, claim
// token) still `sending` under that token becomes queued, due `now`, with
// `reason`. Returns how many were released. Throws db::DbError.
int ReleaseClaims(db::Pool& pool, core::TimePoint now,
                  std::span<const std::pair<std::int64_t, std::string>> claims, const std::string& reason);

}  // namespace chopar::delivery
