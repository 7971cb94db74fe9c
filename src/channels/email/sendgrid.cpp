#include "channels/email/sendgrid.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "channels/render.hpp"

namespace chopar::channels::email {
namespace {

// SendGrid's errors: {"errors": [{"message": …, "field": …}]}.
std::string FirstError(const net::HttpResponse& response) {
  const nlohmann::json body =
      nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_object() && body.contains("errors") && body["errors"].is_array() &&
      !body["errors"].empty() && body["errors"][0].is_object()) {
    const nlohmann::json& error = body["errors"][0];
    std::string text = error.value("message", std::string());
    if (error.contains("field") && error["field"].is_string()) {
      text += " (" + error["field"].get<std::string>() + ")";
    }
    return CutCodePoints(text, 200);
  }
  return CutCodePoints(response.body, 200);
}

}  // namespace

Outcome SendGridOutcome(const net::HttpResponse& response,
                        std::chrono::system_clock::time_point now) {
  if (response.status >= 200 && response.status < 300) {
    const auto id = response.Header("x-message-id");
    return id && !id->empty() ? Outcome::Sent(*id) : Outcome::Sent();
  }
  std::string detail = "sendgrid " + std::to_string(response.status);
  if (const std::string error = FirstError(response); !error.empty()) detail += ": " + error;
  if (auto busy = BusyOutcome(response, detail, now)) return std::move(*busy);
  if (response.status == 401 || response.status == 403) {
    return Outcome::Permanent(detail + " (check the SendGrid key and the sender identity)");
  }
  return Outcome::Permanent(detail);
}

EmailApi SendGridApi(const EmailSettings& email, SendGridSettings sendgrid) {
  if (sendgrid.api_key.empty()) throw std::invalid_argument("sendgrid_api_key must be set");
  const auto from = ParseMailbox(email.from);
  if (!from) throw std::invalid_argument("from is not an email address: " + email.from);
  const std::string url = ApiBaseUrl(sendgrid.base_url, "sendgrid_base_url") + "/v3/mail/send";
  nlohmann::json sender = {{"email", from->address}};
  if (!from->display_name.empty()) sender["name"] = from->display_name;
  auto request = [url, key = std::move(sendgrid.api_key), sender,
                  one_click = email.one_click_unsubscribe](const Message& m,
                                                           const ComposedEmail& composed) {
    nlohmann::json headers = nlohmann::json::object();
    if (!composed.content.unsubscribe_url.empty()) {
      headers["List-Unsubscribe"] = "<" + composed.content.unsubscribe_url + ">";
      if (one_click) headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click";
    }
    nlohmann::json to = nlohmann::json::object();
    to["email"] = *m.email;
    nlohmann::json personalization = nlohmann::json::object();
    personalization["to"] = nlohmann::json::array({to});
    nlohmann::json text = {{"type", "text/plain"}, {"value", composed.content.text}};
    nlohmann::json html = {{"type", "text/html"}, {"value", composed.content.html}};
    nlohmann::json body = nlohmann::json::object();
    body["personalizations"] = nlohmann::json::array({personalization});
    body["from"] = sender;
    if (m.branding && m.branding->sender_name) body["from"]["name"] = composed.from.display_name;
    body["subject"] = composed.content.subject;
    body["content"] = nlohmann::json::array({text, html});
    body["custom_args"] = {{"chopar_delivery_id", std::to_string(m.delivery_id)}};
    if (!headers.empty()) body["headers"] = headers;
    net::HttpRequest call;
    call.url = url;
    call.headers = {"Content-Type: application/json", "Authorization: Bearer " + key};
    call.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return call;
  };
  return {"sendgrid", std::move(request), SendGridOutcome};
}

}  // namespace chopar::channels::email
