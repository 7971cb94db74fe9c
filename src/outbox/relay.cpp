#include "outbox/relay.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <future>

#include "core/redact.hpp"
#include "core/time_format.hpp"
#include "db/notify_channels.hpp"
#include "outbox/queries.hpp"

namespace chopar::outbox {
namespace {

using std::chrono::milliseconds;

// How long a target that failed every event of a call as unavailable is
// left alone: doubling per such call in a row, reset by a success.
constexpr core::BackoffPolicy kTargetPause{std::chrono::seconds(1), std::chrono::seconds(60)};
// The longest last_error kept for an event.
constexpr std::size_t kMaxErrorLength = 1000;

db::BackgroundLoopSettings RelayLoop(const db::Pool& pool, const RelaySettings& settings) {
  db::BackgroundLoopSettings loop;
  loop.name = "relay";
  loop.threads = settings.concurrency;
  if (settings.listen) loop.listen = db::ListenOn{pool.listen_conninfo(), db::kOutboxChannel};
  return loop;
}

db::BackgroundLoopSettings RetentionLoop() {
  db::BackgroundLoopSettings loop;
  loop.name = "outbox_retention";
  return loop;
}

double SecondsBetween(core::TimePoint from, core::TimePoint to) {
  return std::max(0.0, std::chrono::duration<double>(to - from).count());
}

std::string Joined(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

bool Has(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

}  // namespace

Relay::Relay(db::Pool& pool, std::string source, std::vector<Route> routes, RelaySettings settings,
             const core::Clock& clock, core::MetricsRegistry& metrics, core::Random& random)
    : pool_(pool),
      source_(std::move(source)),
      routes_(std::move(routes)),
      settings_(std::move(settings)),
      clock_(clock),
      random_(random),
      dispatched_(metrics.GetCounter(
          "chopar_outbox_dispatched_total",
          "Outbox events every target of theirs has (marked dispatched).", {{"source", source_}})),
      pauses_(routes_.size()),
      loop_(
          RelayLoop(pool, settings_), [this](const db::StepContext&) { return Step(); }, metrics,
          random),
      retention_loop_(
          RetentionLoop(), [this](const db::StepContext&) { return RetentionStep(); }, metrics,
          random) {
  for (const Route& route : routes_) {
    const core::Labels labels = {{"target", route.name}};
    route_metrics_.push_back(RouteMetrics{
        metrics.GetCounter("chopar_outbox_published_total", "Outbox events a target took.", labels),
        metrics.GetCounter("chopar_outbox_publish_failures_total",
                           "Outbox events a target failed (each attempt).", labels),
        metrics.GetHistogram("chopar_outbox_publish_latency_seconds",
                             "Time from an outbox event's creation to its publication.", labels),
    });
  }
}

Relay::~Relay() {
  loop_.StopAndJoin();
  retention_loop_.StopAndJoin();
}

void Relay::Start() {
  loop_.Start();
  retention_loop_.Start();
}

void Relay::Stop(milliseconds deadline) {
  retention_loop_.Stop(deadline);
  loop_.Stop(deadline);
}

db::Next Relay::Step() {
  const RelayRunStats stats = RunOnce();
  if (stats.claimed >= settings_.batch) return db::Next::Again();
  return db::Next::SleepUpTo(settings_.poll_interval);
}

db::Next Relay::RetentionStep() {
  DeleteExpired();
  return db::Next::SleepUpTo(settings_.retention_interval);
}

RelayRunStats Relay::RunOnce() {
  RelayRunStats stats;
  auto tx = pool_.Begin("relay_events");
  const std::vector<Event> batch = Claim(tx);
  stats.claimed = static_cast<int>(batch.size());
  if (batch.empty()) return stats;

  std::vector<RouteResult> results(routes_.size());
  std::vector<std::future<RouteResult>> in_parallel;
  for (std::size_t r = 0; r < routes_.size(); ++r) {
    // The first route runs on this thread; the others, when there are any,
    // each on its own, so the slowest target sets the batch's time.
    if (r == 0) continue;
    in_parallel.push_back(
        std::async(std::launch::async, [this, r, &batch] { return PublishRoute(r, batch); }));
  }
  if (!routes_.empty()) results[0] = PublishRoute(0, batch);
  for (std::size_t r = 1; r < routes_.size(); ++r) results[r] = in_parallel[r - 1].get();

  Record(tx, batch, results, stats);
  dispatched_.Inc(stats.dispatched);
  return stats;
}

std::vector<Event> Relay::Claim(db::Transaction& tx) {
  const db::Result rows = tx.Exec(queries::kClaimEvents, settings_.batch);
  const int id = rows.Column("id"), event_id = rows.Column("event_id"), type = rows.Column("type"),
            user_id = rows.Column("user_id"), payload = rows.Column("payload"),
            created_at = rows.Column("created_at"), attempts = rows.Column("attempts"),
            delivered_to = rows.Column("delivered_to");
  std::vector<Event> events(static_cast<std::size_t>(rows.Rows()));
  for (int i = 0; i < rows.Rows(); ++i) {
    Event& e = events[static_cast<std::size_t>(i)];
    e.id = rows.Int(i, id);
    e.event_id = rows.String(i, event_id);
    e.type = rows.String(i, type);
    e.user_id = rows.OptInt(i, user_id);
    e.payload = rows.String(i, payload);
    e.created_at = core::ParsePgTimestamp(rows.Text(i, created_at));
    e.attempts = static_cast<int>(rows.Int(i, attempts));
    e.delivered_to = ParseTextArray(rows.Text(i, delivered_to));
    e.body = EventBody(e);
  }
  std::sort(events.begin(), events.end(),
            [](const Event& a, const Event& b) { return a.id < b.id; });
  return events;
}

Relay::RouteResult Relay::PublishRoute(std::size_t route, const std::vector<Event>& batch) {
  RouteResult result;
  std::vector<const Event*> events;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const Event& event = batch[i];
    if (!routes_[route].types.Matches(event.type) || Has(event.delivered_to, routes_[route].name))
      continue;
    result.positions.push_back(i);
    events.push_back(&event);
  }
  if (!events.empty()) result.outcomes = CallTarget(route, events);
  return result;
}

std::vector<PublishOutcome> Relay::CallTarget(std::size_t route,
                                              std::span<const Event* const> events) {
  const Route& target = routes_[route];
  const core::TimePoint started = clock_.Now();
  {
    std::lock_guard lock(pause_mutex_);
    const Pause& pause = pauses_[route];
    if (pause.until > started) {
      const auto wait = std::chrono::ceil<std::chrono::seconds>(pause.until - started);
      route_metrics_[route].failures.Inc(static_cast<double>(events.size()));
      return std::vector<PublishOutcome>(
          events.size(),
          PublishOutcome::Unavailable("target paused after " + std::to_string(pause.failed_calls) +
                                          " unavailable calls in a row",
                                      wait));
    }
  }

  std::vector<PublishOutcome> outcomes;
  try {
    outcomes = target.target->Publish(events);
    if (outcomes.size() != events.size()) {
      throw std::logic_error("returned " + std::to_string(outcomes.size()) + " outcomes for " +
                             std::to_string(events.size()) + " events");
    }
  } catch (const std::exception& e) {
    outcomes.assign(events.size(), PublishOutcome::Unavailable(e.what()));
  }
  // A target's error may quote its URL (user info, a token): what is logged
  // and stored as last_error never carries them.
  for (PublishOutcome& outcome : outcomes) {
    if (!outcome.ok) outcome.error = core::RedactSecrets(outcome.error);
  }

  const core::TimePoint now = clock_.Now();
  RouteMetrics& metrics = route_metrics_[route];
  std::size_t ok = 0, unavailable = 0;
  const PublishOutcome* first_failure = nullptr;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i].ok) {
      ++ok;
      metrics.latency.Observe(SecondsBetween(events[i]->created_at, now));
      continue;
    }
    if (outcomes[i].unavailable) ++unavailable;
    if (first_failure == nullptr) first_failure = &outcomes[i];
  }
  metrics.published.Inc(static_cast<double>(ok));
  metrics.failures.Inc(static_cast<double>(outcomes.size() - ok));
  if (first_failure != nullptr) {
    spdlog::warn("relay {}: {} of {} events failed on target {}: {}", source_, outcomes.size() - ok,
                 outcomes.size(), target.name, first_failure->error);
  }

  std::lock_guard lock(pause_mutex_);
  Pause& pause = pauses_[route];
  if (unavailable == outcomes.size()) {
    ++pause.failed_calls;
    pause.until = now + core::BackoffCeiling(kTargetPause, pause.failed_calls);
    spdlog::warn("relay {}: target {} paused until {}", source_, target.name,
                 core::FormatRfc3339(pause.until));
  } else if (ok > 0) {
    pause = Pause{};
  }
  return outcomes;
}

void Relay::Record(db::Transaction& tx, const std::vector<Event>& batch,
                   const std::vector<RouteResult>& results, RelayRunStats& stats) {
  struct Verdict {
    std::vector<std::string> errors;     // "<target>: <error>"
    std::vector<std::string> delivered;  // targets that have it now
    std::optional<std::chrono::seconds> retry_after;
  };
  std::vector<Verdict> verdicts(batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) verdicts[i].delivered = batch[i].delivered_to;
  for (std::size_t r = 0; r < results.size(); ++r) {
    const RouteResult& result = results[r];
    for (std::size_t k = 0; k < result.outcomes.size(); ++k) {
      Verdict& verdict = verdicts[result.positions[k]];
      const PublishOutcome& outcome = result.outcomes[k];
      if (outcome.ok) {
        verdict.delivered.push_back(routes_[r].name);
        continue;
      }
      verdict.errors.push_back(routes_[r].name + ": " + outcome.error);
      if (outcome.retry_after &&
          (!verdict.retry_after || *outcome.retry_after > *verdict.retry_after)) {
        verdict.retry_after = outcome.retry_after;
      }
    }
  }

  // The claim marked every event dispatched; the failed ones go back.
  std::vector<std::int64_t> delays;
  std::vector<std::string> failed, errors, delivered;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const Verdict& verdict = verdicts[i];
    if (verdict.errors.empty()) continue;
    failed.push_back(batch[i].event_id);
    std::string error = Joined(verdict.errors, "; ");
    if (error.size() > kMaxErrorLength) error.resize(kMaxErrorLength);
    errors.push_back(std::move(error));
    delays.push_back(
        core::BackoffDelay(settings_.backoff, batch[i].attempts + 1, random_, verdict.retry_after)
            .count());
    delivered.push_back(Joined(verdict.delivered, ","));
  }
  if (!failed.empty()) {
    tx.Defer(queries::kMarkFailed, db::ArrayLiteral(failed), db::ArrayLiteral(errors),
             db::ArrayLiteral(delays), db::ArrayLiteral(delivered));
  }
  tx.Commit();
  stats.failed = static_cast<int>(failed.size());
  stats.dispatched = static_cast<int>(batch.size()) - stats.failed;
}

std::int64_t Relay::DeleteExpired() {
  std::int64_t deleted = 0;
  if (settings_.retention_days <= 0) return deleted;  // kept forever
  while (!retention_loop_.Stopping()) {
    auto conn = pool_.Acquire();
    const std::int64_t n =
        conn->Exec(queries::kDeleteDispatched, settings_.retention_days, settings_.retention_batch)
            .AffectedRows();
    deleted += n;
    if (n < settings_.retention_batch) break;
  }
  if (deleted > 0)
    spdlog::info("relay {}: deleted {} events dispatched over {} days ago", source_, deleted,
                 settings_.retention_days);
  return deleted;
}

}  // namespace chopar::outbox
