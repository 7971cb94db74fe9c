#pragma once

#include <cstddef>
#include <functional>
#include <istream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "db/pool.hpp"
#include "schedule/schedule_spec.hpp"

namespace chopar::schedule {

// `chopar schedules import FILE`: loads schedules from CSV (RFC 4180:
// comma-separated, fields may be "quoted", "" inside quotes is a quote, CRLF
// or LF line ends, an optional UTF-8 byte-order mark). Blank lines and lines
// starting with '#' are ignored.
//
// Without a header the columns are: key, user_id, cron pattern or HH:MM
// (daily at that local time: "18:05" → "5 18 * * *"), and optionally the
// time zone (empty or absent: follow the user's zone). A first row with a
// field "key" is a header naming the columns instead, in any order:
// key, user_id, cron (or time), timezone, and optionally type, title, body,
// link, channels (names separated by ';' or spaces), delay_seconds,
// cancellation_key, catchup_policy, catchup_window_seconds — per-row values
// for the template and catch-up that otherwise come from the options.
struct CsvImportOptions {
  // The notification template of rows that do not name their own
  // (ParseScheduleSpec's "notification"); per-row columns override members.
  nlohmann::json notification = {{"type", "reminder"}, {"title", "Reminder"}};
  // ParseScheduleSpec's "catchup" for every row; null for the defaults.
  nlohmann::json catchup = nullptr;
  // Rows per INSERT statement.
  std::size_t batch = 5000;
};

// A row (or the header) that cannot be imported. what() starts with
// "line N: " — N counts physical lines from 1, the line where the row starts.
class CsvImportError : public std::runtime_error {
 public:
  CsvImportError(std::size_t line, const std::string& problem)
      : std::runtime_error("line " + std::to_string(line) + ": " + problem), line_(line) {}
  [[nodiscard]] std::size_t line() const { return line_; }

 private:
  std::size_t line_;
};

struct CsvSchedules {
  std::vector<ScheduleSpec> specs;
  std::vector<std::size_t> lines;  // lines[i]: where specs[i] was read
};

// Reads and validates every row (cron, zone, template exactly as the API
// does; keys distinct). Throws CsvImportError naming the first bad line, or
// std::invalid_argument if the options' template or catch-up is invalid.
// Pure apart from reading `in`.
CsvSchedules ParseScheduleCsv(std::istream& in, const CsvImportOptions& options = {});

// Called after each statement with rows written so far and the total, so the
// CLI can draw a progress bar. Called with (0, total) before the first write.
using ImportProgress = std::function<void(std::size_t done, std::size_t total)>;

// Parses all of `in`, then writes every schedule in ONE transaction through
// the bulk path (UpsertSchedules, options.batch rows per statement), waking
// the schedulers at commit: all or nothing. Returns how many rows were
// written. Throws CsvImportError for a bad row (before anything is written)
// or a user that does not exist (rolled back), std::invalid_argument for
// invalid options, db::DbError from the database.
std::size_t ImportCsv(db::Pool& pool, std::istream& in, const core::Clock& clock,
                      const ImportProgress& progress, const CsvImportOptions& options = {});

}  // namespace chopar::schedule
