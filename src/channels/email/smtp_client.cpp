#include "channels/email/smtp_client.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstring>
#include <thread>

namespace chopar::channels::email {
namespace {

struct Session {
  const SmtpRequest* request = nullptr;
  SmtpResult* result = nullptr;
  net::CurlSlist rcpt;
  std::string mail_from;
  std::size_t uploaded = 0;
  bool command_sent = false;
  long reply_code = 0;  // of the last reply seen in the conversation, QUIT's excepted
  SmtpStage pending = SmtpStage::kGreeting;  // what the next reply answers
};

std::size_t ReadBody(char* buffer, std::size_t size, std::size_t count, void* user) {
  auto* s = static_cast<Session*>(user);
  const std::string& data = s->request->data;
  const std::size_t n = std::min(size * count, data.size() - s->uploaded);
  std::memcpy(buffer, data.data() + s->uploaded, n);
  s->uploaded += n;
  return n;
}

SmtpStage StageOfCommand(std::string_view line, SmtpStage current) {
  std::string verb(line.substr(0, line.find_first_of(" :\r\n")));
  for (auto& c : verb) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (verb == "EHLO" || verb == "HELO") return SmtpStage::kEhlo;
  if (verb == "STARTTLS") return SmtpStage::kStartTls;
  if (verb == "AUTH") return SmtpStage::kAuth;
  if (verb == "MAIL") return SmtpStage::kMailFrom;
  if (verb == "RCPT") return SmtpStage::kRcptTo;
  if (verb == "DATA") return SmtpStage::kData;
  if (verb == "QUIT") return SmtpStage::kQuit;
  return current;  // a SASL continuation line stays in kAuth
}

// Follows the conversation to know which command each reply answers and to
// keep the reply's text for last_error (libcurl exposes only the code).
long ReplyCode(std::string_view line) {
  if (line.size() < 3 || !std::all_of(line.begin(), line.begin() + 3, [](char c) { return c >= '0' && c <= '9'; })) return 0;
  return (line[0] - '0') * 100 + (line[1] - '0') * 10 + (line[2] - '0');
}

int Debug(CURL*, curl_infotype type, char* data, std::size_t size, void* user) {
  auto* s = static_cast<Session*>(user);
  const std::string_view text(data, size);
  switch (type) {
    case CURLINFO_HEADER_OUT:
      s->command_sent = true;
      s->pending = StageOfCommand(text, s->pending);
      break;
    case CURLINFO_DATA_OUT:
      s->pending = SmtpStage::kDataEnd;
      break;
    case CURLINFO_HEADER_IN: {
      std::string_view line = text;
      while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.remove_suffix(1);
      // Of a multi-line reply ("250-..."), the final line ("250 ...") counts.
      if (line.size() >= 4 && line[3] == '-') break;
      const SmtpStage stage = s->command_sent ? s->pending : SmtpStage::kGreeting;
      // libcurl says QUIT when it closes a failed session; that 221 must not
      // hide the reply that failed it.
      if (stage == SmtpStage::kQuit) break;
      s->result->reply_text = std::string(line.substr(0, 300));
      s->result->stage = stage;
      s->reply_code = ReplyCode(line);
      break;
    }
    default:
      break;
  }
  return 0;
}

void Configure(Session& s, CURL* easy) {
  const SmtpRequest& r = *s.request;
  curl_easy_setopt(easy, CURLOPT_URL, r.url.c_str());
  curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
  const bool implicit_tls = r.url.starts_with("smtps://");
  long use_ssl = CURLUSESSL_ALL;
  bool verify = true;
  if (!implicit_tls) {
    switch (r.starttls) {
      case StartTls::kOff: use_ssl = CURLUSESSL_NONE; break;
      case StartTls::kOpportunistic: use_ssl = CURLUSESSL_TRY; verify = false; break;
      case StartTls::kRequired: use_ssl = CURLUSESSL_ALL; break;
    }
  }
  curl_easy_setopt(easy, CURLOPT_USE_SSL, use_ssl);
  curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, verify ? 1L : 0L);
  curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, verify ? 2L : 0L);
  if (!r.ca_file.empty()) curl_easy_setopt(easy, CURLOPT_CAINFO, r.ca_file.c_str());
  if (!r.username.empty()) {
    curl_easy_setopt(easy, CURLOPT_USERNAME, r.username.c_str());
    curl_easy_setopt(easy, CURLOPT_PASSWORD, r.password.c_str());
  }
  s.mail_from = "<" + r.mail_from + ">";
  curl_easy_setopt(easy, CURLOPT_MAIL_FROM, s.mail_from.c_str());
  s.rcpt.reset(curl_slist_append(nullptr, ("<" + r.rcpt_to + ">").c_str()));
  curl_easy_setopt(easy, CURLOPT_MAIL_RCPT, s.rcpt.get());
  curl_easy_setopt(easy, CURLOPT_UPLOAD, 1L);
  curl_easy_setopt(easy, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(r.data.size()));
  curl_easy_setopt(easy, CURLOPT_READFUNCTION, ReadBody);
  curl_easy_setopt(easy, CURLOPT_READDATA, &s);
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(r.timeout.count()));
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(std::min<long long>(r.timeout.count(), 10000)));
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_VERBOSE, 1L);
  curl_easy_setopt(easy, CURLOPT_DEBUGFUNCTION, Debug);
  curl_easy_setopt(easy, CURLOPT_DEBUGDATA, &s);
}

}  // namespace

std::optional<StartTls> ParseStartTls(std::string_view text) {
  if (text == "off") return StartTls::kOff;
  if (text == "opportunistic") return StartTls::kOpportunistic;
  if (text == "required") return StartTls::kRequired;
  return std::nullopt;
}

std::string_view SmtpStageName(SmtpStage stage) {
  switch (stage) {
    case SmtpStage::kConnect: return "connect";
    case SmtpStage::kGreeting: return "greeting";
    case SmtpStage::kEhlo: return "EHLO";
    case SmtpStage::kStartTls: return "STARTTLS";
    case SmtpStage::kAuth: return "AUTH";
    case SmtpStage::kMailFrom: return "MAIL FROM";
    case SmtpStage::kRcptTo: return "RCPT TO";
    case SmtpStage::kData: return "DATA";
    case SmtpStage::kDataEnd: return "end of data";
    case SmtpStage::kQuit: return "QUIT";
  }
  return "";
}

SmtpClient::SmtpClient() { curl_global_init(CURL_GLOBAL_DEFAULT); }
SmtpClient::~SmtpClient() = default;

net::CurlEasy SmtpClient::Borrow() {
  {
    std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      net::CurlEasy easy = std::move(idle_.back());
      idle_.pop_back();
      return easy;
    }
  }
  return net::CurlEasy(curl_easy_init());
}

void SmtpClient::Return(net::CurlEasy easy, std::size_t keep) {
  std::lock_guard lock(mutex_);
  if (idle_.size() < keep) idle_.push_back(std::move(easy));
}

void SmtpClient::SendOne(net::CurlEasy& easy, const SmtpRequest& request, SmtpResult& result) {
  Session s;
  s.request = &request;
  s.result = &result;
  // Options start afresh; the handle's open connection stays for reuse.
  curl_easy_reset(easy.get());
  Configure(s, easy.get());
  result.error = curl_easy_perform(easy.get());
  // CURLINFO_RESPONSE_CODE is the last reply of the connection, which is
  // QUIT's 221 when libcurl closed it after a failure: prefer the reply the
  // conversation failed on.
  curl_easy_getinfo(easy.get(), CURLINFO_RESPONSE_CODE, &result.reply_code);
  if (s.reply_code != 0) result.reply_code = s.reply_code;
  if (result.reply_code == 0) result.stage = s.command_sent ? s.pending : SmtpStage::kConnect;
  result.message_sent = s.pending == SmtpStage::kDataEnd && s.uploaded == request.data.size();
  if (result.error == CURLE_OK) return;
  result.error_message = curl_easy_strerror(result.error);
  // After a timeout libcurl keeps the connection, in the middle of a
  // conversation, and would send QUIT on it and wait for the answer when the
  // handle goes. Cut it: the handle is dropped and its socket already dead.
  curl_socket_t socket = CURL_SOCKET_BAD;
  if (curl_easy_getinfo(easy.get(), CURLINFO_ACTIVESOCKET, &socket) == CURLE_OK && socket != CURL_SOCKET_BAD) {
    ::shutdown(socket, SHUT_RDWR);
  }
  easy.reset(curl_easy_init());
}

std::vector<SmtpResult> SmtpClient::SendAll(std::span<const SmtpRequest> requests, std::size_t max_in_flight) {
  std::vector<SmtpResult> results(requests.size());
  if (requests.empty()) return results;
  const std::size_t lanes = std::clamp<std::size_t>(max_in_flight, 1, requests.size());
  std::atomic<std::size_t> next{0};
  const auto lane = [&] {
    net::CurlEasy easy = Borrow();
    for (std::size_t i = next++; i < requests.size(); i = next++)
      SendOne(easy, requests[i], results[i]);
    Return(std::move(easy), std::max<std::size_t>(1, max_in_flight));
  };
  std::vector<std::jthread> helpers;
  helpers.reserve(lanes - 1);
  for (std::size_t i = 1; i < lanes; ++i) helpers.emplace_back(lane);
  lane();
  helpers.clear();  // joins: every result is written before it is returned
  return results;
}

}  // namespace chopar::channels::email
