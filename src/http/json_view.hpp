#pragma once

// The pieces every JSON view of the API is made of (user_view,
// notification_view): optional members as null, times as RFC 3339, pages.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/clock.hpp"
#include "core/page.hpp"
#include "core/time_format.hpp"

namespace chopar::http {

// The value (a text, a number, a list), or null.
template <typename T>
nlohmann::json OrNull(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// RFC 3339 UTC to the second ("2026-12-02T18:29:04Z"), or null.
inline nlohmann::json TimeView(const std::optional<core::TimePoint>& time) {
  return time ? nlohmann::json(core::FormatRfc3339(*time)) : nlohmann::json(nullptr);
}

// {"items": [view(item)…], "next_cursor": "…" | null}.
template <typename T, typename View>
nlohmann::json PageView(const core::Page<T>& page, View view) {
  nlohmann::json items = nlohmann::json::array();
  for (const T& item : page.items) items.push_back(view(item));
  return {{"items", std::move(items)}, {"next_cursor", OrNull(page.next_cursor)}};
}

}  // namespace chopar::http
