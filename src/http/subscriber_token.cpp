#include "http/subscriber_token.hpp"

#include <charconv>
#include <stdexcept>

#include "core/encoding.hpp"

namespace chopar::http {
namespace {

std::string Signature(std::string_view secret, std::string_view decimal_user) {
  return core::Base64UrlEncode(core::HmacSha256(secret, decimal_user));
}

// Only the canonical form: digits, no sign, no leading zero, fits int64, > 0.
// Anything else would let several strings name one user.
std::optional<std::int64_t> ParseCanonicalId(std::string_view text) {
  if (text.empty() || text.front() == '0') return std::nullopt;
  std::int64_t value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value <= 0) return std::nullopt;
  return value;
}

}  // namespace

std::string MakeSubscriberToken(std::string_view secret, std::int64_t user_id) {
  if (secret.empty()) throw std::invalid_argument("the inbox secret is empty");
  if (user_id <= 0) throw std::invalid_argument("user id must be positive");
  const std::string decimal = std::to_string(user_id);
  return decimal + "." + Signature(secret, decimal);
}

std::optional<std::int64_t> VerifySubscriberToken(std::string_view secret, std::string_view token) {
  if (secret.empty()) return std::nullopt;
  const auto dot = token.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const std::string_view decimal = token.substr(0, dot);
  const auto user_id = ParseCanonicalId(decimal);
  if (!user_id) return std::nullopt;
  if (!core::ConstantTimeEquals(token.substr(dot + 1), Signature(secret, decimal))) {
    return std::nullopt;
  }
  return user_id;
}

}  // namespace chopar::http
