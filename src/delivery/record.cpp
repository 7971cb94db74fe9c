#include "delivery/record.hpp"

#include <nlohmann/json.hpp>
#include <unordered_map>

#include "core/redact.hpp"
#include "core/time_format.hpp"
#include "delivery/queries.hpp"

namespace chopar::delivery {
namespace {

// A provider's detail may quote a URL with credentials (a bot token in the
// path, user info): last_error never keeps them.
std::string DetailOr(const channels::Outcome& outcome, const char* fallback) {
  return outcome.detail.empty() ? std::string(fallback) : core::RedactSecrets(outcome.detail);
}

nlohmann::json OptJson(const auto& value) {
  return value ? nlohmann::json(*value) : nlohmann::json();
}

}  // namespace

OutcomeUpdate PlanOutcome(const ClaimedDelivery& claimed, const channels::Outcome& outcome,
                          const WorkerSettings& settings, core::Random& random) {
  const channels::Message& m = claimed.message;
  OutcomeUpdate update;
  update.gone_push = outcome.gone_push_subscriptions;
  update.gone_devices = outcome.gone_devices;
  if (!outcome.provider.empty()) update.provider = outcome.provider.substr(0, 64);
  switch (outcome.kind) {
    case channels::OutcomeKind::kSent:
      update.status = "sent";
      update.provider_message_id = outcome.provider_message_id;
      break;
    case channels::OutcomeKind::kRetry: {
      const std::string detail = DetailOr(outcome, "provider asked to retry");
      if (m.attempt >= settings.max_attempts) {
        update.status = "failed";
        update.reason = "gave up after " + std::to_string(m.attempt) + " attempts: " + detail;
        break;
      }
      update.status = "queued";
      update.retry_in = std::chrono::duration_cast<std::chrono::milliseconds>(
          core::BackoffDelay(settings.backoff, m.attempt, random, outcome.retry_after));
      update.reason = "attempt " + std::to_string(m.attempt) + " of " +
                      std::to_string(settings.max_attempts) + ": " + detail;
      break;
    }
    case channels::OutcomeKind::kPermanent:
      update.status = "failed";
      update.reason = DetailOr(outcome, "permanent failure");
      break;
    case channels::OutcomeKind::kUnknown:
      update.status = "failed";
      update.reason = DetailOr(outcome, "outcome unknown");
      break;
    case channels::OutcomeKind::kSkipped:
      update.status = "skipped";
      update.reason = DetailOr(outcome, "skipped");
      break;
    case channels::OutcomeKind::kAddressGone:
      update.status = "failed";
      update.reason = DetailOr(outcome, "address gone");
      // What is gone is the address the message was sent to: a Telegram
      // chat, every push subscription it went to unless the outcome names
      // the gone ones, or a registered channel's address of the user.
      if (const auto store = core::StoreOf(core::InfoOf(m.channel));
          store == core::AddressStore::kTelegramChat) {
        update.telegram_chat_gone = m.telegram_chat_id;
      } else if (store == core::AddressStore::kPushSubscription && update.gone_push.empty()) {
        for (const auto& target : m.push_targets) update.gone_push.push_back(target.subscription_id);
      } else if (store == core::AddressStore::kDevice && update.gone_devices.empty()) {
        for (const auto& target : m.device_targets) update.gone_devices.push_back(target.device_id);
      } else if (store == core::AddressStore::kUser) {
        update.user_address_gone = m.address;
      }
      break;
  }
  return update;
}

RecordResult RecordOutcomes(db::Pool& pool, std::optional<core::TimePoint> now,
                            std::span<const ClaimedDelivery> claimed,
                            std::span<const channels::Outcome> outcomes,
                            const WorkerSettings& settings, core::Random& random) {
  RecordResult result;
  if (claimed.empty()) return result;
  std::vector<OutcomeUpdate> updates;
  updates.reserve(claimed.size());
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < claimed.size(); ++i) {
    OutcomeUpdate u = PlanOutcome(claimed[i], outcomes[i], settings, random);
    rows.push_back({{"id", claimed[i].message.delivery_id},
                    {"token", claimed[i].claim_token},
                    {"status", u.status},
                    {"retry_in",
                     u.retry_in ? nlohmann::json(std::chrono::duration<double>(*u.retry_in).count())
                                : nlohmann::json()},
                    {"reason", OptJson(u.reason)},
                    {"provider_message_id", OptJson(u.provider_message_id)},
                    {"provider", OptJson(u.provider)},
                    {"telegram_chat_gone", OptJson(u.telegram_chat_gone)},
                    {"gone_push", u.gone_push},
                    {"gone_devices", u.gone_devices},
                    {"user_address_gone", OptJson(u.user_address_gone)}});
    updates.push_back(std::move(u));
  }

  auto tx = pool.Begin("record_deliveries");
  const auto applied = tx.Exec(queries::kRecordOutcomes, rows.dump(), db::SqlNowParam(now));
  tx.Commit();

  std::unordered_map<std::int64_t, double> applied_seconds;  // id → seconds since created
  for (int i = 0; i < applied.Rows(); ++i) {
    applied_seconds.emplace(applied.Int(i, "id"), applied.Double(i, "seconds"));
  }
  for (std::size_t i = 0; i < claimed.size(); ++i) {
    const channels::Message& m = claimed[i].message;
    const auto found = applied_seconds.find(m.delivery_id);
    if (found == applied_seconds.end()) {
      ++result.ignored;
      continue;
    }
    ++result.applied;
    if (updates[i].status == "sent") {
      ++result.sent[m.channel];
      result.sent_latency.emplace_back(m.channel, found->second);
    } else if (updates[i].status == "skipped") {
      ++result.skipped[m.channel];
    } else if (updates[i].status == "failed") {
      ++result.failed[m.channel];
      if (outcomes[i].kind == channels::OutcomeKind::kUnknown) ++result.outcome_unknown[m.channel];
    } else {
      ++result.retried;
    }
  }
  return result;
}

int ReleaseClaims(db::Pool& pool, std::optional<core::TimePoint> now,
                  std::span<const ClaimKey> claims, const std::string& reason) {
  if (claims.empty()) return 0;
  std::vector<std::int64_t> ids;
  std::vector<std::string> tokens;
  for (const ClaimKey& claim : claims) {
    ids.push_back(claim.id);
    tokens.push_back(claim.token);
  }
  auto tx = pool.Begin("release_deliveries");
  const auto released = tx.Exec(queries::kReleaseClaims, db::ArrayLiteral(ids),
                                db::ArrayLiteral(tokens), db::SqlNowParam(now), reason);
  tx.Commit();
  return released.Rows();
}

}  // namespace chopar::delivery
