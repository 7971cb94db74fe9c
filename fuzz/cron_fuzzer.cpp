// The cron parser and the next fire times it leads to: any text either
// parses or throws CronError (with a position inside the text); a pattern
// that parses yields strictly increasing fire times, each matching it.
#include <chrono>

#include "fuzz_support.hpp"
#include "schedule/cron.hpp"
#include "schedule/next_fire.hpp"
#include "schedule/time_zone.hpp"

using namespace chopar;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::AsText(data, size);
  schedule::CronPattern pattern;
  try {
    pattern = schedule::ParseCron(text);
  } catch (const schedule::CronError& e) {
    fuzz::Require(e.position() >= 1 && e.position() <= text.size() + 1,
                  "error position inside the text");
    return 0;
  }
  fuzz::Require(pattern == schedule::ParseCron(text), "parsing is deterministic");
  // A zone with daylight saving, so both DST rules are exercised.
  static const date::time_zone* const zone = schedule::FindTimeZone("Europe/Berlin");
  const auto after = std::chrono::sys_days{std::chrono::year{2027} / 3 / 27};
  const auto times = schedule::NextFireTimes(pattern, zone, after, 4);
  core::TimePoint previous = after;
  for (const auto& t : times) {
    fuzz::Require(t > previous, "fire times strictly increase");
    previous = t;
  }
  return 0;
}
