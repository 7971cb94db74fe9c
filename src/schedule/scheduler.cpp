#include "schedule/scheduler.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <variant>

#include "core/metrics.hpp"
#include "core/time_format.hpp"
#include "db/notify_channels.hpp"
#include "hub/notify_service.hpp"
#include "schedule/catchup.hpp"
#include "schedule/next_fire.hpp"
#include "schedule/queries.hpp"
#include "schedule/schedule_store.hpp"
#include "schedule/time_zone.hpp"

namespace chopar::schedule {
namespace {

using std::chrono::milliseconds;

// A batch stops taking on schedules once this many notifications are queued
// for it (catch-up under policy `all` can fire many per schedule); the rest of
// the claimed rows are left unchanged, still due, for the next batch.
constexpr std::size_t kMaxFiresPerBatch = 5000;

db::BackgroundLoopSettings LoopSettings(const db::Pool& pool, const SchedulerSettings& settings) {
  db::BackgroundLoopSettings loop;
  loop.name = "scheduler";
  loop.threads = settings.concurrency;
  loop.listen = db::ListenOn{pool.listen_conninfo(), db::kSchedulesChannel};
  return loop;
}

// PostgreSQL's text form of a text[] of channel names: "{push,telegram}".
std::vector<core::ChannelKind> ParseChannelArray(std::string_view text) {
  std::vector<core::ChannelKind> kinds;
  if (text.size() >= 2 && text.front() == '{' && text.back() == '}')
    text = text.substr(1, text.size() - 2);
  while (!text.empty()) {
    const auto comma = text.find(',');
    if (const auto kind = core::ParseChannel(text.substr(0, comma))) kinds.push_back(*kind);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return kinds;
}

std::int64_t UnixSeconds(core::TimePoint t) {
  return std::chrono::floor<std::chrono::seconds>(t).time_since_epoch().count();
}

std::optional<std::string> TimeOrNull(const std::optional<core::TimePoint>& t) {
  if (!t) return std::nullopt;
  return core::FormatRfc3339Micros(*t);
}

// The record_firings parameters: one array per column, a row per schedule.
struct FiringUpdates {
  std::vector<std::string> key;
  std::vector<std::optional<std::string>> next_fire_at, last_due_at, last_skipped_at, last_error;
  std::vector<std::int64_t> skipped;

  void Add(const std::string& schedule, const CatchupDecision& decision) {
    key.push_back(schedule);
    next_fire_at.push_back(TimeOrNull(decision.next_fire_at));
    last_due_at.push_back(decision.fire.empty() ? std::nullopt : TimeOrNull(decision.fire.back()));
    skipped.push_back(static_cast<std::int64_t>(decision.skipped));
    last_skipped_at.push_back(TimeOrNull(decision.newest_skipped));
    last_error.emplace_back(std::nullopt);
  }
  // Parks the schedule (no next firing) with the reason.
  void Park(const std::string& schedule, std::string reason) {
    key.push_back(schedule);
    next_fire_at.emplace_back(std::nullopt);
    last_due_at.emplace_back(std::nullopt);
    skipped.push_back(0);
    last_skipped_at.emplace_back(std::nullopt);
    last_error.emplace_back(std::move(reason));
  }
};

}  // namespace

SchedulerMetrics::SchedulerMetrics(core::MetricsRegistry& registry)
    : lag(registry.GetHistogram("chopar_schedule_lag_seconds",
                                "Seconds from an occurrence's due instant to its firing", {},
                                {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
                                 300, 900, 3600, 21600, 86400})),
      due(registry.GetGauge("chopar_schedules_due",
                            "Enabled schedules whose next_fire_at has passed")),
      waiting(registry.GetGauge("chopar_schedule_firings_waiting",
                                "Firing transactions written ahead, waiting for their instant")),
      fired(registry.GetCounter("chopar_schedule_fired_total",
                                "Schedule occurrences fired (notifications created)")),
      skipped(registry.GetCounter("chopar_schedule_skipped_total",
                                  "Schedule occurrences skipped by their catch-up policy")),
      notifications(registry) {}

Scheduler::Scheduler(db::Pool& pool, const core::Clock& clock, core::MetricsRegistry& metrics,
                     SchedulerSettings settings)
    : pool_(pool),
      clock_(clock),
      settings_(settings),
      metrics_(metrics),
      loop_(
          LoopSettings(pool, settings_), [this](const db::StepContext&) { return Step(); },
          metrics) {}

Scheduler::~Scheduler() { Stop(); }

SchedulerRunStats Scheduler::RunOnce() {
  SchedulerRunStats total;
  while (!loop_.Stopping()) {
    const BatchResult result = FireBatch(clock_.Now());
    total += result.stats;
    if (!result.more) break;
  }
  return total;
}

Scheduler::BatchResult Scheduler::WriteBatch(db::Transaction& tx, core::TimePoint now,
                                             std::optional<core::TimePoint> after) {
  BatchResult result;
  SchedulerRunStats& stats = result.stats;
  const std::string now_text = core::FormatRfc3339Micros(now);
  const auto rows =
      tx.Exec(queries::kClaimDueSchedules, now_text, settings_.batch, TimeOrNull(after));
  if (rows.Empty()) return result;
  result.more = rows.Rows() >= settings_.batch;

  std::map<std::string, CronPattern, std::less<>> patterns;
  std::vector<hub::NotificationRequest> requests;
  FiringUpdates updates;
  for (int i = 0; i < rows.Rows(); ++i) {
    if (requests.size() >= kMaxFiresPerBatch) {
      result.more = true;
      break;
    }
    ++stats.claimed;
    const std::string key = rows.String(i, "key");
    CatchupDecision decision;
    try {
      const std::string cron = rows.String(i, "cron");
      auto pattern = patterns.find(cron);
      if (pattern == patterns.end()) pattern = patterns.emplace(cron, ParseCron(cron)).first;
      const date::time_zone* zone = FindTimeZone(rows.Text(i, "zone"));
      const CatchupRule rule{
          ParseCatchupPolicy(rows.Text(i, "catchup_policy")).value_or(CatchupPolicy::kLatest),
          std::chrono::seconds(rows.Int(i, "catchup_window_seconds"))};
      decision = DecideCatchup(pattern->second, zone,
                               core::ParsePgTimestamp(rows.Text(i, "next_fire_at")), now, rule);
    } catch (const std::exception& e) {
      // A pattern or zone this process cannot evaluate (tzdata changed under
      // us): park the schedule with the reason rather than fail the batch.
      spdlog::error("schedule {}: cannot compute its firings: {}", key, e.what());
      ++stats.failed;
      updates.Park(key, e.what());
      continue;
    }

    if (!decision.fire.empty()) {
      hub::NotificationRequest base;
      base.user_id = rows.Int(i, "user_id");
      base.type = rows.String(i, "type");
      base.title = rows.String(i, "title");
      base.body = rows.String(i, "body");
      base.link = rows.OptString(i, "link");
      base.data = nlohmann::json::parse(rows.Text(i, "data"));
      if (!rows.IsNull(i, "channels")) base.channels = ParseChannelArray(rows.Text(i, "channels"));
      base.critical = rows.Bool(i, "critical");
      base.cancellation_key = rows.OptString(i, "cancellation_key");
      const std::optional<std::int64_t> delay_seconds = rows.OptInt(i, "delay_seconds");
      for (core::TimePoint due : decision.fire) {
        hub::NotificationRequest request = base;
        // Not before due + delay, counted from the occurrence's due instant
        // rather than from now: an occurrence fired late (catch-up after
        // downtime) appears at due + delay, or at once when that has passed.
        if (delay_seconds) request.send_at = due + std::chrono::seconds(*delay_seconds);
        request.dedup_key = "schedule:" + key + ":" + std::to_string(UnixSeconds(due));
        request.data["due_at"] = core::FormatRfc3339(due);
        request.data["schedule"] = key;
        requests.push_back(std::move(request));
        result.due.push_back(due);
      }
    }
    stats.skipped += static_cast<int>(decision.skipped);
    updates.Add(key, decision);
  }

  result.notified = hub::NotifyService::NotifyIn(tx, requests, now);
  using db::ArrayLiteral;
  tx.Exec(queries::kRecordFirings, ArrayLiteral(updates.key), ArrayLiteral(updates.next_fire_at),
          ArrayLiteral(updates.last_due_at), ArrayLiteral(updates.skipped),
          ArrayLiteral(updates.last_skipped_at), ArrayLiteral(updates.last_error), now_text);
  stats.batches = 1;
  return result;
}

Scheduler::BatchResult Scheduler::FireBatch(core::TimePoint now) {
  auto tx = pool_.Begin("fire_schedules");
  BatchResult result = WriteBatch(tx, now, std::nullopt);
  if (result.stats.batches == 0) return result;
  tx.Commit();
  Account(result, now);
  return result;
}

void Scheduler::Account(BatchResult& batch, core::TimePoint committed_at) {
  SchedulerRunStats& stats = batch.stats;
  metrics_.notifications.CountCommitted(batch.notified);
  for (std::size_t i = 0; i < batch.notified.size(); ++i) {
    if (const auto* created = std::get_if<hub::NotifyResult>(&batch.notified[i])) {
      if (!created->created) {
        ++stats.duplicates;
        continue;
      }
      ++stats.fired;
      metrics_.lag.Observe(std::chrono::duration<double>(committed_at - batch.due[i]).count());
    } else {
      // The user row is share-locked by the claim, so it cannot vanish.
      spdlog::error("schedule firing refused: {}",
                    std::get<core::RequestError>(batch.notified[i]).what());
    }
  }
  metrics_.fired.Inc(stats.fired);
  metrics_.skipped.Inc(stats.skipped);
}

SchedulerRunStats Scheduler::FireAhead(core::TimePoint instant) {
  // Everything is decided as of the instant; rows already due now are the
  // business of RunOnce(), which fires them at once rather than at `instant`.
  const core::TimePoint started = clock_.Now();
  auto tx = pool_.Begin("fire_schedules_ahead");
  BatchResult all;
  while (!loop_.Stopping() && clock_.Now() < instant) {
    BatchResult batch = WriteBatch(tx, instant, started);
    all.stats += batch.stats;  // fired and duplicates are counted at the commit
    std::move(batch.notified.begin(), batch.notified.end(), std::back_inserter(all.notified));
    all.due.insert(all.due.end(), batch.due.begin(), batch.due.end());
    if (!batch.more) break;
  }
  if (all.stats.batches == 0) return {};
  // Not visible, not sent, before the instant: the commit is the firing.
  metrics_.waiting.Add(1);
  const bool reached = WaitUntil(instant);
  metrics_.waiting.Add(-1);
  if (!reached) return {};  // rolled back: still due
  tx.Commit();
  all.stats.batches = 1;  // one transaction
  Account(all, clock_.Now());
  return all.stats;
}

bool Scheduler::WaitUntil(core::TimePoint instant) {
  // A simulated clock moves without notice: look at it every few
  // milliseconds. The real one is waited for in one sleep.
  constexpr milliseconds kSimulatedClockPoll{5};
  std::unique_lock lock(stop_mutex_);
  while (!stop_requested_) {
    const auto left = instant - clock_.Now();
    if (left <= core::TimePoint::duration::zero()) return true;
    if (clock_.IsReal()) {
      stop_cv_.wait_for(lock, left);
    } else {
      stop_cv_.wait_for(lock, std::min<std::chrono::nanoseconds>(left, kSimulatedClockPoll));
    }
  }
  return false;
}

DueState Scheduler::LookUpDue() {
  DueState state;
  {
    auto conn = pool_.Acquire();
    const auto row = conn->Exec(queries::kNextDue, core::FormatRfc3339Micros(clock_.Now()));
    if (!row.IsNull(0, 0)) state.next_fire_at = core::ParsePgTimestamp(row.Text(0, 0));
    state.due = row.Int(0, 1);
  }
  metrics_.due.Set(static_cast<double>(state.due));
  return state;
}

void Scheduler::Start() { loop_.Start(); }

void Scheduler::Stop() {
  {
    const std::scoped_lock lock(stop_mutex_);
    stop_requested_ = true;
  }
  stop_cv_.notify_all();
  loop_.StopAndJoin();
}

db::Next Scheduler::Step() {
  const SchedulerRunStats fired = RunOnce();
  const DueState due = LookUpDue();
  if (due.next_fire_at && settings_.prepare > milliseconds(0)) {
    const core::TimePoint now = clock_.Now();
    if (*due.next_fire_at > now && *due.next_fire_at - now <= settings_.prepare) {
      if (FireAhead(*due.next_fire_at).claimed > 0) return db::Next::Again();
      // Every row of that instant is held by another scheduler's firing:
      // look again once it is due (its commit moves next_fire_at on).
      const auto until = std::chrono::ceil<milliseconds>(*due.next_fire_at - clock_.Now());
      return db::Next::SleepUpTo(std::clamp(until, milliseconds(1), settings_.busy_retry));
    }
  }
  return db::Next::SleepUpTo(IdleWait(fired, due));
}

milliseconds Scheduler::IdleWait(const SchedulerRunStats& last, const DueState& due) {
  if (!due.next_fire_at) return settings_.max_sleep;
  const auto until = std::chrono::ceil<milliseconds>(*due.next_fire_at - clock_.Now());
  if (until > milliseconds(0)) {
    // Wake in time to fire ahead of it.
    return std::clamp(until - settings_.prepare, milliseconds(0), settings_.max_sleep);
  }
  // Still due: became due while we worked (go again), or held by other
  // schedulers or a user update (look again shortly, or on NOTIFY).
  return last.claimed > 0 ? milliseconds(0) : settings_.busy_retry;
}

}  // namespace chopar::schedule
