#pragma once

#include <optional>
#include <span>
#include <string>
#include <unordered_map>

#include "channels/channel.hpp"
#include "core/channel_kind.hpp"
#include "db/pool.hpp"
#include "delivery/claim.hpp"

namespace chopar::delivery {

// The channels whose addresses can be suppressed (a hard bounce of an
// email; docs/api.md "Suppressions"): email and SMS.
bool HasSuppressions(core::ChannelKind channel);

// The address a suppression names for `message`: its email in lower case,
// or its phone; nullopt on a channel without suppressions. Pure.
std::optional<std::string> SuppressionAddress(const channels::Message& message);

// The suppressed addresses among `part`'s (all of channel `channel`), each
// with what its delivery's last_error says after "suppressed: " ("bounce
// (ses: 550 5.1.1 user unknown)"); empty at once for a channel without
// suppressions. One indexed query. Throws db::DbError / db::PoolTimeout:
// the part is then not sent (its lease runs out and it is claimed again).
std::unordered_map<std::string, std::string> SuppressedAmong(db::Pool& pool,
                                                             core::ChannelKind channel,
                                                             std::span<const ClaimedDelivery> part);

}  // namespace chopar::delivery
