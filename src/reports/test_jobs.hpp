#pragma once

// The jobs of the source document, shared by the reports tests (header only;
// not part of the library): a weekly report on Monday 09:00, a monthly report
// on the 1st 09:00 and an anomaly check every day at 20:00, Tashkent time,
// each sent only within its own day (the window ends at midnight).

#include <string>
#include <vector>

#include "core/time_format.hpp"
#include "reports/job.hpp"

namespace chopar::reports::testing {

inline ReportJobSettings WeeklySettings() {
  ReportJobSettings s;
  s.name = "weekly";
  s.kind = "summary";
  s.cron = "0 9 * * 1";
  s.timezone = "Asia/Tashkent";
  s.period = "week";
  s.catchup_window = std::chrono::hours(15);
  s.locale = "uz";
  return s;
}

inline ReportJobSettings MonthlySettings() {
  ReportJobSettings s = WeeklySettings();
  s.name = "monthly";
  s.cron = "0 9 1 * *";
  s.period = "month";
  return s;
}

inline ReportJobSettings AnomalySettings() {
  ReportJobSettings s = WeeklySettings();
  s.name = "anomaly";
  s.kind = "anomaly";
  s.cron = "0 20 * * *";
  s.period = "day";
  s.catchup_window = std::chrono::hours(4);
  s.threshold = 0.5;
  return s;
}

inline std::vector<ReportJob> DocumentJobs() {
  const std::vector<ReportJobSettings> settings = {WeeklySettings(), MonthlySettings(),
                                                   AnomalySettings()};
  return CompileReportJobs(settings);
}

inline ReportJob Compiled(const ReportJobSettings& settings) {
  return CompileReportJobs(std::vector<ReportJobSettings>{settings}).front();
}

// A local Tashkent time (UTC+5, no daylight saving) as an instant:
// Tashkent(2026, 8, 17, 9) is Monday 2026-08-17 09:00.
inline core::TimePoint Tashkent(int year, unsigned month, unsigned day, int hour, int minute = 0) {
  const date::local_days local{date::year(year) / date::month(month) / date::day(day)};
  return core::TimePoint(date::sys_days(local.time_since_epoch())) + std::chrono::hours(hour - 5) +
         std::chrono::minutes(minute);
}

inline core::TimePoint At(const char* rfc3339) { return *core::ParseRfc3339(rfc3339); }

}  // namespace chopar::reports::testing
