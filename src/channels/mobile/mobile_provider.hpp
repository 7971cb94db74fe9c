#pragma once

#include <vector>

#include "channels/provider_registry.hpp"

namespace chopar::channels::mobile {

// Registers the `mobile` channel — addressed by the user's devices
// (POST /v1/users/{id}/devices), on by default like Web Push — and its
// provider `mobile` ([channels.mobile] provider = "mobile", the keys of
// MobileKeys: FCM's service account and APNs' key, either or both).
// Without a provider the channel goes to the sink. Call it once before
// anything reads the channels (the top of main); a second call does nothing.
void RegisterMobileChannel();

// The keys [channels.mobile] reads with provider = "mobile".
std::vector<ProviderKey> MobileKeys();

}  // namespace chopar::channels::mobile
