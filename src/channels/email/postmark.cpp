#include "channels/email/postmark.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "channels/render.hpp"

namespace chopar::channels::email {

Outcome PostmarkOutcome(const net::HttpResponse& response,
                        std::chrono::system_clock::time_point now) {
  const nlohmann::json body =
      nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  const long long code = body.is_object() ? body.value("ErrorCode", -1LL) : -1;
  if (response.status >= 200 && response.status < 300 && code <= 0) {
    const std::string id = body.is_object() ? body.value("MessageID", std::string()) : "";
    return id.empty() ? Outcome::Sent() : Outcome::Sent(id);
  }
  std::string detail = "postmark " + std::to_string(response.status);
  if (code > 0) detail += " code " + std::to_string(code);
  const std::string message =
      body.is_object() ? body.value("Message", std::string()) : CutCodePoints(response.body, 200);
  if (!message.empty()) detail += ": " + CutCodePoints(message, 200);
  if (auto busy = BusyOutcome(response, detail, now)) return std::move(*busy);
  if (response.status == 401 || code == 10) {
    return Outcome::Permanent(detail + " (check the Postmark token)");
  }
  return Outcome::Permanent(detail);
}

EmailApi PostmarkApi(const EmailSettings& email, PostmarkSettings postmark) {
  if (postmark.server_token.empty()) {
    throw std::invalid_argument("postmark_server_token must be set");
  }
  if (postmark.message_stream.empty()) {
    throw std::invalid_argument("postmark_message_stream must name a stream (\"outbound\")");
  }
  if (!ParseMailbox(email.from)) {
    throw std::invalid_argument("from is not an email address: " + email.from);
  }
  const std::string url = ApiBaseUrl(postmark.base_url, "postmark_base_url") + "/email";
  auto request = [url, postmark = std::move(postmark), from = email.from,
                  one_click = email.one_click_unsubscribe](const Message& m,
                                                           const ComposedEmail& composed) {
    nlohmann::json headers = nlohmann::json::array();
    if (!composed.content.unsubscribe_url.empty()) {
      headers.push_back(
          {{"Name", "List-Unsubscribe"}, {"Value", "<" + composed.content.unsubscribe_url + ">"}});
      if (one_click) {
        headers.push_back(
            {{"Name", "List-Unsubscribe-Post"}, {"Value", "List-Unsubscribe=One-Click"}});
      }
    }
    const nlohmann::json body = {
        // The configured text as given, unless a tenant's sender name replaces its name.
        {"From", m.branding && m.branding->sender_name ? FormatMailbox(composed.from) : from},
        {"To", *m.email},
        {"Subject", composed.content.subject},
        {"TextBody", composed.content.text},
        {"HtmlBody", composed.content.html},
        {"Headers", headers},
        {"MessageStream", postmark.message_stream},
        {"Metadata", {{"chopar_delivery_id", std::to_string(m.delivery_id)}}},
    };
    net::HttpRequest call;
    call.url = url;
    call.headers = {"Accept: application/json", "Content-Type: application/json",
                    "X-Postmark-Server-Token: " + postmark.server_token};
    call.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return call;
  };
  return {"postmark", std::move(request), PostmarkOutcome};
}

}  // namespace chopar::channels::email
