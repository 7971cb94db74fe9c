#include "console/suppressions.hpp"

#include <algorithm>
#include <cctype>

#include "console/page.hpp"
#include "console/queries.hpp"
#include "core/request_error.hpp"
#include "db/time_column.hpp"

namespace chopar::console {
namespace {

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

void CheckChannel(const std::string& channel) {
  if (channel != "email" && channel != "sms") {
    throw core::InvalidField("channel", "channel must be email or sms");
  }
}

}  // namespace

core::Page<Suppression> ListSuppressions(db::Pool& pool, const std::optional<std::string>& channel,
                                         const std::optional<std::string>& address, int limit,
                                         const std::optional<std::string>& cursor) {
  CheckLimit(limit, 500);
  if (channel) CheckChannel(*channel);
  if (address && (address->empty() || address->size() > 320)) {
    throw core::InvalidField("address", "address must be 1 to 320 characters");
  }
  const std::optional<std::int64_t> before =
      cursor ? std::optional(DecodeIdCursor(*cursor)) : std::nullopt;
  const auto rows = pool.Acquire()->Exec(queries::kListSuppressions, channel,
                                         address ? std::optional(Lower(*address)) : std::nullopt,
                                         before, limit + 1);
  return PageOf(rows, limit, "id", [](const db::Result& r, int i) {
    return Suppression{.id = r.Int(i, "id"),
                       .channel = r.String(i, "channel"),
                       .address = r.String(i, "address"),
                       .reason = r.String(i, "reason"),
                       .provider = r.OptString(i, "provider"),
                       .detail = r.String(i, "detail"),
                       .since = db::TimeColumn(r, i, "since")};
  });
}

bool RemoveSuppression(db::Pool& pool, const std::string& channel, const std::string& address) {
  CheckChannel(channel);
  return !pool.Acquire()->Exec(queries::kDeleteSuppression, channel, Lower(address)).Empty();
}

}  // namespace chopar::console
