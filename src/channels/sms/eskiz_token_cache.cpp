#include "channels/sms/eskiz_token_cache.hpp"

#include <nlohmann/json.hpp>

#include "channels/sms/eskiz_form.hpp"
#include "channels/sms/queries.hpp"
#include "core/json.hpp"
#include "core/time_format.hpp"

namespace chopar::channels::sms {

EskizTokenCache::EskizTokenCache(const EskizSettings& settings, net::HttpClient& http,
                                 db::Pool& pool, const core::Clock& clock)
    : settings_(settings), http_(http), pool_(pool), clock_(clock) {}

int EskizTokenCache::logins() const {
  std::lock_guard lock(mutex_);
  return logins_;
}

std::optional<std::string> EskizTokenCache::LoadLocked() {
  auto conn = pool_.Acquire();
  const auto rows = conn->Exec(queries::kEskizTokenLoad);
  if (rows.Empty()) return std::nullopt;
  return rows.String(0, 0);
}

EskizTokenCache::Result EskizTokenCache::Current() {
  std::lock_guard lock(mutex_);
  if (token_) return {token_, ""};
  token_ = LoadLocked();
  if (token_) return {token_, ""};
  return LoginLocked();
}

EskizTokenCache::Result EskizTokenCache::Refresh(const std::string& rejected) {
  std::lock_guard lock(mutex_);
  if (token_ && *token_ != rejected) return {token_, ""};
  if (auto stored = LoadLocked(); stored && *stored != rejected) {
    token_ = std::move(stored);
    return {token_, ""};
  }
  return LoginLocked();
}

EskizTokenCache::Result EskizTokenCache::LoginLocked() {
  const FormField fields[] = {{"email", settings_.email}, {"password", settings_.password}};
  const MultipartForm form = BuildMultipartForm(fields);
  net::HttpRequest request;
  request.method = "POST";
  request.url = settings_.base_url + "/api/auth/login";
  request.headers = {"Content-Type: " + form.content_type, "Accept: application/json", "Expect:"};
  request.body = form.body;
  request.timeout = settings_.timeout;
  ++logins_;
  const net::HttpResponse response = http_.Perform(request);
  if (response.status == 0) return {std::nullopt, "eskiz login: " + response.error_message};
  if (!response.ok()) {
    std::string reason = "eskiz login: HTTP " + std::to_string(response.status);
    if (response.status == 401) reason += " (check channels.sms email and password)";
    return {std::nullopt, reason};
  }
  const auto body = core::ParseJsonOrDiscarded(response.body);
  if (body.is_discarded() || !body.contains("data") || !body["data"].is_object() ||
      !body["data"].contains("token") || !body["data"]["token"].is_string() ||
      body["data"]["token"].get<std::string>().empty()) {
    return {std::nullopt, "eskiz login: no token in the answer"};
  }
  token_ = body["data"]["token"].get<std::string>();
  auto conn = pool_.Acquire();
  conn->Exec(queries::kEskizTokenStore, *token_, core::FormatRfc3339(clock_.Now()));
  return {token_, ""};
}

}  // namespace chopar::channels::sms
