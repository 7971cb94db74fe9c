#include "hub/push_keys.hpp"

#include <openssl/ec.h>
#include <openssl/obj_mac.h>

#include <memory>

#include "core/encoding.hpp"
#include "core/openssl_handles.hpp"

namespace chopar::hub {
namespace {

bool IsOnP256(const std::string& point) {
  const core::EcGroup group(EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1));
  if (!group) return false;
  const core::EcPoint decoded(EC_POINT_new(group.get()));
  if (!decoded) return false;
  // oct2point rejects encodings that are not a point on the curve.
  return EC_POINT_oct2point(group.get(), decoded.get(),
                            reinterpret_cast<const unsigned char*>(point.data()), point.size(),
                            nullptr) == 1;
}

}  // namespace

std::optional<std::string> NormalizeP256dh(std::string_view base64url) {
  const auto bytes = core::Base64UrlDecode(base64url);
  if (!bytes || bytes->size() != 65 || (*bytes)[0] != 0x04 || !IsOnP256(*bytes)) return std::nullopt;
  return core::Base64UrlEncode(*bytes);
}

std::optional<std::string> NormalizeAuthSecret(std::string_view base64url) {
  const auto bytes = core::Base64UrlDecode(base64url);
  if (!bytes || bytes->size() != 16) return std::nullopt;
  return core::Base64UrlEncode(*bytes);
}

}  // namespace chopar::hub
