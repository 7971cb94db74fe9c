#include "schedule/time_zone.hpp"

namespace chopar::schedule {

UnknownTimeZoneError::UnknownTimeZoneError(std::string_view name)
    : std::invalid_argument("unknown time zone \"" + std::string(name) + "\""), name_(name) {}

const date::time_zone* FindTimeZone(std::string_view name) {
  if (name.empty()) throw UnknownTimeZoneError(name);
  try {
    return date::locate_zone(name);
  } catch (const std::runtime_error&) {
    // date reports an unknown name as std::runtime_error("... not found").
    throw UnknownTimeZoneError(name);
  }
}

}  // namespace chopar::schedule
