#include "reports/job.hpp"

#include <cmath>
#include <set>

#include "reports/http_source.hpp"
#include "schedule/schedule_spec.hpp"
#include "schedule/time_zone.hpp"

namespace chopar::reports {
namespace {

constexpr std::size_t kMaxNameLength = 64;
constexpr std::size_t kMaxRecipients = 1000;
constexpr std::chrono::seconds kMaxTimeout{300};

bool IsValidJobName(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameLength) return false;
  const auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (!alnum(name.front())) return false;
  for (char c : name) {
    if (!alnum(c) && c != '_' && c != '.' && c != '-') return false;
  }
  return true;
}

std::string Quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

// Checks one job; `label` names it in errors.
ReportJob Compile(const ReportJobSettings& s, const std::string& label) {
  const auto refuse = [&](const std::string& field, const std::string& message) {
    return JobConfigError(label, field, message);
  };
  const auto invalid = [&](const std::string& field, const std::string& shown,
                           const std::string& why) {
    return refuse(field, field + " = " + shown + " is not valid (" + why + ")");
  };

  ReportJob job;
  if (s.name.empty()) throw refuse("name", "name is required");
  if (!IsValidJobName(s.name)) {
    throw invalid("name", Quoted(s.name),
                  "1-64 characters of A-Z a-z 0-9 _ . -, starting with a letter or digit");
  }
  job.name = s.name;

  if (s.kind == "summary") {
    job.kind = ReportKind::kSummary;
  } else if (s.kind == "anomaly") {
    job.kind = ReportKind::kAnomaly;
  } else {
    throw invalid("kind", Quoted(s.kind), "summary or anomaly");
  }

  if (s.cron.empty()) throw refuse("cron", "cron is required");
  try {
    job.pattern = schedule::ParseCron(s.cron);
  } catch (const schedule::CronError& e) {
    throw invalid("cron", Quoted(s.cron), e.what());
  }
  job.cron = s.cron;

  try {
    job.zone = schedule::FindTimeZone(s.timezone);
  } catch (const schedule::UnknownTimeZoneError& e) {
    throw invalid("timezone", Quoted(s.timezone), e.what());
  }
  job.timezone = s.timezone;

  if (s.period == "day" || (s.period.empty() && job.kind == ReportKind::kAnomaly)) {
    job.period = Period::kDay;
  } else if (s.period == "week") {
    job.period = Period::kWeek;
  } else if (s.period == "month") {
    job.period = Period::kMonth;
  } else if (s.period.empty()) {
    throw refuse("period", "period is required for a summary (day, week or month)");
  } else {
    throw invalid("period", Quoted(s.period), "day, week or month");
  }

  if (s.catchup_window < std::chrono::seconds(1) ||
      s.catchup_window > schedule::kMaxCatchupWindow) {
    throw invalid("catchup_window_seconds", std::to_string(s.catchup_window.count()),
                  "from 1 to " + std::to_string(schedule::kMaxCatchupWindow.count()));
  }
  job.catchup_window = s.catchup_window;

  if (s.source != "builtin") {
    if (const auto problem = HttpUrlProblem(s.source)) {
      throw invalid("source", Quoted(s.source), "\"builtin\" or an http(s) URL: " + *problem);
    }
    job.source_url = s.source;
  } else if (job.kind == ReportKind::kAnomaly && job.period != Period::kDay) {
    throw invalid("period", Quoted(PeriodName(job.period)),
                  "a builtin anomaly check compares one day with the same weekday of the two "
                  "weeks before: period must be day");
  }

  if (s.recipient_ids) {
    if (s.recipient_ids->empty()) {
      throw refuse("recipients", "recipients = [] is not valid (\"admins\" or user ids)");
    }
    if (s.recipient_ids->size() > kMaxRecipients) {
      throw refuse("recipients",
                   "recipients has more than " + std::to_string(kMaxRecipients) + " user ids");
    }
    std::set<std::int64_t> seen;
    for (std::int64_t id : *s.recipient_ids) {
      if (id <= 0) throw invalid("recipients", std::to_string(id), "user ids are positive");
      seen.insert(id);
    }
    job.recipient_ids.emplace(seen.begin(), seen.end());
  }

  if (s.locale != "en" && s.locale != "uz") throw invalid("locale", Quoted(s.locale), "en or uz");
  job.locale = s.locale;

  if (s.threshold) {
    if (job.kind != ReportKind::kAnomaly) {
      throw refuse("threshold", "threshold applies to anomaly jobs only");
    }
    if (!std::isfinite(*s.threshold) || *s.threshold <= 0) {
      throw invalid("threshold", std::to_string(*s.threshold),
                    "a positive fraction: 0.5 alerts beyond ±50%");
    }
    job.threshold = *s.threshold;
  }

  if (s.timeout <= std::chrono::milliseconds(0) || s.timeout > kMaxTimeout) {
    throw invalid("timeout_seconds", std::to_string(s.timeout.count() / 1000.0),
                  "more than 0, at most " + std::to_string(kMaxTimeout.count()));
  }
  job.timeout = s.timeout;
  return job;
}

}  // namespace

std::string_view ReportKindName(ReportKind kind) {
  return kind == ReportKind::kSummary ? "summary" : "anomaly";
}

std::string_view PeriodName(Period period) {
  switch (period) {
    case Period::kDay:
      return "day";
    case Period::kWeek:
      return "week";
    case Period::kMonth:
      return "month";
  }
  return "";
}

JobConfigError::JobConfigError(std::string job, std::string field, const std::string& message)
    : std::invalid_argument(job + " " + message), job_(std::move(job)), field_(std::move(field)) {}

std::string JobLabel(const ReportJobSettings& settings, std::size_t index) {
  if (settings.name.empty()) return "#" + std::to_string(index + 1);
  return Quoted(settings.name);
}

std::vector<ReportJob> CompileReportJobs(std::span<const ReportJobSettings> settings) {
  std::vector<ReportJob> jobs;
  std::set<std::string, std::less<>> names;
  for (std::size_t i = 0; i < settings.size(); ++i) {
    const std::string label = JobLabel(settings[i], i);
    ReportJob job = Compile(settings[i], label);
    if (!names.insert(job.name).second) {
      throw JobConfigError(label, "name", "name is used by an earlier job");
    }
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace chopar::reports
