#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "channels/email/receipts/receipt.hpp"
#include "core/clock.hpp"

namespace chopar::channels::email::receipts {

// Times as the providers write them, and the replay windows around them.
// Pure; thread-safe.

// Unix seconds written as decimal digits with an optional fraction
// ("1600112502", "1521472262.908181"): a signature's timestamp or a
// header. nullopt for anything else, and for a time before 1970 or after
// 2250 (no provider writes one; a TimePoint could not hold much more).
std::optional<core::TimePoint> UnixTimeText(std::string_view text);

// The same for a JSON value: a number (whole or with a fraction) or a
// string UnixTimeText reads.
std::optional<core::TimePoint> UnixTimeValue(const nlohmann::json& value);

// UnixTimeValue of `object`'s member `name`; `fallback` when it is missing
// or not such a time.
core::TimePoint UnixTimeMember(const nlohmann::json& object, const char* name,
                               core::TimePoint fallback);

// Whether `signed_at` is at most `behind` before `now` and at most `ahead`
// after it (the provider's clock may run a little ahead of ours).
bool WithinWindow(core::TimePoint signed_at, core::TimePoint now, std::chrono::seconds behind,
                  std::chrono::seconds ahead);

// The check of a signed Unix-seconds `timestamp` (a header, a signature
// block) against `now`: a refused batch, kStale, when it is more than
// `max_skew` away either side, or kUnauthenticated when it is no such time
// at all; an ok batch when it is fresh. `provider` ("SendGrid") names it in
// the reason.
ReceiptBatch CheckSignedTime(std::string_view provider, std::string_view timestamp,
                             core::TimePoint now, std::chrono::seconds max_skew);

}  // namespace chopar::channels::email::receipts
