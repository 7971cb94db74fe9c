#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/channel_kind.hpp"
#include "core/clock.hpp"
#include "mustache/text.hpp"

namespace chopar::workflow {

// Bounds of the settings (docs/api.md "Workflows").
inline constexpr int kMaxWindowSeconds = 7 * 24 * 3600;
inline constexpr int kMaxDigestItems = 1000;
inline constexpr int kMaxThrottleLimit = 1'000'000;
// The longest digest key stored as it was rendered (the digests.key CHECK).
inline constexpr std::size_t kMaxDigestKeyBytes = 255;
// The longest a digest key may render before it is hashed.
inline constexpr std::size_t kMaxDigestKeyRenderBytes = 64 * 1024;

// A digest's key text, parsed once per template. Immutable, cheap to copy
// (the parsed text is shared); thread-safe.
class DigestKey {
 public:
  DigestKey() = default;  // "": one window per type
  // Parses `source` (unescaped Mustache). Throws mustache::SyntaxError.
  explicit DigestKey(std::string_view source);

  // The key of a notification with `data`: the text rendered as it is, or,
  // when longer than kMaxDigestKeyBytes, "sha256:" and the hex of its HMAC
  // (distinct keys stay distinct, the stored key stays bounded). An empty
  // source renders "". Throws core::RequestError kInvalidField "data" when
  // the render passes kMaxDigestKeyRenderBytes or mustache::kMaxRenderSteps. Pure.
  [[nodiscard]] std::string Render(const nlohmann::json& data) const;
  [[nodiscard]] std::string_view source() const;

 private:
  std::shared_ptr<const mustache::MustacheText> text_;  // null: ""
};

// A type's digest (its template's "digest" object, docs/api.md "Workflows"):
// the first notification per (user, type, rendered key) opens a window of
// `window`; channel deliveries wait for it to close and go as one per
// channel; a window holding `max_items` closes at once.
struct DigestSettings {
  std::chrono::seconds window{600};
  DigestKey key;  // a Mustache text over the notification's data
  int max_items = 50;
};

// A type's throttle (its template's "throttle" object): at most `limit`
// channel deliveries of the type per user within any `window`.
struct ThrottleSettings {
  int limit = 1;
  std::chrono::seconds window{3600};
};

// A type's escalate-if-unread (its template's "escalate" object):
// deliveries on `channels` wait `after` from the notification's creation;
// read by then, they end canceled.
struct EscalateSettings {
  std::chrono::seconds after{900};
  std::vector<core::ChannelKind> channels;

  // Whether `channel`'s delivery is held back for the read check.
  [[nodiscard]] bool Holds(core::ChannelKind channel) const;
  // When a held delivery of a notification created at `created_at` is due.
  [[nodiscard]] core::TimePoint DueAt(core::TimePoint created_at) const {
    return created_at + after;
  }
};

// A type's workflow settings, typed: each one absent when its template has
// it null (or the type has no template). Parsed once, with the template, so
// notify and the claim read them without parsing. A value.
struct Step;

struct WorkflowSettings {
  // The template's "steps" (docs/api.md "Workflows with steps"): when
  // present, its notifications go through them (a workflow run each) and
  // the three settings below are absent.
  std::shared_ptr<const std::vector<Step>> steps;
  std::optional<DigestSettings> digest;
  std::optional<ThrottleSettings> throttle;
  std::optional<EscalateSettings> escalate;
};

// The settings of a template's "digest", "throttle" and "escalate" members
// (each null or an object). Throws core::RequestError kInvalidField naming
// the field ("digest.window_seconds", "escalate.channels", …): an unknown
// member, a missing required one, a number that is not an integer or out
// of its range, an unknown or repeated channel, a key that does not parse.
// Pure.
//   digest:   window_seconds 1..604800 (required), key (Mustache, ≤ 1000
//             characters, default ""), max_items 1..1000 (default 50)
//   throttle: limit 1..1000000 and window_seconds 1..604800 (both required)
//   escalate: after_seconds 1..604800 and channels (1..4 distinct names),
//             both required
// A digest or throttle object (the template's member, or a step) named
// `name` in errors; `also_known` are members the caller reads itself.
DigestSettings ParseDigest(const nlohmann::json& object, std::string_view name,
                           std::span<const std::string_view> also_known = {});
ThrottleSettings ParseThrottle(const nlohmann::json& object, std::string_view name,
                               std::span<const std::string_view> also_known = {});

WorkflowSettings ParseWorkflowSettings(const nlohmann::json& digest, const nlohmann::json& throttle,
                                       const nlohmann::json& escalate);

}  // namespace chopar::workflow
