#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace chopar::hub {

// Validates a browser's `p256dh` key: base64url (padding optional) of an
// uncompressed point (65 bytes, 0x04 prefix) that lies on the P-256 curve.
// Returns it re-encoded as unpadded base64url, or nullopt if invalid.
std::optional<std::string> NormalizeP256dh(std::string_view base64url);

// Validates the `auth` secret: base64url of exactly 16 bytes. Returns the
// unpadded base64url form, or nullopt.
std::optional<std::string> NormalizeAuthSecret(std::string_view base64url);

}  // namespace chopar::hub
