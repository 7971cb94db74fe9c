#pragma once

#include <date/tz.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "schedule/cron.hpp"

namespace chopar::reports {

// One [[reports]] table of the configuration as written
// (docs/configuration.md "[[reports]]"), with the defaults of absent keys.
// app::Config holds the jobs as this very type; CompileReportJobs checks them.
struct ReportJobSettings {
  std::string name;
  std::string kind = "summary";  // "summary" | "anomaly"
  std::string cron;
  std::string timezone = "UTC";
  std::string period;  // "day" | "week" | "month"; empty: "day" for an anomaly job
  std::chrono::seconds catchup_window{86400};              // catchup_window_seconds
  std::string source = "builtin";                          // "builtin" or an http(s) URL
  std::optional<std::vector<std::int64_t>> recipient_ids;  // nullopt: "admins"
  std::string locale = "en";                               // "en" | "uz"
  std::optional<double> threshold;                         // anomaly only; unset: 0.5
  std::chrono::milliseconds timeout{10000};                // timeout_seconds of an HTTP source
};

enum class ReportKind { kSummary, kAnomaly };
enum class Period { kDay, kWeek, kMonth };

std::string_view ReportKindName(ReportKind kind);  // "summary", "anomaly"
std::string_view PeriodName(Period period);        // "day", "week", "month"

inline constexpr double kDefaultThreshold = 0.5;

// A checked job: what the runner, the period keys and the sources work from.
// A plain value; `zone` points into the process-wide tz database.
struct ReportJob {
  std::string name;
  ReportKind kind = ReportKind::kSummary;
  std::string cron;
  schedule::CronPattern pattern;
  std::string timezone;
  const date::time_zone* zone = nullptr;
  Period period = Period::kDay;
  std::chrono::seconds catchup_window{86400};
  std::optional<std::string> source_url;                   // nullopt: builtin statistics
  std::optional<std::vector<std::int64_t>> recipient_ids;  // nullopt: every admin user
  std::string locale = "en";
  double threshold = kDefaultThreshold;
  std::chrono::milliseconds timeout{10000};
};

// A job the configuration describes wrongly. what() names the job and the
// field: `"weekly" cron = "0 25 * * 1" is not valid (cron: hour field: value
// 25 out of range 0-23 at position 3)`; a job without a name is named by its
// position ("#2").
class JobConfigError : public std::invalid_argument {
 public:
  JobConfigError(std::string job, std::string field, const std::string& message);
  [[nodiscard]] const std::string& job() const { return job_; }
  [[nodiscard]] const std::string& field() const { return field_; }

 private:
  std::string job_;
  std::string field_;
};

// How a job is named in messages: "\"weekly\"", or "#<index + 1>" when it
// has no name.
std::string JobLabel(const ReportJobSettings& settings, std::size_t index);

// Checks every job and returns them compiled, in order. Refuses (throws
// JobConfigError): a missing or malformed name (1-64 of A-Z a-z 0-9 _ . -,
// starting with a letter or digit) or a repeated one; an unknown kind; a
// cron pattern that does not parse; an unknown zone; an unknown period, or
// none for a summary; a builtin anomaly check whose period is not a day (its
// baseline is the same weekday); a catch-up window outside 1 s .. 366 days;
// a source that is neither "builtin" nor an http(s) URL with a host; an
// empty recipient list, or ids that are not positive; a locale other than
// en/uz; a threshold on a summary job, or one that is not a positive
// number; a timeout outside 1 ms .. 300 s. Pure apart from reading the tz
// database; thread-safe.
std::vector<ReportJob> CompileReportJobs(std::span<const ReportJobSettings> settings);

}  // namespace chopar::reports
