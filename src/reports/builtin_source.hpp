#pragma once

#include "core/clock.hpp"
#include "db/pool.hpp"
#include "reports/source.hpp"
#include "reports/summary_stats.hpp"

namespace chopar::reports {

// chopar's own statistics as a report's content (source = "builtin"),
// computed by SQL over the notifications and deliveries tables.
//
//   summary: the notifications created in the period, their deliveries
//            sent / failed / skipped / pending per channel, the top types,
//            the most common failure reasons and the latency p50 / p95 —
//            rendered as text in the job's locale (RenderSummary);
//   anomaly: per channel "<channel>.sent" / "<channel>.failed" and per type
//            "notifications.<type>", counted from local midnight to the due
//            time, against the mean of the same hours of the same weekday
//            one and two weeks before (SameWeekdayWindows). A metric seen in
//            any of the three windows is in both maps (0 where absent).
//
// A database failure throws SourceError. The pool must outlive the source;
// thread-safe.
class BuiltinSource {
 public:
  explicit BuiltinSource(db::Pool& pool) : pool_(pool) {}

  ReportContent Fetch(const ReportJob& job, const ReportPeriod& period, core::TimePoint due);

  // The statistics of [period.from, period.to).
  SummaryStats Summary(const ReportPeriod& period);
  // The anomaly check's numbers for an occurrence due at `due`.
  AnomalyContent Anomaly(const ReportJob& job, core::TimePoint due);

 private:
  db::Pool& pool_;
};

}  // namespace chopar::reports
