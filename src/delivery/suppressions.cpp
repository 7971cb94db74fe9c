#include "delivery/suppressions.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

#include "db/params.hpp"
#include "delivery/queries.hpp"

namespace chopar::delivery {

bool HasSuppressions(core::ChannelKind channel) {
  return channel == core::ChannelKind::kEmail || channel == core::ChannelKind::kSms;
}

std::optional<std::string> SuppressionAddress(const channels::Message& message) {
  if (message.channel == core::ChannelKind::kEmail && message.email) {
    std::string address = *message.email;
    std::transform(address.begin(), address.end(), address.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return address;
  }
  if (message.channel == core::ChannelKind::kSms && message.phone) return *message.phone;
  return std::nullopt;
}

std::unordered_map<std::string, std::string> SuppressedAmong(
    db::Pool& pool, core::ChannelKind channel, std::span<const ClaimedDelivery> part) {
  std::unordered_map<std::string, std::string> suppressed;
  if (!HasSuppressions(channel)) return suppressed;
  std::vector<std::string> addresses;
  for (const ClaimedDelivery& claimed : part) {
    if (auto address = SuppressionAddress(claimed.message))
      addresses.push_back(std::move(*address));
  }
  if (addresses.empty()) return suppressed;
  auto conn = pool.Acquire();
  const auto rows =
      conn->Exec(queries::kSuppressedAddresses, std::string(core::ChannelName(channel)),
                 db::ArrayLiteral(addresses));
  for (int r = 0; r < rows.Rows(); ++r) {
    std::string why = rows.String(r, "reason");
    const std::string provider = rows.String(r, "provider");
    const std::string detail = rows.String(r, "detail");
    if (!provider.empty() || !detail.empty()) {
      why += " (" + provider + (provider.empty() || detail.empty() ? "" : ": ") + detail + ")";
    }
    suppressed.emplace(rows.String(r, "address"), std::move(why));
  }
  return suppressed;
}

}  // namespace chopar::delivery
