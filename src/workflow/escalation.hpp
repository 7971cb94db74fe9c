#pragma once

#include <chrono>
#include <optional>
#include <string_view>

#include "core/clock.hpp"
#include "workflow/settings.hpp"

namespace chopar::workflow {

// The last_error of an escalated delivery canceled because the notification
// was read.
inline constexpr std::string_view kReadReason = "read";

// What happens to a held delivery at `now`. kCancelRead: the notification
// was read (at any time up to now; reading counts through every path,
// since each sets read_at) → canceled with kReadReason. kWait: unread and
// not yet due (`due_at` says until when). kSend: unread and due.
struct EscalationDecision {
  enum class Verdict { kWait, kSend, kCancelRead };
  Verdict verdict = Verdict::kWait;
  core::TimePoint due_at;
  friend bool operator==(const EscalationDecision&, const EscalationDecision&) = default;
};

// `read_at` is the notification's read time (nullopt: unread); a read_at
// later than `now` (another host's clock ahead) is not yet a read. Pure.
EscalationDecision DecideEscalation(core::TimePoint created_at,
                                    std::optional<core::TimePoint> read_at, core::TimePoint now,
                                    const EscalateSettings& settings);

}  // namespace chopar::workflow
