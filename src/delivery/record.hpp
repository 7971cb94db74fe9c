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
  std::string status;  // "sent", "queued" (retry later), "failed" or "skipped"
  // "queued" only: the next attempt is due this long after the record's now
  // (whose time then ends the reason: "; retry at <RFC 3339>").
  std::optional<std::chrono::milliseconds> retry_in;
  std::optional<std::string> reason;  // → last_error; nullopt keeps the old one
  std::optional<std::string> provider_message_id;
  std::optional<std::string> provider;             // who answered: Outcome::provider, when set
  std::optional<std::int64_t> telegram_chat_gone;  // deactivate this chat
  std::vector<std::int64_t> gone_push;             // delete these subscriptions
  std::vector<std::int64_t> gone_devices;          // and these mobile devices
  // Delete the user's address on this channel if it is still this one (a
  // registered channel's address, core::AddressStore::kUser).
  std::optional<std::string> user_address_gone;
};

// Maps an outcome to the row change. Sent → sent (previous reason kept);
// retry → queued after the provider's retry_after, else jittered backoff
// for this attempt, or failed once the attempt was the last allowed;
// permanent or unknown (channels/outcome_unknown.hpp) → failed; skipped (a suppressed address)
// → skipped; address gone → failed, with the
// Telegram chat to deactivate, the push subscriptions to delete (the ones listed, or every target
// of the message when none is) or the user's address to delete. Gone push subscriptions listed on a
// sent outcome are deleted too. Pure apart from the draw from `random`.
OutcomeUpdate PlanOutcome(const ClaimedDelivery& claimed, const channels::Outcome& outcome,
                          const WorkerSettings& settings, core::Random& random);

// What RecordOutcomes changed.
struct RecordResult {
  int applied = 0;  // rows this worker still owned
  int ignored = 0;  // late answers: the claim had been taken back or released
  int retried = 0;
  core::PerChannel<int> sent;
  core::PerChannel<int> failed;
  core::PerChannel<int> skipped;          // suppressed addresses: never handed to a provider
  core::PerChannel<int> outcome_unknown;  // of `failed`: sent, and no answer came
  // Seconds from creation to sent, per sent delivery, for the latency metric.
  std::vector<std::pair<core::ChannelKind, double>> sent_latency;
};

// Records the outcomes of one sent batch (outcomes[i] belongs to claimed[i])
// in ONE short transaction ("record_deliveries") with one set-based
// statement, at `now` (nullopt: the database's now(); see db::SqlNow). Only rows
// still `sending` under their claim token change. Throws db::DbError /
// db::PoolTimeout; then nothing was recorded (the caller retries while its
// lease holds; see Worker). Thread-safe.
RecordResult RecordOutcomes(db::Pool& pool, std::optional<core::TimePoint> now,
                            std::span<const ClaimedDelivery> claimed,
                            std::span<const channels::Outcome> outcomes,
                            const WorkerSettings& settings, core::Random& random);

// Puts claims back in the queue (shutdown drain): each (delivery id, claim
// token) still `sending` under that token whose send has not started becomes
// queued, due `now` (nullopt: the database's), with `reason`; a row whose
// send started is left alone. Returns how many were released. Throws
// db::DbError.
int ReleaseClaims(db::Pool& pool, std::optional<core::TimePoint> now,
                  std::span<const ClaimKey> claims, const std::string& reason);

}  // namespace chopar::delivery
