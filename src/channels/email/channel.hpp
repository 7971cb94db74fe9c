#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "channels/channel.hpp"
#include "channels/email/message.hpp"
#include "channels/email/smtp_client.hpp"
#include "core/clock.hpp"

namespace chopar::channels::email {

struct EmailSettings {
  // smtp://host[:port][/ehlo-name] or smtps://host[:port] (implicit TLS,
  // always verified). A query "?starttls=off|opportunistic|required" on the
  // URL overrides `starttls`; it is removed before libcurl sees the URL.
  std::string smtp_url = "smtp://127.0.0.1:25";
  // STARTTLS on smtp://. nullopt: kRequired when a username is set (never
  // send a password in the clear), kOpportunistic otherwise. kRequired
  // verifies the server certificate and sends nothing when the server does
  // not offer STARTTLS; kOpportunistic encrypts when offered, unverified
  // (RFC 7435: it only ever replaces plaintext).
  std::optional<StartTls> starttls;
  std::string ca_file;  // CA bundle for verification; empty: the system's
  std::string username;  // AUTH when not empty
  std::string password;
  std::string from = "chopar <noreply@example.com>";  // "Name <address>" or an address
  std::string public_url = "http://127.0.0.1:8080";   // [server] public_url: absolute links
  std::chrono::milliseconds timeout{30000};           // whole SMTP session of one message
  std::size_t max_in_flight = 64;                     // SMTP sessions at once per Send call
  // Signs each message's List-Unsubscribe URL (the inbox secret; see
  // channels/unsubscribe.hpp).
  std::string unsubscribe_secret;
  // Add List-Unsubscribe-Post (RFC 8058). Only when the unsubscribe URL
  // really unsubscribes on a POST of "List-Unsubscribe=One-Click" (chopar's
  // own does, when the API runs with the same inbox secret).
  bool one_click_unsubscribe = false;
};

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
