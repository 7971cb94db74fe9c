#pragma once

#include <spdlog/formatter.h>

#include <memory>
#include <string>
#include <vector>

namespace chopar::app {

// The [log] section (docs/configuration.md "Operations").
struct LogSettings {
  std::string level = "info";   // trace | debug | info | warn | error | critical | off
  std::string format = "text";  // "text" | "json"
};

// The names [log] level and [log] format take (checked by the
// configuration's rules; spdlog also reads "warning" as warn).
std::vector<std::string> LogLevelNames();
std::vector<std::string> LogFormatNames();

// A formatter of log lines for `format` ("text" or "json"; anything else is
// "text"). Both end every line with the fields of the writing thread's
// core::LogScope (request_id and the ids the line is about):
//   text: [2026-10-28 13:05:00.123] [info] message request_id=… user_id=…
//   json: {"time":"2026-10-28T13:05:00.123Z","level":"info","message":"…",
//          "request_id":"…","user_id":"…"}  — one object a line, UTF-8 (bytes
//          that are not are replaced), times in UTC.
std::unique_ptr<spdlog::formatter> MakeLogFormatter(const std::string& format);

// Sets up the process's default logger: its formatter, and its level from
// `settings.level` unless `spdlog_level` (the SPDLOG_LEVEL variable) is not
// empty, which wins, as spdlog reads it ("debug", or "name=level,…"). Call
// once, before threads start logging.
void ConfigureLogging(const LogSettings& settings, const std::string& spdlog_level);

}  // namespace chopar::app
