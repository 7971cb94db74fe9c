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

// ^[a-z0-9][a-z0-9_.:-]{0,49}$: a notification's tag ("billing",
// "project:42"), the grammar the notifications_tags CHECK holds tags to.
// No comma or space, so a list of tags joins by either. Pure.
constexpr bool IsTagName(std::string_view tag) {
  if (tag.empty() || tag.size() > 50) return false;
  for (std::size_t i = 0; i < tag.size(); ++i) {
    const char c = tag[i];
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum && (i == 0 || (c != '_' && c != '.' && c != ':' && c != '-'))) return false;
  }
  return true;
}

static_assert(IsTagName("billing") && IsTagName("project:42") && IsTagName("0-day"));
static_assert(!IsTagName("Billing") && !IsTagName("-x") && !IsTagName("a,b") && !IsTagName(""));

}  // namespace chopar::core
