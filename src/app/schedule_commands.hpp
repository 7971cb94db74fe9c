#pragma once

#include <string>

#include "app/config.hpp"

namespace chopar::app {

// `chopar cron PATTERN --timezone Z --after T --count N`: prints the next
// instants, one RFC 3339 line each, exactly as the scheduler fires them. No
// database. Returns the exit code (2 for a bad pattern or zone, with the
// message on stderr).
int RunCronPreview(const std::string& pattern, const std::string& timezone, const std::string& after,
                   int count);

struct ImportFlags {
  std::string file;
  std::string type = "reminder";
  std::string title = "Reminder";
  std::string body;
};

// `chopar schedules import FILE`: loads a CSV of key,user_id,cron-or-HH:MM,
// timezone with a progress bar on stderr. Returns the exit code.
int RunScheduleImport(const Config& config, const ImportFlags& flags);

}  // namespace chopar::app
