#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "channels/channel.hpp"
#include "channels/email/message.hpp"
#include "channels/email/settings.hpp"
#include "channels/email/smtp_client.hpp"
#include "core/clock.hpp"

namespace chopar::channels::email {

// Sends email over SMTP with libcurl (see SmtpClient): one session per
// message, all of a batch concurrently (up to max_in_flight), connections
// reused across batches. The message is RenderEmail's content in a
// multipart/alternative MIME message (see email/message.hpp); its Message-ID
// is the provider message id.
//
// Outcomes: 250 at the end of DATA → Sent. A 4xx reply → Retry. A 5xx reply
// to MAIL FROM, RCPT TO, DATA or the end of data → Permanent, with the reply
// in the reason. A 5xx to the greeting, EHLO or AUTH, a refused login, a
// required STARTTLS the server does not offer, connection failures, dropped
// connections and timeouts → Retry: they say nothing about this message (a
// connection lost after the data was sent may deliver twice: SMTP cannot
// tell). A message without a usable recipient address → Permanent.
//
// Throws std::invalid_argument from the constructor for a bad `from` or
// smtp_url. Thread-safe: Send may run on several threads at once.
class EmailChannel final : public Channel {
 public:
  EmailChannel(EmailSettings settings, const core::Clock& clock);

  std::vector<Outcome> Send(std::span<const Message> messages) override;
  [[nodiscard]] std::string_view ProviderName() const override { return "smtp"; }

  // The URL libcurl gets and the STARTTLS policy in force (after the URL's
  // query and the defaults are applied).
  [[nodiscard]] const std::string& curl_url() const { return curl_url_; }
  [[nodiscard]] StartTls starttls() const { return starttls_; }

 private:
  EmailSettings settings_;
  const core::Clock& clock_;
  Mailbox from_;
  std::string curl_url_;
  StartTls starttls_ = StartTls::kOpportunistic;
  SmtpClient client_;
};

// What an SMTP result means for the delivery; `message_id` becomes the
// provider message id when sent. A session that failed after the whole
// message was sent, with no reply to its end, is OutcomeUnknown (never
// retried: the server may have queued it). Pure.
Outcome ClassifySmtpResult(const SmtpResult& result, const std::string& message_id);

}  // namespace chopar::channels::email
