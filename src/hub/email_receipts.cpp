#include "hub/email_receipts.hpp"

#include <optional>

#include "core/channel_kind.hpp"
#include "core/time_format.hpp"
#include "hub/preferences.hpp"
#include "hub/queries.hpp"

namespace chopar::hub {

EmailReceiptsRecorded RecordEmailReceipts(db::Pool& pool, UserService& users,
                                          std::span<const EmailReceiptEvent> receipts,
                                          const core::Clock& clock) {
  EmailReceiptsRecorded result;
  for (const EmailReceiptEvent& receipt : receipts) {
    if (receipt.provider_message_id.empty()) {
      ++result.unmatched;
      continue;
    }
    // The preferences change (a complaint) runs after this connection is back.
    std::optional<std::int64_t> complainant;
    std::string group, name;
    {
      auto conn = pool.Acquire();
      const auto rows = conn->Exec(queries::kRecordEmailReceipt, receipt.provider_message_id,
                                   receipt.status, core::FormatRfc3339(clock.Now()));
      if (rows.Empty()) {
        ++result.unmatched;
        continue;
      }
      const bool changed = rows.Bool(0, "changed");
      if (changed) ++result.recorded;
      if (receipt.status == "bounced" && receipt.permanent) {
        const std::string address =
            receipt.recipient.empty() ? rows.String(0, "email") : receipt.recipient;
        if (!address.empty() &&
            !conn->Exec(queries::kSuppressEmailAddress, address, receipt.provider, receipt.detail)
                 .Empty()) {
          ++result.suppressed;
        }
      }
      if (receipt.status == "complained" && changed) {
        const auto category = rows.OptString(0, "category");
        group = category ? "categories" : "types";
        name = category ? *category : rows.String(0, "type");
        complainant = rows.Int(0, "user_id");
      }
    }
    if (complainant) {
      (void)users.UpdatePreferences(*complainant, [&](nlohmann::json preferences) {
        return WithChannelOff(std::move(preferences), group, name, core::ChannelKind::kEmail);
      });
      ++result.unsubscribed;
    }
  }
  return result;
}

}  // namespace chopar::hub
