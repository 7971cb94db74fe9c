#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <variant>

#include "core/clock.hpp"
#include "reports/anomaly.hpp"
#include "reports/job.hpp"
#include "reports/period.hpp"

namespace chopar::reports {

// A summary's message: its text, and a title when the source gives one
// (otherwise the report's own, e.g. "Weekly report: 2026-W33"). An empty
// text means there is nothing to report for the period.
struct SummaryContent {
  std::optional<std::string> title;
  std::string text;
};

// An anomaly check's numbers: today's values and their baselines.
struct AnomalyContent {
  Metrics today;
  Metrics baseline;
};

using ReportContent = std::variant<SummaryContent, AnomalyContent>;

// The source could not give the content now (an HTTP error or timeout, an
// answer of the wrong shape, a database failure while computing
// statistics): the job did not run, nothing is recorded, and it is tried
// again at the next tick while its window lasts. what() is the reason
// shown as the job's last_error.
class SourceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where a report's content comes from: the narrow interface the runner
// calls, outside any transaction. Implementations are thread-safe; tests
// replace or wrap them.
class ReportSource {
 public:
  virtual ~ReportSource() = default;

  // The content of `job` for the occurrence due at `due` reporting on
  // `period`: SummaryContent for a summary job, AnomalyContent for an
  // anomaly job. Throws SourceError when it cannot be had now.
  virtual ReportContent Fetch(const ReportJob& job, const ReportPeriod& period,
                              core::TimePoint due) = 0;
};

}  // namespace chopar::reports
