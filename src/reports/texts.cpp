#include "reports/texts.hpp"

#include <fmt/format.h>

#include <cmath>

namespace chopar::reports {
namespace {

// The words of a report in one locale.
struct ReportWords {
  std::string_view daily, weekly, monthly;  // summary titles, before ": <period>"
  std::string_view period, notifications, deliveries, none;
  std::string_view sent, failed, skipped, pending;
  std::string_view top_types, failure_reasons, latency;
  std::string_view anomalies_title, usually;
};

constexpr ReportWords kEnglish{"Daily report",
                               "Weekly report",
                               "Monthly report",
                               "Period",
                               "Notifications",
                               "Deliveries",
                               "none",
                               "sent",
                               "failed",
                               "skipped",
                               "pending",
                               "Top types",
                               "Failure reasons",
                               "Latency",
                               "⚠️ Today's anomalies:",
                               "usually"};
constexpr ReportWords kUzbek{"Kunlik hisobot", "Haftalik hisobot", "Oylik hisobot",
                             "Davr",           "Bildirishnomalar", "Yetkazishlar",
                             "yo‘q",           "yuborildi",        "xato",
                             "o‘tkazildi",     "navbatda",         "Eng ko‘p turlar",
                             "Xato sabablari", "Kechikish",        "⚠️ Bugungi anomaliyalar:",
                             "odatda"};

const ReportWords& WordsFor(std::string_view locale) { return locale == "uz" ? kUzbek : kEnglish; }

constexpr std::size_t kMaxTitleChars = 500;
constexpr std::size_t kMaxBodyChars = 10000;
constexpr std::size_t kMaxReasonChars = 200;

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// At most `max_chars` code points of `text`, the last one "…" when cut.
std::string CutCodePoints(std::string text, std::size_t max_chars) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (IsContinuationByte(text[i])) continue;
    if (++chars == max_chars) {
      std::size_t end = i + 1;
      while (end < text.size() && IsContinuationByte(text[end])) ++end;
      if (end == text.size()) return text;
      text.resize(i);
      return text + "…";
    }
  }
  return text;
}

// One line of a list: a reason text may hold line breaks of its own.
std::string OneLine(std::string_view text) {
  std::string line;
  for (char c : text) line += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  return CutCodePoints(std::move(line), kMaxReasonChars);
}

std::string DayName(date::local_days day) {
  const date::year_month_day ymd(day);
  return fmt::format("{:04}-{:02}-{:02}", static_cast<int>(ymd.year()),
                     static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
}

// "2026-08-10 – 2026-08-16", or one date when the period is within a day.
std::string PeriodDates(const ReportJob& job, const ReportPeriod& period) {
  const auto first = date::floor<date::days>(job.zone->to_local(period.from));
  const auto to = period.to > period.from ? period.to - std::chrono::nanoseconds(1) : period.to;
  const auto last = date::floor<date::days>(job.zone->to_local(to));
  if (first == last) return DayName(first);
  return DayName(first) + " – " + DayName(last);
}

std::string FormatSeconds(double seconds) {
  if (seconds < 60)
    return FormatNumber(seconds < 10 ? std::round(seconds * 100) / 100
                                     : std::round(seconds * 10) / 10) +
           " s";
  if (seconds < 3600) return FormatNumber(std::round(seconds / 6) / 10) + " min";
  return FormatNumber(std::round(seconds / 360) / 10) + " h";
}

std::string CountsLine(const DeliveryCounts& counts, const ReportWords& words) {
  std::string line = fmt::format("{} {}", counts.sent, words.sent);
  if (counts.failed > 0) line += fmt::format(", {} {}", counts.failed, words.failed);
  if (counts.skipped > 0) line += fmt::format(", {} {}", counts.skipped, words.skipped);
  if (counts.pending > 0) line += fmt::format(", {} {}", counts.pending, words.pending);
  return line;
}

}  // namespace

std::string FormatNumber(double value) {
  const double rounded = std::round(value * 100) / 100;
  if (rounded == std::trunc(rounded) && std::abs(rounded) < 1e15) {
    return fmt::format("{}", static_cast<long long>(rounded));
  }
  std::string text = fmt::format("{:.2f}", rounded);
  while (text.back() == '0') text.pop_back();
  return text;
}

std::string SummaryTitle(const ReportJob& job, const ReportPeriod& period) {
  const ReportWords& words = WordsFor(job.locale);
  const std::string_view name = job.period == Period::kDay    ? words.daily
                                : job.period == Period::kWeek ? words.weekly
                                                              : words.monthly;
  const std::size_t colon = period.key.find(':');
  const std::string shown = colon == std::string::npos ? period.key : period.key.substr(colon + 1);
  return std::string(name) + ": " + shown;
}

ReportMessage RenderSummary(const SummaryStats& stats, const ReportJob& job,
                            const ReportPeriod& period) {
  const ReportWords& words = WordsFor(job.locale);
  std::string body = fmt::format("{}: {} ({})\n{}: {}\n", words.period, PeriodDates(job, period),
                                 job.timezone, words.notifications, stats.notifications);
  std::string channels;
  for (core::ChannelKind kind : core::AllChannels()) {
    const DeliveryCounts& counts = stats.deliveries[kind];
    if (counts.Total() == 0) continue;
    channels += fmt::format("— {}: {}\n", core::ChannelName(kind), CountsLine(counts, words));
  }
  body += channels.empty() ? fmt::format("{}: {}\n", words.deliveries, words.none)
                           : fmt::format("{}:\n{}", words.deliveries, channels);
  if (!stats.top_types.empty()) {
    body += fmt::format("{}:\n", words.top_types);
    for (const auto& [type, count] : stats.top_types)
      body += fmt::format("— {}: {}\n", type, count);
  }
  if (!stats.failure_reasons.empty()) {
    body += fmt::format("{}:\n", words.failure_reasons);
    for (const auto& [reason, count] : stats.failure_reasons) {
      body += fmt::format("— {}: {}\n", OneLine(reason), count);
    }
  }
  if (stats.latency_p50 && stats.latency_p95) {
    body += fmt::format("{}: p50 {}, p95 {}\n", words.latency, FormatSeconds(*stats.latency_p50),
                        FormatSeconds(*stats.latency_p95));
  }
  body.pop_back();  // the last line break
  return {SummaryTitle(job, period), std::move(body)};
}

ReportMessage RenderAnomalies(const std::vector<Anomaly>& anomalies, std::string_view locale) {
  const ReportWords& words = WordsFor(locale);
  std::string body;
  for (const Anomaly& a : anomalies) {
    if (!body.empty()) body += '\n';
    body += fmt::format("— {}: {} ({} {}, {:+d}%)", a.metric, FormatNumber(a.today), words.usually,
                        FormatNumber(a.baseline), a.ChangePercent());
  }
  return {std::string(words.anomalies_title), std::move(body)};
}

ReportMessage FitNotificationLimits(ReportMessage message) {
  message.title = CutCodePoints(std::move(message.title), kMaxTitleChars);
  message.body = CutCodePoints(std::move(message.body), kMaxBodyChars);
  return message;
}

}  // namespace chopar::reports
