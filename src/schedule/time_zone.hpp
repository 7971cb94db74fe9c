#pragma once

#include <date/tz.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace chopar::schedule {

// A time zone name the system tzdata does not know. what() reads
// `unknown time zone "Mars/Olympus"`.
class UnknownTimeZoneError : public std::invalid_argument {
 public:
  explicit UnknownTimeZoneError(std::string_view name);
  [[nodiscard]] const std::string& name() const { return name_; }

 private:
  std::string name_;
};

// The IANA zone called `name` ("Europe/Berlin", "UTC"; links such as
// "US/Eastern" resolve too; names are case-sensitive). The pointer refers to
// the process-wide tz database and stays valid for the life of the process;
// the caller does not own it. Throws UnknownTimeZoneError for an empty or
// unknown name. Thread-safe (the first call loads the database).
[[nodiscard]] const date::time_zone* FindTimeZone(std::string_view name);

}  // namespace chopar::schedule
