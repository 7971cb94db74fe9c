#include "channels/email/ses.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "channels/render.hpp"
#include "core/encoding.hpp"
#include "net/aws_sigv4.hpp"

namespace chopar::channels::email {
namespace {

constexpr std::string_view kSendEmailPath = "/v2/email/outbound-emails";

// The error's type, without the namespace or URL AWS may put around it
// ("MessageRejected:http://internal.amazon.com/…", "com.amazon#Throttling").
std::string ErrorType(const net::HttpResponse& response, const nlohmann::json& body) {
  std::string type = response.Header("x-amzn-errortype").value_or("");
  if (type.empty() && body.is_object() && body.contains("__type") && body["__type"].is_string()) {
    type = body["__type"].get<std::string>();
  }
  if (const auto colon = type.find(':'); colon != std::string::npos) type.erase(colon);
  if (const auto hash = type.rfind('#'); hash != std::string::npos) type.erase(0, hash + 1);
  return type;
}

std::string ErrorMessage(const nlohmann::json& body) {
  if (!body.is_object()) return "";
  for (const char* name : {"message", "Message"}) {
    if (body.contains(name) && body[name].is_string()) {
      return CutCodePoints(body[name].get<std::string>(), 200);
    }
  }
  return "";
}

// Where an endpoint URL's host ends: its path, or the end.
std::string HostOf(std::string_view url) {
  const auto scheme = url.find("://");
  std::string_view rest = scheme == std::string_view::npos ? url : url.substr(scheme + 3);
  return std::string(rest.substr(0, rest.find('/')));
}

}  // namespace

std::string SesSendEmailBody(std::string_view from, std::string_view to, std::string_view mime) {
  const nlohmann::json body = {
      {"FromEmailAddress", from},
      {"Destination", {{"ToAddresses", {to}}}},
      {"Content", {{"Raw", {{"Data", core::Base64Encode(mime)}}}}},
  };
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Outcome SesOutcome(const net::HttpResponse& response, std::chrono::system_clock::time_point now) {
  const nlohmann::json body =
      nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (response.status >= 200 && response.status < 300) {
    if (body.is_object() && body.contains("MessageId") && body["MessageId"].is_string()) {
      return Outcome::Sent(body["MessageId"].get<std::string>());
    }
    return Outcome::Sent();
  }
  const std::string type = ErrorType(response, body);
  std::string detail = "ses " + std::to_string(response.status);
  if (!type.empty()) detail += " " + type;
  if (const std::string message = ErrorMessage(body); !message.empty()) detail += ": " + message;
  std::optional<std::chrono::seconds> wait;
  if (const auto header = response.Header("retry-after")) wait = net::ParseRetryAfter(*header, now);
  if (response.status == 429 || response.status >= 500 || type == "TooManyRequestsException" ||
      type == "LimitExceededException" || type == "Throttling" || type == "ThrottlingException") {
    return Outcome::Retry(detail, wait);
  }
  if (response.status == 403) return Outcome::Permanent(detail + " (check the SES credentials)");
  return Outcome::Permanent(detail);
}

EmailApi SesApi(const EmailSettings& email, SesSettings ses) {
  if (ses.region.empty()) throw std::invalid_argument("ses_region must be set");
  if (ses.access_key_id.empty() || ses.secret_access_key.empty()) {
    throw std::invalid_argument("ses_access_key_id and ses_secret_access_key must be set");
  }
  const std::string endpoint = ApiBaseUrl(
      ses.endpoint.empty() ? "https://email." + ses.region + ".amazonaws.com" : ses.endpoint,
      "ses_endpoint");
  auto request = [ses = std::move(ses), from = email.from,
                  url = endpoint + std::string(kSendEmailPath),
                  host = HostOf(endpoint)](const Message& m, const ComposedEmail& composed) {
    net::SigV4Request signed_part;
    signed_part.method = "POST";
    signed_part.path = std::string(kSendEmailPath);
    signed_part.body = SesSendEmailBody(from, *m.email, composed.mime);
    const std::string amz_date = net::AmzDate(std::chrono::system_clock::now());
    signed_part.headers = {
        {"Content-Type", "application/json"}, {"Host", host}, {"X-Amz-Date", amz_date}};
    if (!ses.session_token.empty()) {
      signed_part.headers.emplace_back("X-Amz-Security-Token", ses.session_token);
    }
    const net::SigV4Signature signature =
        net::SignV4(signed_part, {ses.access_key_id, ses.secret_access_key, ses.session_token},
                    {ses.region, "ses"}, amz_date);
    net::HttpRequest call;
    call.url = url;
    for (const auto& [name, value] : signed_part.headers) {
      // libcurl writes Host itself, from the URL: the same value.
      if (name != "Host") call.headers.push_back(name + ": " + value);
    }
    call.headers.push_back("Authorization: " + signature.authorization);
    call.body = std::move(signed_part.body);
    return call;
  };
  return {"ses", std::move(request), SesOutcome};
}

}  // namespace chopar::channels::email
