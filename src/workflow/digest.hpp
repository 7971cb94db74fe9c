#pragma once

#include <chrono>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.hpp"
#include "templates/mustache_text.hpp"

namespace chopar::workflow {

// A type's digest (its template's "digest" object, docs/api.md "Workflows"):
// the first notification per (user, type, rendered key) opens a window of
// `window`; channel deliveries wait for it to close and go as one per
// channel; a window holding `max_items` closes at once.
struct DigestSettings {
  std::chrono::seconds window{600};
  std::string key;  // a Mustache text over the notification's data; "" = one window per type
  int max_items = 50;
};

// The window open for one (user, type, key), as the database holds it.
struct OpenWindow {
  core::TimePoint opened_at;
  core::TimePoint closes_at;
  int item_count = 0;
};

// Where a notification's channel deliveries go. kJoin: into the open window,
// whose closing time becomes `closes_at` (earlier than before when this item
// fills it); kOpen: a new window opened now, closing at `closes_at`.
struct WindowDecision {
  enum class Kind { kJoin, kOpen };
  Kind kind = Kind::kOpen;
  core::TimePoint closes_at;
  friend bool operator==(const WindowDecision&, const WindowDecision&) = default;
};

// Decides for a notification arriving at `now`. A window is joined only
// while it is open (now strictly before closes_at) and not full; otherwise
// the notification opens the next one. A window that this item fills
// (item_count + 1 >= max_items) closes now, never before it opened (a `now`
// earlier than opened_at closes it at opened_at). The window is fixed by
// its first notification: joining never extends it. Pure.
WindowDecision DecideDigestWindow(const std::optional<OpenWindow>& open, core::TimePoint now,
                                  const DigestSettings& settings);

// The longest key stored as it was rendered (the digests.key CHECK).
inline constexpr std::size_t kMaxDigestKeyBytes = 255;

// A digest's key text, parsed once per template. Immutable; thread-safe.
class DigestKey {
 public:
  // Parses `source` (unescaped Mustache). Throws templates::SyntaxError.
  explicit DigestKey(std::string_view source);

  // The key of a notification with `data`: the text rendered as it is, or,
  // when longer than kMaxDigestKeyBytes, "sha256:" and the hex of its HMAC
  // (distinct keys stay distinct, the stored key stays bounded). An empty
  // source renders "". Pure.
  [[nodiscard]] std::string Render(const nlohmann::json& data) const;

 private:
  std::optional<templates::MustacheText> text_;
};

}  // namespace chopar::workflow
