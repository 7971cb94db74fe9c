#include "delivery/horizon.hpp"

#include "core/time_format.hpp"

namespace chopar::delivery {
namespace {
constexpr std::string_view kMinusInfinityText = "-infinity";
}  // namespace

std::string ActiveHorizon::Sql(Micros micros) {
  if (micros == kMinusInfinity) return std::string(kMinusInfinityText);
  return core::FormatRfc3339Micros(core::FromUnixMicros(micros));
}

ActiveHorizon::Micros ActiveHorizon::Parse(std::string_view text) {
  if (text == kMinusInfinityText) return kMinusInfinity;
  return core::ToUnixMicros(core::ParsePgTimestamp(text));
}

bool ActiveHorizon::Learn(Micros used, std::string_view seen) {
  const Micros value = Parse(seen);
  micros_.store(value, std::memory_order_relaxed);
  return value < used;
}

}  // namespace chopar::delivery
