#include "channels/email/channel.hpp"

#include <stdexcept>

#include "channels/email/compose.hpp"
#include "channels/outcome_unknown.hpp"

namespace chopar::channels::email {
namespace {

std::string Describe(const SmtpResult& r) {
  std::string text = "smtp";
  if (r.reply_code != 0) {
    text += " " + std::string(SmtpStageName(r.stage)) + ": " +
            (r.reply_text.empty() ? std::to_string(r.reply_code) : r.reply_text);
  }
  if (r.error != CURLE_OK) text += (r.reply_code != 0 ? " (" : ": ") + r.error_message + (r.reply_code != 0 ? ")" : "");
  return text;
}

}  // namespace

Outcome ClassifySmtpResult(const SmtpResult& r, const std::string& message_id) {
  if (r.error == CURLE_OK && r.reply_code >= 200 && r.reply_code < 300) return Outcome::Sent(message_id);
  const bool end_answered = r.stage == SmtpStage::kDataEnd && r.reply_code != 0;
  // The server took the message; what failed afterwards (QUIT) does not matter.
  if (end_answered && r.reply_code >= 200 && r.reply_code < 300) return Outcome::Sent(message_id);
  if (r.error != CURLE_OK && r.message_sent && !end_answered) {
    return OutcomeUnknown("smtp", r.error_message.empty() ? "no reply to the end of data" : r.error_message);
  }
  if (r.error == CURLE_USE_SSL_FAILED) {
    return Outcome::Retry("smtp: STARTTLS is required but the server did not offer it or the upgrade failed");
  }
  if (r.error == CURLE_LOGIN_DENIED) return Outcome::Retry(Describe(r) + " (check the SMTP credentials)");
  if (r.reply_code >= 400 && r.reply_code < 500) return Outcome::Retry(Describe(r));
  if (r.reply_code >= 500 && r.reply_code < 600) {
    switch (r.stage) {
      case SmtpStage::kMailFrom:
      case SmtpStage::kRcptTo:
      case SmtpStage::kData:
      case SmtpStage::kDataEnd:
        return Outcome::Permanent(Describe(r));
      default:
        return Outcome::Retry(Describe(r));
    }
  }
  return Outcome::Retry(Describe(r));
}

EmailChannel::EmailChannel(EmailSettings settings, const core::Clock& clock)
    : settings_(std::move(settings)), clock_(clock) {
  const auto from = ParseMailbox(settings_.from);
  if (!from) throw std::invalid_argument("channels.email: from is not an email address: " + settings_.from);
  from_ = *from;
  std::string url = settings_.smtp_url;
  if (!url.starts_with("smtp://") && !url.starts_with("smtps://")) {
    throw std::invalid_argument("channels.email: smtp_url must start with smtp:// or smtps://");
  }
  std::optional<StartTls> starttls = settings_.starttls;
  if (const auto query = url.find('?'); query != std::string::npos) {
    const std::string params = url.substr(query + 1);
    url.erase(query);
    if (!params.starts_with("starttls=") || params.find('&') != std::string::npos) {
      throw std::invalid_argument("channels.email: smtp_url accepts only ?starttls=off|opportunistic|required");
    }
    starttls = ParseStartTls(params.substr(9));
    if (!starttls) throw std::invalid_argument("channels.email: starttls must be off, opportunistic or required");
  }
  curl_url_ = url;
  starttls_ = starttls.value_or(settings_.username.empty() ? StartTls::kOpportunistic : StartTls::kRequired);
  // Opportunistic STARTTLS logs in anyway when the server (or a man in the
  // middle stripping its STARTTLS offer) offers none: the password would go
  // in clear text without anyone being told.
  if (starttls_ == StartTls::kOpportunistic && !settings_.username.empty() &&
      url.starts_with("smtp://")) {
    throw std::invalid_argument(
        "channels.email: starttls = opportunistic with a username would send the password in clear "
        "text to a server that offers no STARTTLS; use required (or off, knowingly)");
  }
}

std::vector<Outcome> EmailChannel::Send(std::span<const Message> messages) {
  std::vector<Outcome> outcomes(messages.size());
  std::vector<SmtpRequest> requests;
  std::vector<std::size_t> request_of;  // index into messages
  std::vector<std::string> message_ids;
  requests.reserve(messages.size());
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const Message& m = messages[i];
    auto email = ComposeEmail(m, from_, settings_, clock_.Now());
    if (!email) {
      outcomes[i] = Outcome::Permanent("smtp: no usable email address");
      continue;
    }
    SmtpRequest request;
    request.url = curl_url_;
    request.starttls = starttls_;
    request.ca_file = settings_.ca_file;
    request.username = settings_.username;
    request.password = settings_.password;
    request.mail_from = from_.address;
    request.rcpt_to = *m.email;
    request.data = std::move(email->mime);
    request.timeout = settings_.timeout;
    requests.push_back(std::move(request));
    request_of.push_back(i);
    message_ids.push_back(std::move(email->message_id));
  }
  const auto results = client_.SendAll(requests, settings_.max_in_flight);
  for (std::size_t k = 0; k < results.size(); ++k) {
    outcomes[request_of[k]] = ClassifySmtpResult(results[k], message_ids[k]);
  }
  return outcomes;
}

}  // namespace chopar::channels::email
