#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace chopar::channels::sms {

// [channels.sms] with provider "eskiz" (API.md), plus what the service knows.
struct EskizSettings {
  std::string base_url = "https://notify.eskiz.uz";  // no trailing slash needed
  std::string email;     // the Eskiz account's login
  std::string password;  // its password (the API key shown in the cabinet)
  std::string from = "4546";  // the sender name / short number Eskiz assigned
  // Where Eskiz posts delivery reports: [server] public_url +
  // "/v1/sms/eskiz/callback/<secret>"; empty: none requested.
  std::string callback_url;
  std::string public_url = "http://127.0.0.1:8080";  // absolute links in the text
  std::size_t max_chars = 300;                       // SMS text length (RenderSmsText)
  std::chrono::milliseconds timeout{10000};          // per HTTP request
};

}  // namespace chopar::channels::sms
