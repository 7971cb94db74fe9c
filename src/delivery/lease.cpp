#include "delivery/lease.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <unordered_set>
#include <utility>

#include "delivery/queries.hpp"

namespace chopar::delivery {
namespace {

using std::chrono::milliseconds;

// A lease is renewed three times within its length, so a renewal or two may
// fail (a database restart) without the lease running out.
milliseconds RenewalInterval(std::chrono::seconds lease) {
  return std::max(milliseconds(100), std::chrono::duration_cast<milliseconds>(lease) / 3);
}

// A failed renewal (the database restarting) is tried again soon: a pause
// that grew to the loop's usual 5 s could let the lease run out while the
// server is already back. At most a quarter of the renewal interval, and
// never more than a second.
core::BackoffPolicy RenewalRetry(milliseconds interval) {
  const milliseconds longest = std::clamp(interval / 4, milliseconds(100), milliseconds(1000));
  return {std::min(milliseconds(100), longest), longest};
}

// Runs `query` (begin_sends or renew_leases) for `claims`; the ids it touched.
std::vector<std::int64_t> Stamp(db::Pool& pool, const db::Query& query, const char* name,
                                std::optional<core::TimePoint> now,
                                std::span<const ClaimKey> claims, std::chrono::seconds lease) {
  std::vector<std::int64_t> ids;
  if (claims.empty()) return ids;
  std::vector<std::string> tokens;
  ids.reserve(claims.size());
  tokens.reserve(claims.size());
  for (const ClaimKey& claim : claims) {
    ids.push_back(claim.id);
    tokens.push_back(claim.token);
  }
  auto tx = pool.Begin(name);
  const auto stamped = tx.Exec(query, db::ArrayLiteral(ids), db::ArrayLiteral(tokens),
                               db::SqlNowParam(now), milliseconds(lease).count());
  tx.Commit();
  std::vector<std::int64_t> out;
  out.reserve(static_cast<std::size_t>(stamped.Rows()));
  for (int i = 0; i < stamped.Rows(); ++i) out.push_back(stamped.Int(i, 0));
  return out;
}

}  // namespace

std::vector<std::int64_t> BeginSends(db::Pool& pool, std::optional<core::TimePoint> now,
                                     std::span<const ClaimKey> claims, std::chrono::seconds lease) {
  return Stamp(pool, queries::kBeginSends, "begin_sends", now, claims, lease);
}

std::vector<std::int64_t> RenewLeases(db::Pool& pool, std::optional<core::TimePoint> now,
                                      std::span<const ClaimKey> claims,
                                      std::chrono::seconds lease) {
  return Stamp(pool, queries::kRenewLeases, "renew_leases", now, claims, lease);
}

LeaseKeeper::LeaseKeeper(db::Pool& pool, const core::Clock& clock, std::chrono::seconds lease,
                         core::MetricsRegistry& metrics)
    : pool_(pool),
      clock_(clock),
      lease_(lease),
      interval_(RenewalInterval(lease)),
      loop_(
          {.name = "delivery_leases",
           .threads = 1,
           .listen = std::nullopt,
           .error_backoff = RenewalRetry(interval_)},
          [this](const db::StepContext&) { return Step(); }, metrics) {
  loop_.Start();
}

LeaseKeeper::~LeaseKeeper() { loop_.StopAndJoin(); }

LeaseKeeper::Kept::Kept(Kept&& other) noexcept
    : keeper_(std::exchange(other.keeper_, nullptr)), id_(other.id_) {}

LeaseKeeper::Kept::~Kept() {
  if (keeper_ == nullptr) return;
  std::lock_guard lock(keeper_->mutex_);
  keeper_->kept_.erase(id_);
}

LeaseKeeper::SteadyTime LeaseKeeper::Kept::HoldsUntil() const {
  std::lock_guard lock(keeper_->mutex_);
  return keeper_->kept_.at(id_).stamped_at + keeper_->lease_;
}

void LeaseKeeper::Kept::Forget(std::span<const ClaimKey> claims) {
  if (claims.empty()) return;
  std::unordered_set<std::int64_t> recorded;
  for (const ClaimKey& claim : claims) recorded.insert(claim.id);
  std::lock_guard lock(keeper_->mutex_);
  std::vector<ClaimKey>& kept = keeper_->kept_.at(id_).claims;
  std::erase_if(kept, [&](const ClaimKey& claim) { return recorded.contains(claim.id); });
}

LeaseKeeper::Kept LeaseKeeper::Keep(std::vector<ClaimKey> claims, SteadyTime stamped_at) {
  std::lock_guard lock(mutex_);
  const std::uint64_t id = next_id_++;
  kept_.emplace(id, Batch{std::move(claims), stamped_at});
  return Kept(this, id);
}

int LeaseKeeper::RenewOnce() {
  std::vector<std::uint64_t> batches;
  std::vector<ClaimKey> claims;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, batch] : kept_) {
      batches.push_back(id);
      claims.insert(claims.end(), batch.claims.begin(), batch.claims.end());
    }
  }
  if (claims.empty()) return 0;
  const SteadyTime started = std::chrono::steady_clock::now();
  const auto renewed = RenewLeases(pool_, db::SqlNow(clock_), claims, lease_);
  {
    std::lock_guard lock(mutex_);
    for (const std::uint64_t id : batches) {
      if (const auto found = kept_.find(id); found != kept_.end()) {
        found->second.stamped_at = std::max(found->second.stamped_at, started);
      }
    }
  }
  if (renewed.size() < claims.size()) {
    // Only a lease that already ran out can have been taken: those rows are
    // another worker's now, and this one's answer for them will be ignored.
    spdlog::warn(
        "delivery leases: {} of {} deliveries being sent were taken back by another worker",
        claims.size() - renewed.size(), claims.size());
  }
  return static_cast<int>(renewed.size());
}

db::Next LeaseKeeper::Step() {
  RenewOnce();
  return db::Next::SleepUpTo(interval_);
}

}  // namespace chopar::delivery
