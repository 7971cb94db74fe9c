#include "reports/period.hpp"

#include <fmt/format.h>

namespace chopar::reports {
namespace {

using date::days;
using date::local_days;

// The instant of local wall time `t` in `zone`; a time inside a
// daylight-saving gap is the first instant after the gap, a repeated time
// its first pass.
core::TimePoint ToInstant(const date::time_zone* zone,
                          date::local_time<core::TimePoint::duration> t) {
  return zone->to_sys(t, date::choose::earliest);
}

core::TimePoint Midnight(const date::time_zone* zone, local_days day) {
  return ToInstant(zone, date::local_time<core::TimePoint::duration>(day));
}

date::local_time<core::TimePoint::duration> LocalTime(const date::time_zone* zone,
                                                      core::TimePoint t) {
  return zone->to_local(t);
}

// 1 for Monday .. 7 for Sunday.
unsigned IsoWeekday(local_days day) { return date::weekday(day).iso_encoding(); }

std::string DayName(local_days day) {
  const date::year_month_day ymd(day);
  return fmt::format("{:04}-{:02}-{:02}", static_cast<int>(ymd.year()),
                     static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
}

}  // namespace

std::string IsoWeekName(date::year_month_day day) {
  const local_days d(day);
  const local_days thursday = d - days(IsoWeekday(d) - 1) + days(3);
  const date::year iso_year = date::year_month_day(thursday).year();
  const local_days first_of_year(iso_year / date::January / 1);
  const auto week = (thursday - first_of_year).count() / 7 + 1;
  return fmt::format("{:04}-W{:02}", static_cast<int>(iso_year), week);
}

ReportPeriod PeriodOf(const ReportJob& job, core::TimePoint due) {
  const auto local = LocalTime(job.zone, due);
  const local_days today = date::floor<days>(local);
  ReportPeriod period;
  switch (job.period) {
    case Period::kWeek: {
      const local_days last_sunday = today - days(IsoWeekday(today));
      period.key = "weekly:" + IsoWeekName(date::year_month_day(last_sunday));
      period.from = Midnight(job.zone, last_sunday - days(6));
      period.to = Midnight(job.zone, last_sunday + days(1));
      break;
    }
    case Period::kMonth: {
      const date::year_month this_month =
          date::year_month_day(today).year() / date::year_month_day(today).month();
      const date::year_month previous = this_month - date::months(1);
      period.key = fmt::format("monthly:{:04}-{:02}", static_cast<int>(previous.year()),
                               static_cast<unsigned>(previous.month()));
      period.from = Midnight(job.zone, local_days(previous / 1));
      period.to = Midnight(job.zone, local_days(this_month / 1));
      break;
    }
    case Period::kDay:
      period.key = (job.kind == ReportKind::kAnomaly ? std::string("anomaly") : job.name) + ":" +
                   DayName(today);
      period.from = Midnight(job.zone, today);
      period.to = due;
      break;
  }
  return period;
}

std::vector<std::pair<core::TimePoint, core::TimePoint>> SameWeekdayWindows(
    const date::time_zone* zone, core::TimePoint due, int weeks) {
  const auto local = LocalTime(zone, due);
  const local_days today = date::floor<days>(local);
  const auto time_of_day = local - today;
  std::vector<std::pair<core::TimePoint, core::TimePoint>> windows;
  windows.emplace_back(Midnight(zone, today), due);
  for (int week = 1; week <= weeks; ++week) {
    const local_days day = today - days(7 * week);
    windows.emplace_back(Midnight(zone, day), ToInstant(zone, day + time_of_day));
  }
  return windows;
}

}  // namespace chopar::reports
