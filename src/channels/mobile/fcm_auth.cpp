#include "channels/mobile/fcm_auth.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "channels/mobile/jwt.hpp"
#include "channels/mobile/pem_key.hpp"
#include "core/json.hpp"
#include "core/text.hpp"

namespace chopar::channels::mobile {
namespace {

// grant_type percent-encoded once here; the assertion needs no escaping (base64url and '.').
constexpr std::string_view kGrantPrefix =
    "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=";
// Of an error description quoted into FcmTokenResult::error.
constexpr std::size_t kMaxQuoted = 200;
// Google's tokens live an hour; no answer is trusted for more than a day.
constexpr std::chrono::seconds kLongestLifetime = std::chrono::hours(24);

std::string StringField(const nlohmann::json& key, const char* name) {
  const auto it = key.find(name);
  if (it == key.end() || !it->is_string() || it->get_ref<const std::string&>().empty()) {
    throw std::invalid_argument(std::string("service account key: \"") + name +
                                "\" must be a non-empty string");
  }
  return it->get<std::string>();
}

// Plain http is for fakes on this host only: the assertion is a credential
// for an hour.
bool AcceptableTokenUri(std::string_view uri) {
  return core::StartsWithIgnoringCase(uri, "https://") ||
         core::StartsWithIgnoringCase(uri, "http://127.0.0.1:") ||
         core::StartsWithIgnoringCase(uri, "http://localhost:");
}

std::int64_t UnixSeconds(core::TimePoint t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

std::string Quoted(const nlohmann::json& body, const char* name) {
  const auto it = body.find(name);
  if (it == body.end() || !it->is_string()) return {};
  return it->get<std::string>().substr(0, kMaxQuoted);
}

FcmTokenResult Failure(std::string error, const net::HttpResponse& response, core::TimePoint now) {
  FcmTokenResult result{std::nullopt, std::move(error), std::nullopt};
  if (const auto value = response.Header("retry-after"))
    result.retry_after = net::ParseRetryAfter(*value, now);
  return result;
}

}  // namespace

ServiceAccountKey ParseServiceAccountKey(std::string_view json) {
  const nlohmann::json parsed = core::ParseJsonOrDiscarded(json);
  // The parser's own message quotes the text near the fault: maybe the key.
  if (parsed.is_discarded() || !parsed.is_object()) {
    throw std::invalid_argument("service account key: not a JSON object");
  }
  if (StringField(parsed, "type") != "service_account") {
    throw std::invalid_argument("service account key: \"type\" must be \"service_account\"");
  }
  ServiceAccountKey key;
  key.project_id = StringField(parsed, "project_id");
  key.client_email = StringField(parsed, "client_email");
  key.token_uri = StringField(parsed, "token_uri");
  if (!AcceptableTokenUri(key.token_uri)) {
    throw std::invalid_argument("service account key: \"token_uri\" must be an https:// URL");
  }
  key.private_key = PrivateKeyFromPem(StringField(parsed, "private_key"));
  if (!key.private_key || EVP_PKEY_is_a(key.private_key.get(), "RSA") != 1) {
    throw std::invalid_argument(
        "service account key: \"private_key\" is not an unencrypted PEM RSA private key");
  }
  return key;
}

std::string SignFcmAssertion(const ServiceAccountKey& key, core::TimePoint now) {
  const std::int64_t iat = UnixSeconds(now);
  const nlohmann::json header = {{"alg", "RS256"}, {"typ", "JWT"}};
  const nlohmann::json claims = {{"iss", key.client_email},
                                 {"scope", kFcmScope},
                                 {"aud", key.token_uri},
                                 {"iat", iat},
                                 {"exp", iat + kFcmAssertionLifetime.count()}};
  return SignJwt(header, claims, key.private_key.get(), JwtAlgorithm::kRs256);
}

FcmTokenSource::FcmTokenSource(ServiceAccountKey key, net::HttpClient& http,
                               const core::Clock& clock)
    : key_(std::move(key)), http_(http), clock_(clock) {}

std::optional<std::string> FcmTokenSource::Fresh() const {
  if (cached_ && clock_.Now() < cached_->refresh_at) return cached_->token;
  return std::nullopt;
}

FcmTokenResult FcmTokenSource::Get() {
  {
    std::lock_guard lock(mutex_);
    if (auto token = Fresh()) return {std::move(token), {}, {}};
  }
  std::lock_guard fetching(fetch_mutex_);
  {
    // Another caller may have fetched one while this one waited.
    std::lock_guard lock(mutex_);
    if (auto token = Fresh()) return {std::move(token), {}, {}};
  }
  return Fetch();
}

void FcmTokenSource::Invalidate(const std::string& access_token) {
  std::lock_guard lock(mutex_);
  if (cached_ && cached_->token == access_token) cached_.reset();
}

FcmTokenResult FcmTokenSource::Fetch() {
  const core::TimePoint now = clock_.Now();
  net::HttpRequest request;
  request.method = "POST";
  request.url = key_.token_uri;
  request.headers = {"Content-Type: application/x-www-form-urlencoded", "Accept: application/json"};
  request.body = std::string(kGrantPrefix) + SignFcmAssertion(key_, now);
  const net::HttpResponse response = http_.Perform(request);

  if (response.status == 0)
    return Failure("token endpoint: " + response.error_message, response, now);
  const nlohmann::json body = core::ParseJsonOrDiscarded(response.body);
  if (!response.ok()) {
    std::string error = "token endpoint: HTTP " + std::to_string(response.status);
    if (body.is_object()) {
      const std::string code = Quoted(body, "error");
      const std::string description = Quoted(body, "error_description");
      if (!code.empty()) error += " " + code;
      if (!description.empty()) error += ": " + description;
    }
    return Failure(std::move(error), response, now);
  }
  if (!body.is_object())
    return Failure("token endpoint: the answer is not a JSON object", response, now);
  const auto token = body.find("access_token");
  const auto expires_in = body.find("expires_in");
  const auto type = body.find("token_type");
  if (token == body.end() || !token->is_string() || token->get_ref<const std::string&>().empty()) {
    return Failure("token endpoint: no access_token in the answer", response, now);
  }
  if (expires_in == body.end() || !expires_in->is_number_integer() ||
      expires_in->get<std::int64_t>() <= 0) {
    return Failure("token endpoint: no positive expires_in in the answer", response, now);
  }
  if (type != body.end() &&
      (!type->is_string() || !core::EqualsIgnoringCase(type->get<std::string>(), "Bearer"))) {
    return Failure("token endpoint: token_type is not Bearer", response, now);
  }
  // Bounded so that a silly answer cannot overflow the time point.
  const std::chrono::seconds lifetime(
      std::min<std::int64_t>(expires_in->get<std::int64_t>(), kLongestLifetime.count()));
  std::string access_token = token->get<std::string>();
  {
    std::lock_guard lock(mutex_);
    // A token that lives less than kRefreshBefore is used once, not cached.
    cached_ = Cached{access_token, now + lifetime - kRefreshBefore};
  }
  return {std::move(access_token), {}, {}};
}

}  // namespace chopar::channels::mobile
