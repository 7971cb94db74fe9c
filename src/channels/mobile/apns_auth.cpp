#include "channels/mobile/apns_auth.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "channels/mobile/jwt.hpp"
#include "channels/mobile/pem_key.hpp"

namespace chopar::channels::mobile {
namespace {

constexpr std::size_t kAppleIdLength = 10;

bool IsAppleId(std::string_view id) {
  return id.size() == kAppleIdLength && std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
         });
}

}  // namespace

ApnsKey LoadApnsKey(std::string_view p8_pem, std::string key_id, std::string team_id) {
  if (!IsAppleId(key_id)) throw std::invalid_argument("APNs key id must be 10 letters and digits");
  if (!IsAppleId(team_id))
    throw std::invalid_argument("APNs team id must be 10 letters and digits");
  ApnsKey key{std::move(key_id), std::move(team_id), PrivateKeyFromPem(p8_pem)};
  if (!key.private_key || EVP_PKEY_is_a(key.private_key.get(), "EC") != 1 ||
      EVP_PKEY_get_bits(key.private_key.get()) != 256) {
    throw std::invalid_argument("APNs key is not an unencrypted PEM P-256 private key (.p8)");
  }
  return key;
}

std::string SignApnsProviderToken(const ApnsKey& key, core::TimePoint now) {
  const auto iat = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  const nlohmann::json header = {{"alg", "ES256"}, {"kid", key.key_id}};
  const nlohmann::json claims = {{"iss", key.team_id}, {"iat", iat}};
  return SignJwt(header, claims, key.private_key.get(), JwtAlgorithm::kEs256);
}

ApnsTokenCache::ApnsTokenCache(ApnsKey key, const core::Clock& clock)
    : key_(std::move(key)), clock_(clock) {}

std::string ApnsTokenCache::Token() {
  const core::TimePoint now = clock_.Now();
  std::lock_guard lock(mutex_);
  if (!cached_ || now - cached_->issued_at >= kRefreshAfter) {
    // Signing takes well under a millisecond: no need to sign outside the lock.
    cached_ = Cached{SignApnsProviderToken(key_, now), now};
  }
  return cached_->token;
}

bool ApnsTokenCache::Invalidate(const std::string& token) {
  const core::TimePoint now = clock_.Now();
  std::lock_guard lock(mutex_);
  if (!cached_ || cached_->token != token || now - cached_->issued_at < kMinRefreshInterval)
    return false;
  cached_.reset();
  return true;
}

}  // namespace chopar::channels::mobile
