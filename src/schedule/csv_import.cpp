#include "schedule/csv_import.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <span>

#include "core/csv_reader.hpp"
#include "core/request_error.hpp"
#include "core/text.hpp"
#include "hub/validation.hpp"
#include "schedule/schedule_store.hpp"

namespace chopar::schedule {
namespace {

std::string Trim(std::string_view text) { return std::string(core::TrimBlanks(text)); }

enum class Column {
  kKey,
  kUserId,
  kCron,
  kTimezone,
  kType,
  kTitle,
  kBody,
  kLink,
  kChannels,
  kCatchupPolicy,
  kCatchupWindow,
  kDelaySeconds,
  kCancellationKey
};

const std::map<std::string, Column>& ColumnNames() {
  static const std::map<std::string, Column> names = {
      {"key", Column::kKey},
      {"user_id", Column::kUserId},
      {"cron", Column::kCron},
      {"time", Column::kCron},
      {"timezone", Column::kTimezone},
      {"type", Column::kType},
      {"title", Column::kTitle},
      {"body", Column::kBody},
      {"link", Column::kLink},
      {"channels", Column::kChannels},
      {"catchup_policy", Column::kCatchupPolicy},
      {"catchup_window_seconds", Column::kCatchupWindow},
      {"delay_seconds", Column::kDelaySeconds},
      {"cancellation_key", Column::kCancellationKey},
  };
  return names;
}

std::vector<Column> HeaderColumns(const std::vector<std::string>& fields) {
  std::vector<Column> columns;
  for (const auto& field : fields) {
    const std::string name = core::AsciiLower(Trim(field));
    const auto it = ColumnNames().find(name);
    if (it == ColumnNames().end()) {
      throw CsvImportError(1, "unknown column \"" + name +
                                  "\"; known: key, user_id, cron, timezone, type, title, "
                                  "body, link, channels, catchup_policy, catchup_window_seconds, "
                                  "delay_seconds, cancellation_key");
    }
    if (std::find(columns.begin(), columns.end(), it->second) != columns.end()) {
      throw CsvImportError(1, "column \"" + name + "\" appears twice");
    }
    columns.push_back(it->second);
  }
  for (Column required : {Column::kKey, Column::kUserId, Column::kCron}) {
    if (std::find(columns.begin(), columns.end(), required) == columns.end()) {
      throw CsvImportError(1, "the header must name the columns key, user_id and cron");
    }
  }
  return columns;
}

// "18:05" or "8:05" → "5 18 * * *"; other text is taken as a cron pattern.
std::string CronOrDailyTime(const std::string& text, std::size_t line) {
  const auto colon = text.find(':');
  const bool looks_like_time = colon != std::string::npos && text.find(' ') == std::string::npos &&
                               std::all_of(text.begin(), text.end(), [](char c) {
                                 return c == ':' || (c >= '0' && c <= '9');
                               });
  if (!looks_like_time) return text;
  const std::string padded = colon == 1 ? "0" + text : text;
  const auto minutes = hub::ParseClockTime(padded);
  if (!minutes)
    throw CsvImportError(line, "\"" + text + "\" is not a time of day (HH:MM, 00:00-23:59)");
  return std::to_string(*minutes % 60) + " " + std::to_string(*minutes / 60) + " * * *";
}

nlohmann::json Channels(const std::string& text) {
  nlohmann::json names = nlohmann::json::array();
  std::string name;
  for (char c : text + ";") {
    if (c == ';' || c == ' ' || c == '\t') {
      if (!name.empty()) names.push_back(name);
      name.clear();
    } else {
      name += c;
    }
  }
  return names;
}

// The integer in column `name`, or CsvImportError naming it (its range is
// checked with the rest of the row, as the API checks it).
std::int64_t IntegerField(const std::string& value, const char* name, std::size_t line) {
  std::int64_t number = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (error != std::errc() || end != value.data() + value.size()) {
    throw CsvImportError(line, std::string(name) + " \"" + value + "\" is not an integer");
  }
  return number;
}

// The template and catch-up from the options, validated once: rows without
// their own template columns copy it instead of re-validating the same JSON.
ScheduleSpec SharedSpec(const CsvImportOptions& options) {
  try {
    return ParseScheduleSpec("template", {{"user_id", 1},
                                          {"cron", "@daily"},
                                          {"notification", options.notification},
                                          {"catchup", options.catchup}});
  } catch (const core::RequestError& e) {
    throw std::invalid_argument(std::string("import options: ") + e.what());
  }
}

ScheduleSpec RowSpec(const std::vector<Column>& columns, const std::vector<std::string>& fields,
                     std::size_t line, const CsvImportOptions& options,
                     const ScheduleSpec& shared) {
  if (fields.size() != columns.size()) {
    throw CsvImportError(line, "expected " + std::to_string(columns.size()) + " fields, found " +
                                   std::to_string(fields.size()));
  }
  std::string key, cron, timezone;
  std::int64_t user_id = 0;
  nlohmann::json notification = nlohmann::json::object();  // per-row template members
  nlohmann::json catchup = nlohmann::json::object();       // per-row catch-up members
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const std::string value = Trim(fields[i]);
    if (value.empty()) continue;
    switch (columns[i]) {
      case Column::kKey:
        key = value;
        break;
      case Column::kUserId: {
        const auto [end, error] =
            std::from_chars(value.data(), value.data() + value.size(), user_id);
        if (error != std::errc() || end != value.data() + value.size() || user_id <= 0) {
          throw CsvImportError(line, "user_id \"" + value + "\" is not a positive integer");
        }
        break;
      }
      case Column::kCron:
        cron = CronOrDailyTime(value, line);
        break;
      case Column::kTimezone:
        timezone = value;
        break;
      case Column::kType:
        notification["type"] = value;
        break;
      case Column::kTitle:
        notification["title"] = value;
        break;
      case Column::kBody:
        notification["body"] = fields[i];
        break;
      case Column::kLink:
        notification["link"] = value;
        break;
      case Column::kChannels:
        notification["channels"] = Channels(value);
        break;
      case Column::kCatchupPolicy:
        catchup["policy"] = value;
        break;
      case Column::kCatchupWindow:
        catchup["window_seconds"] = IntegerField(value, "catchup_window_seconds", line);
        break;
      case Column::kDelaySeconds:
        notification["delay_seconds"] = IntegerField(value, "delay_seconds", line);
        break;
      case Column::kCancellationKey:
        notification["cancellation_key"] = value;
        break;
    }
  }
  if (key.empty()) throw CsvImportError(line, "the key is empty");
  if (user_id == 0) throw CsvImportError(line, "the user_id is empty");

  if (notification.empty() && catchup.empty() && IsValidScheduleKey(key) && !cron.empty() &&
      cron.size() <= 200) {
    ScheduleSpec spec = shared;
    spec.key = std::move(key);
    spec.user_id = user_id;
    try {
      spec.pattern = ParseCronField(cron, "cron");
      spec.cron = std::move(cron);
      if (!timezone.empty()) {
        (void)ParseZoneField(timezone, "timezone");
        spec.timezone = std::move(timezone);
      }
    } catch (const core::RequestError& e) {
      throw CsvImportError(line, std::string(e.what()));
    }
    return spec;
  }

  nlohmann::json body = {
      {"user_id", user_id}, {"cron", cron}, {"notification", options.notification}};
  if (!timezone.empty()) body["timezone"] = timezone;
  for (const auto& [name, value] : notification.items()) body["notification"][name] = value;
  if (!options.catchup.is_null() || !catchup.empty()) {
    body["catchup"] = options.catchup.is_null() ? nlohmann::json::object() : options.catchup;
    for (const auto& [name, value] : catchup.items()) body["catchup"][name] = value;
  }
  try {
    return ParseScheduleSpec(key, body);
  } catch (const core::RequestError& e) {
    throw CsvImportError(line, std::string(e.what()));
  }
}

}  // namespace

CsvSchedules ParseScheduleCsv(std::istream& in, const CsvImportOptions& options) {
  static const std::vector<Column> kPositional = {Column::kKey, Column::kUserId, Column::kCron,
                                                  Column::kTimezone};
  CsvSchedules out;
  core::CsvReader reader(in);
  std::vector<std::string> fields;
  std::size_t line = 0;
  const auto next = [&] {
    try {
      return reader.Next(fields, line);
    } catch (const core::CsvSyntaxError& e) {
      throw CsvImportError(e.line(), e.what());
    }
  };
  std::optional<std::vector<Column>> header;
  std::map<std::string, std::size_t, std::less<>> key_lines;
  const ScheduleSpec shared = SharedSpec(options);
  while (next()) {
    if (fields.size() == 1 && Trim(fields[0]).empty()) continue;
    if (!fields[0].empty() && fields[0][0] == '#') continue;
    const bool names_key = std::any_of(fields.begin(), fields.end(), [](const std::string& f) {
      return core::AsciiLower(Trim(f)) == "key";
    });
    if (!header && out.specs.empty() && names_key) {
      header = HeaderColumns(fields);
      continue;
    }
    std::vector<Column> columns;
    if (header) {
      columns = *header;
    } else if (fields.size() == 3 || fields.size() == 4) {
      columns.assign(kPositional.begin(),
                     kPositional.begin() + static_cast<std::ptrdiff_t>(fields.size()));
    } else {
      throw CsvImportError(line, "expected key,user_id,cron or HH:MM[,timezone], found " +
                                     std::to_string(fields.size()) +
                                     " fields (a header row names more columns)");
    }
    ScheduleSpec spec = RowSpec(columns, fields, line, options, shared);
    const auto [it, inserted] = key_lines.emplace(spec.key, line);
    if (!inserted) {
      throw CsvImportError(line, "key " + spec.key + " repeats line " + std::to_string(it->second));
    }
    out.specs.push_back(std::move(spec));
    out.lines.push_back(line);
  }
  return out;
}

std::size_t ImportCsv(db::Pool& pool, std::istream& in, const core::Clock& clock,
                      const ImportProgress& progress, const CsvImportOptions& options) {
  const CsvSchedules parsed = ParseScheduleCsv(in, options);
  const std::size_t total = parsed.specs.size();
  const std::size_t batch = std::max<std::size_t>(options.batch, 1);
  if (progress) progress(0, total);
  if (total == 0) return 0;

  auto tx = pool.Begin("import_schedules");
  const core::TimePoint now = clock.Now();
  const std::span<const ScheduleSpec> specs(parsed.specs);
  for (std::size_t done = 0; done < total;) {
    const std::size_t n = std::min(batch, total - done);
    const UpsertOutcome outcome = UpsertSchedules(tx, specs.subspan(done, n), now);
    if (outcome.unknown_user) {
      const std::size_t index = done + *outcome.unknown_user;
      throw CsvImportError(
          parsed.lines[index],
          "user " + std::to_string(parsed.specs[index].user_id) + " does not exist");
    }
    done += n;
    if (progress) progress(done, total);
  }
  WakeSchedulers(tx);
  tx.Commit();
  return total;
}

}  // namespace chopar::schedule
