#include "channels/email/ses.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "channels/email/compose.hpp"
#include "channels/outcome_unknown.hpp"
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

SesChannel::SesChannel(EmailSettings email, SesSettings ses, net::HttpClient& http,
                       const core::Clock& clock)
    : email_(std::move(email)),
      ses_(std::move(ses)),
      http_(http),
      clock_(clock),
      in_flight_(std::max<std::size_t>(1, email_.max_in_flight)) {
  const auto from = ParseMailbox(email_.from);
  if (!from) throw std::invalid_argument("from is not an email address: " + email_.from);
  from_ = *from;
  if (ses_.region.empty()) throw std::invalid_argument("ses_region must be set");
  if (ses_.access_key_id.empty() || ses_.secret_access_key.empty()) {
    throw std::invalid_argument("ses_access_key_id and ses_secret_access_key must be set");
  }
  std::string endpoint =
      ses_.endpoint.empty() ? "https://email." + ses_.region + ".amazonaws.com" : ses_.endpoint;
  while (endpoint.ends_with('/')) endpoint.pop_back();
  if (!endpoint.starts_with("https://") && !endpoint.starts_with("http://")) {
    throw std::invalid_argument("ses_endpoint must be an http(s) URL, not \"" + endpoint + "\"");
  }
  url_ = endpoint + std::string(kSendEmailPath);
  host_ = HostOf(endpoint);
}

std::vector<Outcome> SesChannel::Send(std::span<const Message> messages) {
  std::vector<Outcome> outcomes(messages.size());
  std::vector<net::HttpRequest> requests;
  std::vector<std::size_t> message_of;
  const net::AwsCredentials credentials{ses_.access_key_id, ses_.secret_access_key,
                                        ses_.session_token};
  const net::AwsScope scope{ses_.region, "ses"};
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const Message& m = messages[i];
    const auto email = ComposeEmail(m, from_, email_, clock_.Now());
    if (!email) {
      outcomes[i] = Outcome::Permanent("ses: no usable email address");
      continue;
    }
    net::SigV4Request signed_part;
    signed_part.method = "POST";
    signed_part.path = std::string(kSendEmailPath);
    signed_part.body = SesSendEmailBody(email_.from, *m.email, email->mime);
    const std::string amz_date = net::AmzDate(std::chrono::system_clock::now());
    signed_part.headers = {
        {"Content-Type", "application/json"}, {"Host", host_}, {"X-Amz-Date", amz_date}};
    if (!ses_.session_token.empty()) {
      signed_part.headers.emplace_back("X-Amz-Security-Token", ses_.session_token);
    }
    const net::SigV4Signature signature = net::SignV4(signed_part, credentials, scope, amz_date);
    net::HttpRequest request;
    request.url = url_;
    for (const auto& [name, value] : signed_part.headers) {
      if (name != "Host") request.headers.push_back(name + ": " + value);
    }
    request.headers.push_back("Authorization: " + signature.authorization);
    AddDeliveryHeaders(request.headers, m.delivery_id);
    request.body = std::move(signed_part.body);
    request.timeout = email_.timeout;
    request.start_by = std::chrono::steady_clock::now() + email_.timeout;
    requests.push_back(std::move(request));
    message_of.push_back(i);
  }
  const std::vector<net::HttpResponse> responses = http_.PerformAll(requests, &in_flight_);
  const auto answered_at = std::chrono::system_clock::now();
  for (std::size_t j = 0; j < responses.size(); ++j) {
    const std::size_t i = message_of[j];
    if (auto unanswered = UnansweredHttpOutcome(responses[j], "ses")) {
      outcomes[i] = std::move(*unanswered);
      continue;
    }
    outcomes[i] = SesOutcome(responses[j], answered_at);
  }
  return outcomes;
}

}  // namespace chopar::channels::email
