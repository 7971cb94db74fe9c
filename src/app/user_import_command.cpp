#include "app/user_import_command.hpp"

#include <chrono>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>

#include "app/database_setup.hpp"
#include "core/csv_reader.hpp"
#include "core/request_error.hpp"
#include "db/pool.hpp"
#include "hub/user_import.hpp"
#include "hub/user_import_csv.hpp"
#include "hub/user_service.hpp"
#include "schedule/schedule_service.hpp"

namespace chopar::app {
namespace {

using Clock = std::chrono::steady_clock;

// "csv" or "ndjson" from the flag, else from the file's extension.
std::optional<std::string> FormatOf(const UserImportFlags& flags) {
  if (!flags.format.empty()) {
    if (flags.format == "csv" || flags.format == "ndjson") return flags.format;
    return std::nullopt;
  }
  if (flags.file.ends_with(".csv")) return "csv";
  if (flags.file.ends_with(".ndjson") || flags.file.ends_with(".jsonl")) return "ndjson";
  return std::nullopt;
}

// One line of progress on `err`, at most once a second, and a last one.
// `writing` is held while anything is written on `err` (the refused lines
// are printed from the thread that writes the batches).
class Progress {
 public:
  Progress(std::ostream& err, std::mutex& writing, const hub::UserImport& import)
      : err_(err), writing_(writing), import_(import) {}

  void Line(std::int64_t number) {
    lines_ = number;
    if ((number & 0xFF) != 0) return;  // the clock read every 256 lines
    const auto now = Clock::now();
    if (now - shown_ < std::chrono::seconds(1)) return;
    shown_ = now;
    Print("\r");
  }
  void Last() {
    Print("\r");
    const std::lock_guard lock(writing_);
    err_ << "\n";
  }

 private:
  void Print(const char* start) {
    const double seconds =
        std::max(std::chrono::duration<double>(Clock::now() - started_).count(), 1e-3);
    const hub::ImportCounts counts = import_.counts();
    const std::lock_guard lock(writing_);
    err_ << start << "lines read " << lines_ << ", imported " << counts.imported() << ", failed "
         << counts.failed << ", "
         << static_cast<std::int64_t>(static_cast<double>(lines_) / seconds) << " lines/s"
         << std::flush;
  }

  std::ostream& err_;
  std::mutex& writing_;
  const hub::UserImport& import_;
  const Clock::time_point started_ = Clock::now();
  Clock::time_point shown_ = started_;
  std::int64_t lines_ = 0;
};

void ReadNdjson(std::istream& in, hub::UserImport& import, Progress& progress) {
  std::string line;
  std::int64_t number = 0;
  while (std::getline(in, line)) {
    import.AddJsonLine(line, ++number);
    progress.Line(number);
  }
}

// Returns false for a header it does not take (said on `err`).
bool ReadCsv(std::istream& in, hub::UserImport& import, Progress& progress, std::ostream& err) {
  core::CsvReader reader(in);
  std::vector<std::string> fields;
  std::optional<hub::UserCsvColumns> columns;
  for (;;) {
    std::size_t number = 0;
    try {
      if (!reader.Next(fields, number)) break;
    } catch (const core::CsvSyntaxError& e) {
      import.AddRefused(core::RequestError(core::ErrorCode::kInvalidField, e.what()),
                        static_cast<std::int64_t>(e.line()));
      continue;
    }
    if (fields.size() == 1 && fields[0].empty()) continue;
    if (!columns) {
      try {
        columns.emplace(fields);
      } catch (const core::RequestError& e) {
        err << "chopar users import: line " << number << ": " << e.what() << "\n";
        return false;
      }
      continue;
    }
    try {
      import.AddLine(columns->Row(fields), static_cast<std::int64_t>(number));
    } catch (const core::RequestError& e) {
      import.AddRefused(e, static_cast<std::int64_t>(number));
    }
    progress.Line(static_cast<std::int64_t>(number));
  }
  return true;
}

}  // namespace

int RunUserImport(const Config& config, const UserImportFlags& flags, std::istream& in,
                  std::ostream& out, std::ostream& err) {
  const std::optional<std::string> format = FormatOf(flags);
  if (!format) {
    err << "chopar users import: say --format csv or ndjson (the file's name ends in neither "
           ".csv nor .ndjson)\n";
    return 2;
  }
  std::ifstream file;
  if (flags.file != "-") {
    file.open(flags.file, std::ios::binary);
    if (!file) {
      err << "chopar users import: cannot read " << flags.file << "\n";
      return 2;
    }
  }
  std::istream& input = flags.file == "-" ? in : file;

  DatabaseSetup database(config);
  // A connection for each of the two batches written at once, and one spare.
  db::Pool pool(CommandPoolSettings(database, 3));
  core::SystemClock clock;
  schedule::ScheduleService schedules(pool, clock);
  // As the service's PUT does: a user's zone-following schedules move with
  // its time zone.
  hub::UserService users(
      pool, {.timezone_changed = [&schedules](db::Transaction& tx, std::int64_t user_id) {
        schedules.RecomputeForUser(tx, user_id);
      }});
  std::mutex writing;
  hub::UserImport import(pool, users,
                         {.batch = flags.batch,
                          .max_errors = 0,
                          .on_error = [&err, &writing](const hub::ImportLineError& e) {
                            const std::lock_guard lock(writing);
                            err << "\rline " << e.line << ": " << core::ErrorCodeName(e.code);
                            if (e.field) err << " " << *e.field;
                            err << ": " << e.message << "\n";
                          }});
  Progress progress(err, writing, import);
  if (*format == "csv") {
    if (!ReadCsv(input, import, progress, err)) return 2;
  } else {
    ReadNdjson(input, import, progress);
  }
  import.Finish();
  progress.Last();
  const hub::ImportCounts counts = import.counts();
  out << "received " << counts.received << ", imported " << counts.imported() << " (created "
      << counts.created << ", updated " << counts.updated << "), failed " << counts.failed << "\n";
  return counts.failed > 0 ? 1 : 0;
}

}  // namespace chopar::app
