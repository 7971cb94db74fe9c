#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace chopar::core {

// One field every log line of a thread carries while its LogScope lives:
// `request_id` while an HTTP request is handled, `user_id` or `schedule`
// while a piece of work is about them. The key is a string literal.
struct LogField {
  std::string_view key;
  std::string value;
};

// Adds a field to the log lines of the current thread until it is destroyed.
// Scopes nest (the innermost field of a key is the one that counts, see
// CurrentLogFields); each must be destroyed on the thread that created it,
// in reverse order of creation (automatic storage does both). Not movable.
class LogScope {
 public:
  // `key` must outlive the scope (a literal).
  LogScope(std::string_view key, std::string value);
  ~LogScope();
  LogScope(const LogScope&) = delete;
  LogScope& operator=(const LogScope&) = delete;
};

// The fields of the current thread's live scopes, one per key (the innermost
// one's value), in the order their keys were first added. Empty when no scope
// lives. The reference is valid until the thread's next LogScope change.
const std::vector<LogField>& CurrentLogFields();

}  // namespace chopar::core
