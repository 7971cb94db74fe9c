#include "http/subscriber_token.hpp"

#include <charconv>
#include <chrono>
#include <stdexcept>
#include <vector>

#include "core/encoding.hpp"
#include "core/key_derivation.hpp"

namespace chopar::http {
namespace {

constexpr std::string_view kV2Prefix = "v2.";

std::string Sign(std::string_view key, std::string_view message) {
  return core::Base64UrlEncode(core::HmacSha256(key, message));
}

// Only the canonical form: digits, no sign, no leading zero (but "0" itself
// when `allow_zero`), fits int64. Anything else would let several strings
// name one token.
std::optional<std::int64_t> ParseCanonical(std::string_view text, bool allow_zero) {
  if (text.empty() || (text.front() == '0' && !(allow_zero && text == "0"))) return std::nullopt;
  std::int64_t value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < 0) return std::nullopt;
  if (value == 0 && !allow_zero) return std::nullopt;
  return value;
}

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (;;) {
    const auto at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

VerifiedToken VerifyV2(std::string_view secret, std::string_view token, const TokenCheck& check) {
  VerifiedToken result;
  const auto parts = Split(token.substr(kV2Prefix.size()), '.');
  if (parts.size() != 4) return result;
  const auto user = ParseCanonical(parts[0], false);
  const auto generation = ParseCanonical(parts[1], true);
  const auto expires = ParseCanonical(parts[2], false);
  if (!user || !generation || !expires) return result;
  const std::string_view signed_part = token.substr(0, token.size() - parts[3].size() - 1);
  const std::string key = core::DeriveKey(secret, core::KeyUse::kSubscriberTokens);
  if (!core::ConstantTimeEquals(parts[3], Sign(key, signed_part))) return result;
  result.user_id = *user;
  result.generation = *generation;
  result.outcome = check.now >= *expires ? VerifiedToken::Outcome::kExpired
                                         : VerifiedToken::Outcome::kValid;
  return result;
}

VerifiedToken VerifyV1(std::string_view secret, std::string_view token, const TokenCheck& check) {
  VerifiedToken result;
  const auto dot = token.find('.');
  if (dot == std::string_view::npos) return result;
  const std::string_view decimal = token.substr(0, dot);
  const auto user = ParseCanonical(decimal, false);
  if (!user || !core::ConstantTimeEquals(token.substr(dot + 1), Sign(secret, decimal))) {
    return result;
  }
  result.user_id = *user;
  result.outcome = check.v1_until && check.now < *check.v1_until
                       ? VerifiedToken::Outcome::kValid
                       : VerifiedToken::Outcome::kV1Retired;
  return result;
}

}  // namespace

std::string MakeSubscriberToken(std::string_view secret, std::int64_t user_id,
                                std::int64_t generation, std::int64_t expires_at) {
  if (secret.empty()) throw std::invalid_argument("the inbox secret is empty");
  if (user_id <= 0) throw std::invalid_argument("user id must be positive");
  if (generation < 0) throw std::invalid_argument("token generation must not be negative");
  if (expires_at <= 0) throw std::invalid_argument("token expiry must be positive");
  const std::string claims = std::string(kV2Prefix) + std::to_string(user_id) + "." +
                             std::to_string(generation) + "." + std::to_string(expires_at);
  return claims + "." + Sign(core::DeriveKey(secret, core::KeyUse::kSubscriberTokens), claims);
}

VerifiedToken VerifySubscriberToken(std::string_view secret, std::string_view token,
                                    const TokenCheck& check) {
  if (secret.empty()) return {};
  if (token.starts_with(kV2Prefix)) return VerifyV2(secret, token, check);
  return VerifyV1(secret, token, check);
}

std::optional<std::int64_t> V1TokenCutoff(std::string_view date) {
  if (date.empty()) return std::nullopt;
  const auto fail = [&] {
    return std::invalid_argument("must be a date YYYY-MM-DD or \"\", not \"" + std::string(date) +
                                 "\"");
  };
  if (date.size() != 10 || date[4] != '-' || date[7] != '-') throw fail();
  const auto number = [&](std::size_t from, std::size_t length) {
    int value = 0;
    const auto* begin = date.data() + from;
    const auto [ptr, ec] = std::from_chars(begin, begin + length, value);
    if (ec != std::errc() || ptr != begin + length) throw fail();
    return value;
  };
  const std::chrono::year_month_day day{std::chrono::year{number(0, 4)},
                                        std::chrono::month{static_cast<unsigned>(number(5, 2))},
                                        std::chrono::day{static_cast<unsigned>(number(8, 2))}};
  if (!day.ok()) throw fail();
  const std::chrono::sys_days next = std::chrono::sys_days{day} + std::chrono::days{1};
  return std::chrono::duration_cast<std::chrono::seconds>(next.time_since_epoch()).count();
}

}  // namespace chopar::http
