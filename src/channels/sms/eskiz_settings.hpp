#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace chopar::channels::sms {

// How chopar sends SMS through Eskiz; a value, set once at construction.
// app::Config holds [channels.sms] base_url, email, password and from as this
// type, with these defaults (docs/configuration.md); callback_url and
// public_url come from [server] public_url.
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
