#pragma once

#include "db/result.hpp"
#include "hub/channel_choice.hpp"

namespace chopar::hub {

// Which channels the user of row `i` of users_for_notify.sql has an address
// for: what notify and the workflow steps choose channels from.
Addressable ReadAddressable(const db::Result& rows, int i);

}  // namespace chopar::hub
