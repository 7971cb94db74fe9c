#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "reports/anomaly.hpp"
#include "reports/job.hpp"
#include "reports/period.hpp"
#include "reports/summary_stats.hpp"

namespace chopar::reports {

// The notification a report becomes: plain text, one fact a line. The
// channels render it for each medium (Telegram's HTML mode and email HTML
// escape it; line breaks are kept).
struct ReportMessage {
  std::string title;
  std::string body;

  friend bool operator==(const ReportMessage&, const ReportMessage&) = default;
};

// Every text below is in the job's locale: "uz" or "en". Pure; thread-safe.

// "Weekly report: 2026-W33", "Oylik hisobot: 2026-07", "Daily report:
// 2026-08-17".
std::string SummaryTitle(const ReportJob& job, const ReportPeriod& period);

// The builtin summary of a period, e.g. in English:
//   Period: 2026-08-10 – 2026-08-16 (Asia/Tashkent)
//   Notifications: 1234
//   Deliveries:
//   — email: 900 sent, 12 failed, 3 skipped
//   Top types:
//   — task.due: 800
//   Failure reasons:
//   — smtp 550 mailbox unavailable: 12
//   Latency: p50 1.2 s, p95 4.8 s
ReportMessage RenderSummary(const SummaryStats& stats, const ReportJob& job,
                            const ReportPeriod& period);

// The alert of an anomaly check (the source document's message), e.g.
//   uz: "⚠️ Bugungi anomaliyalar:" / "— orders: 30 (odatda 100, -70%)"
//   en: "⚠️ Today's anomalies:" / "— orders: 30 (usually 100, -70%)"
// the first line as the title, one line per anomaly as the body.
ReportMessage RenderAnomalies(const std::vector<Anomaly>& anomalies, std::string_view locale);

// A value as a report shows it: whole numbers without a fraction ("30"),
// others with at most two decimals ("57.5", "0.33").
std::string FormatNumber(double value);

// A message that fits the notification's limits (title 500, body 10,000
// characters): each cut on a code point boundary, ending in "…" when cut.
ReportMessage FitNotificationLimits(ReportMessage message);

}  // namespace chopar::reports
