#include "channels/email/receipts/signed_time.hpp"

#include <cmath>

#include "channels/email/receipts/json_fields.hpp"

namespace chopar::channels::email::receipts {
namespace {

// 2250-01-01T00:00:00Z: later than any webhook's time, and well inside
// what a TimePoint (nanoseconds since 1970 in 64 bits) holds.
constexpr double kLatestSeconds = 8835955200.0;

std::optional<core::TimePoint> FromSeconds(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0 || seconds > kLatestSeconds) return std::nullopt;
  return core::TimePoint(std::chrono::duration_cast<core::TimePoint::duration>(
      std::chrono::duration<double>(seconds)));
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::optional<core::TimePoint> UnixTimeText(std::string_view text) {
  const auto dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  const std::string_view fraction =
      dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  // Eleven digits reach past 2250; more, or none, is no time.
  if (whole.empty() || whole.size() > 11 || (dot != std::string_view::npos && fraction.empty()) ||
      fraction.size() > 9) {
    return std::nullopt;
  }
  double seconds = 0;
  for (const char c : whole) {
    if (!IsDigit(c)) return std::nullopt;
    seconds = seconds * 10 + (c - '0');
  }
  double scale = 0.1;
  for (const char c : fraction) {
    if (!IsDigit(c)) return std::nullopt;
    seconds += (c - '0') * scale;
    scale /= 10;
  }
  return FromSeconds(seconds);
}

std::optional<core::TimePoint> UnixTimeValue(const nlohmann::json& value) {
  if (value.is_number_unsigned())
    return FromSeconds(static_cast<double>(value.get<std::uint64_t>()));
  if (value.is_number_integer()) return FromSeconds(static_cast<double>(value.get<std::int64_t>()));
  if (value.is_number_float()) return FromSeconds(value.get<double>());
  if (value.is_string()) return UnixTimeText(std::string_view(value.get_ref<const std::string&>()));
  return std::nullopt;
}

core::TimePoint UnixTimeMember(const nlohmann::json& object, const char* name,
                               core::TimePoint fallback) {
  const nlohmann::json* value = Member(object, name);
  return (value != nullptr ? UnixTimeValue(*value) : std::nullopt).value_or(fallback);
}

bool WithinWindow(core::TimePoint signed_at, core::TimePoint now, std::chrono::seconds behind,
                  std::chrono::seconds ahead) {
  return signed_at >= now - behind && signed_at <= now + ahead;
}

ReceiptBatch CheckSignedTime(std::string_view provider, std::string_view timestamp,
                             core::TimePoint now, std::chrono::seconds max_skew) {
  const auto signed_at = UnixTimeText(timestamp);
  if (!signed_at) {
    return ReceiptBatch::Refused(Refusal::kUnauthenticated,
                                 "the " + std::string(provider) + " timestamp is not Unix seconds");
  }
  if (!WithinWindow(*signed_at, now, max_skew, max_skew)) {
    return ReceiptBatch::Refused(Refusal::kStale, "the " + std::string(provider) +
                                                      " timestamp is outside the replay window");
  }
  return {};
}

}  // namespace chopar::channels::email::receipts
