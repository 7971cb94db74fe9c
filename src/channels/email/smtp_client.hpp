#pragma once

#include <curl/curl.h>

#include <chrono>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "channels/email/settings.hpp"
#include "net/http_client.hpp"

namespace chopar::channels::email {


// One message to submit: the envelope and the RFC 5322 data.
struct SmtpRequest {
  std::string url;  // smtp://host[:port][/ehlo-name] or smtps://...
  StartTls starttls = StartTls::kOpportunistic;  // ignored for smtps:// (always verified TLS)
  std::string username;  // AUTH when not empty
  std::string password;
  std::string mail_from;  // plain address
  std::string rcpt_to;    // plain address
  std::string data;       // CRLF lines; libcurl dot-stuffs and ends it
  std::chrono::milliseconds timeout{30000};
  std::string ca_file;    // CA bundle for verification; empty: the system's
};

// The SMTP command the last server reply answered.
enum class SmtpStage { kConnect, kGreeting, kEhlo, kStartTls, kAuth, kMailFrom, kRcptTo, kData, kDataEnd, kQuit };
std::string_view SmtpStageName(SmtpStage stage);

struct SmtpResult {
  CURLcode error = CURLE_OK;
  std::string error_message;  // libcurl's, empty when error is CURLE_OK
  // The last SMTP reply code (CURLINFO_RESPONSE_CODE); 0 when none came.
  long reply_code = 0;
  std::string reply_text;  // that reply's last line, e.g. "550 5.1.1 No such user"
  SmtpStage stage = SmtpStage::kConnect;  // what that reply answered
  // The whole message was handed to the connection, so its final "." may
  // have reached the server: with no reply to it, the outcome is unknown.
  bool message_sent = false;
};

// Submits messages with libcurl: up to `max_in_flight` SMTP sessions at once,
// connections kept open and reused across calls.
//
// Why threads and not libcurl's multi interface: libcurl (7.88 here, and
// later releases alike) waits for the reply to the end of DATA inside its
// "done" phase with a blocking loop, even under curl_multi_perform (curl
// issue #8555, a documented known issue). One multi loop would therefore
// send one message at a time. So each in-flight session runs on its own
// lane: the calling thread plus up to max_in_flight - 1 helper threads
// started for the call, each with an easy handle borrowed from a pool (the
// handle's connection is what gets reused by the next message or call).
// A handle whose transfer failed is not reused: its socket is shut down so
// nothing waits on a half-finished conversation.
//
// Thread-safe.
class SmtpClient {
 public:
  SmtpClient();
  ~SmtpClient();
  SmtpClient(const SmtpClient&) = delete;
  SmtpClient& operator=(const SmtpClient&) = delete;

  // One result per request, in order; returns when all are done. Never
  // throws for network or SMTP failures (they are in the results).
  std::vector<SmtpResult> SendAll(std::span<const SmtpRequest> requests, std::size_t max_in_flight);

 private:
  net::CurlEasy Borrow();
  void Return(net::CurlEasy easy, std::size_t keep);
  static void SendOne(net::CurlEasy& easy, const SmtpRequest& request, SmtpResult& result);

  std::mutex mutex_;
  std::vector<net::CurlEasy> idle_;  // each may hold an open connection
};

}  // namespace chopar::channels::email
