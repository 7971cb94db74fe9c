#include "hub/recipient_row.hpp"

#include <string>
#include <string_view>

namespace chopar::hub {
namespace {

// Whether `name` is one of the items of "a,b,c" (channel names have no comma).
bool InCommaList(std::string_view list, std::string_view name) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    if (list.substr(0, comma) == name) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

Addressable ReadAddressable(const db::Result& rows, int i) {
  const std::string addressed = rows.OptString(i, "addressed").value_or("");
  return core::ReachableChannels(core::AddressesHeld{
      .email = rows.Bool(i, "has_email"),
      .phone = rows.Bool(i, "has_phone"),
      .telegram_chat = rows.Bool(i, "has_telegram"),
      .push_subscription = rows.Bool(i, "has_push"),
      .device = rows.Bool(i, "has_device"),
      .own = [&](std::string_view name) { return InCommaList(addressed, name); }});
}

}  // namespace chopar::hub
