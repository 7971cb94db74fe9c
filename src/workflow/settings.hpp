#pragma once

#include <optional>

#include "templates/template.hpp"
#include "workflow/digest.hpp"
#include "workflow/escalation.hpp"
#include "workflow/throttle.hpp"

namespace chopar::workflow {

// Bounds of the settings (docs/api.md "Workflows").
inline constexpr int kMaxWindowSeconds = 7 * 24 * 3600;
inline constexpr int kMaxDigestItems = 1000;
inline constexpr int kMaxThrottleLimit = 1'000'000;

// A type's workflow settings, typed: each one absent when its template has
// it null (or the type has no template).
struct WorkflowSettings {
  std::optional<DigestSettings> digest;
  std::optional<ThrottleSettings> throttle;
  std::optional<EscalateSettings> escalate;
};

// The settings of `tmpl` ("digest", "throttle", "escalate": each null or an
// object). Throws core::RequestError kInvalidField naming the field
// ("digest.window_seconds", "escalate.channels", …): an unknown member, a
// missing required one, a number that is not an integer or out of its
// range, an unknown or repeated channel, a key that does not parse. Pure.
//   digest:   window_seconds 1..604800 (required), key (Mustache, ≤ 1000
//             characters, default ""), max_items 1..1000 (default 50)
//   throttle: limit 1..1000000 and window_seconds 1..604800 (both required)
//   escalate: after_seconds 1..604800 and channels (1..4 distinct names),
//             both required
WorkflowSettings ParseWorkflowSettings(const templates::Template& tmpl);

}  // namespace chopar::workflow
