#include "app/schedule_commands.hpp"

#include <fstream>
#include <iostream>

#include "app/database_setup.hpp"
#include "core/clock.hpp"
#include "core/request_error.hpp"
#include "core/time_format.hpp"
#include "db/pool.hpp"
#include "schedule/csv_import.hpp"
#include "schedule/schedule_service.hpp"

namespace chopar::app {
namespace {

void DrawProgress(std::size_t done, std::size_t total) {
  constexpr int kWidth = 40;
  const double fraction = total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
  const int filled = static_cast<int>(fraction * kWidth);
  std::cerr << "\r[" << std::string(filled, '#') << std::string(kWidth - filled, ' ') << "] "
            << done << "/" << total << std::flush;
}

}  // namespace

int RunCronPreview(const std::string& pattern, const std::string& timezone,
                   const std::string& after, int count) {
  nlohmann::json body = {{"cron", pattern}, {"timezone", timezone}, {"count", count}};
  if (!after.empty()) body["after"] = after;
  try {
    const auto request = schedule::ParsePreviewRequest(body);
    for (core::TimePoint instant : schedule::PreviewFireTimes(request, core::SystemClock().Now())) {
      std::cout << core::FormatRfc3339(instant) << "\n";
    }
    return 0;
  } catch (const core::RequestError& e) {
    std::cerr << "chopar cron: " << e.what() << "\n";
    return 2;
  }
}

int RunScheduleImport(const Config& config, const ImportFlags& flags) {
  std::ifstream in(flags.file);
  if (!in) {
    std::cerr << "chopar schedules import: cannot read " << flags.file << "\n";
    return 2;
  }
  DatabaseSetup database(config);
  db::Pool pool(CommandPoolSettings(database, 2));
  core::SystemClock clock;
  schedule::CsvImportOptions options;
  options.notification = {{"type", flags.type}, {"title", flags.title}};
  if (!flags.body.empty()) options.notification["body"] = flags.body;
  const std::size_t imported = schedule::ImportCsv(pool, in, clock, DrawProgress, options);
  std::cerr << "\n";
  std::cout << "imported " << imported << " schedules\n";
  return 0;
}

}  // namespace chopar::app
