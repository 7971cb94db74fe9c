#include "reports/builtin_source.hpp"

#include <nlohmann/json.hpp>
#include <set>

#include "core/time_format.hpp"
#include "db/errors.hpp"
#include "reports/anomaly.hpp"
#include "reports/queries.hpp"
#include "reports/texts.hpp"

namespace chopar::reports {
namespace {

std::vector<NamedCount> ReadNamedCounts(const nlohmann::json& rows) {
  std::vector<NamedCount> counts;
  for (const auto& row : rows)
    counts.emplace_back(row[0].get<std::string>(), row[1].get<std::int64_t>());
  return counts;
}

void AddDeliveries(SummaryStats& stats, const nlohmann::json& rows) {
  for (const auto& row : rows) {
    const auto channel = core::ParseChannel(row[0].get<std::string>());
    if (!channel) continue;
    DeliveryCounts& counts = stats.deliveries[*channel];
    const std::string status = row[1].get<std::string>();
    const std::int64_t n = row[2].get<std::int64_t>();
    if (status == "sent") {
      counts.sent += n;
    } else if (status == "failed") {
      counts.failed += n;
    } else if (status == "skipped") {
      counts.skipped += n;
    } else {
      counts.pending += n;
    }
  }
}

std::optional<double> OptDouble(const nlohmann::json& value) {
  if (!value.is_number()) return std::nullopt;
  return value.get<double>();
}

// Runs `compute`, turning a database failure into the source's failure: the
// run is then retried at the next tick like any other source's.
template <typename Compute>
auto Guarded(Compute compute) {
  try {
    return compute();
  } catch (const db::DbError& e) {
    throw SourceError(std::string("statistics query failed: ") + e.what());
  } catch (const db::PoolTimeout& e) {
    throw SourceError(std::string("statistics query failed: ") + e.what());
  }
}

}  // namespace

ReportContent BuiltinSource::Fetch(const ReportJob& job, const ReportPeriod& period,
                                   core::TimePoint due) {
  if (job.kind == ReportKind::kAnomaly) return Anomaly(job, due);
  const ReportMessage message = RenderSummary(Summary(period), job, period);
  return SummaryContent{message.title, message.body};
}

SummaryStats BuiltinSource::Summary(const ReportPeriod& period) {
  return Guarded([&] {
    auto conn = pool_.Acquire();
    const db::Result row =
        conn->Exec(queries::kSummaryStats, core::FormatRfc3339Micros(period.from),
                   core::FormatRfc3339Micros(period.to), kTopCount);
    SummaryStats stats;
    stats.notifications = row.Int(0, "notifications");
    stats.top_types = ReadNamedCounts(nlohmann::json::parse(row.Text(0, "top_types")));
    AddDeliveries(stats, nlohmann::json::parse(row.Text(0, "deliveries")));
    stats.failure_reasons = ReadNamedCounts(nlohmann::json::parse(row.Text(0, "failure_reasons")));
    if (!row.IsNull(0, "latency")) {
      const auto latency = nlohmann::json::parse(row.Text(0, "latency"));
      stats.latency_p50 = OptDouble(latency[0]);
      stats.latency_p95 = OptDouble(latency[1]);
    }
    return stats;
  });
}

AnomalyContent BuiltinSource::Anomaly(const ReportJob& job, core::TimePoint due) {
  // anomaly_metrics.sql takes today and two weeks, each window with its own
  // parameters so the planner sees every range's bounds.
  static_assert(kBaselineWeeks == 2);
  const auto windows = SameWeekdayWindows(job.zone, due, kBaselineWeeks);
  const auto bound = [&](std::size_t window, bool end) {
    return core::FormatRfc3339Micros(end ? windows[window].second : windows[window].first);
  };
  return Guarded([&] {
    auto conn = pool_.Acquire();
    const db::Result rows =
        conn->Exec(queries::kAnomalyMetrics, bound(0, false), bound(0, true), bound(1, false),
                   bound(1, true), bound(2, false), bound(2, true));
    // values[window][metric]; window 0 is today.
    std::vector<Metrics> values(windows.size());
    std::set<std::string> names;
    for (int i = 0; i < rows.Rows(); ++i) {
      const auto window = static_cast<std::size_t>(rows.Int(i, "k") - 1);
      const std::string metric = rows.String(i, "metric");
      values.at(window)[metric] = static_cast<double>(rows.Int(i, "value"));
      names.insert(metric);
    }
    AnomalyContent content;
    for (const std::string& name : names) {
      std::vector<double> history;
      for (std::size_t w = 1; w < values.size(); ++w) {
        const auto it = values[w].find(name);
        history.push_back(it == values[w].end() ? 0 : it->second);
      }
      const auto today = values[0].find(name);
      content.today[name] = today == values[0].end() ? 0 : today->second;
      content.baseline[name] = BaselineFromHistory(history);
    }
    return content;
  });
}

}  // namespace chopar::reports
