#pragma once

#include <cstddef>
#include <string_view>

namespace chopar::core {

// ^[a-z]+(\.[a-z_]+)*$, at most 100 characters: the grammar of notification
// types and of categories ("task.due", "marketing", "billing.past_due"), the
// same regular expression the database's CHECKs hold them to. Pure.
constexpr bool IsTypeName(std::string_view name) {
  if (name.empty() || name.size() > 100) return false;
  bool first_segment = true;
  std::size_t segment_length = 0;
  for (const char c : name) {
    if (c == '.') {
      if (segment_length == 0) return false;
      first_segment = false;
      segment_length = 0;
    } else if ((c >= 'a' && c <= 'z') || (!first_segment && c == '_')) {
      ++segment_length;
    } else {
      return false;
    }
  }
  return segment_length > 0;
}

static_assert(IsTypeName("task.due") && IsTypeName("billing.past_due") && IsTypeName("news._x"));
static_assert(!IsTypeName("my_news") && !IsTypeName("task.") && !IsTypeName(".due") &&
              !IsTypeName("Task") && !IsTypeName(""));

}  // namespace chopar::core
