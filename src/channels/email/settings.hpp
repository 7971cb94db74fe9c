#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace chopar::channels::email {

// When the connection is upgraded with STARTTLS (RFC 3207) on smtp://.
enum class StartTls {
  kOff,            // plaintext
  kOpportunistic,  // upgrade if the server offers it; unverified (RFC 7435)
  kRequired,       // upgrade with certificate verification or send nothing
};
// "off" | "opportunistic" | "required"; nullopt otherwise.
std::optional<StartTls> ParseStartTls(std::string_view text);

// The most SMTP sessions at once [channels.email] max_in_flight may ask for.
inline constexpr std::size_t kMaxEmailInFlight = 1024;

// [channels.email] (docs/configuration.md) and what the service adds to it.
// (Every member has an initializer, so that a designated initializer may
// name only the ones it changes.)
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
  std::optional<StartTls> starttls{};
  std::string ca_file{};   // CA bundle for verification; empty: the system's
  std::string username{};  // AUTH when not empty
  std::string password{};
  std::string from = "chopar <noreply@example.com>";  // "Name <address>" or an address
  std::string public_url = "http://127.0.0.1:8080";   // [server] public_url: absolute links
  std::chrono::milliseconds timeout{30000};           // whole SMTP session of one message
  std::size_t max_in_flight = 64;                     // SMTP sessions at once per Send call
  // Signs each message's List-Unsubscribe URL (the inbox secret; see
  // channels/unsubscribe.hpp).
  std::string unsubscribe_secret{};
  // Add List-Unsubscribe-Post (RFC 8058). Only when the unsubscribe URL
  // really unsubscribes on a POST of "List-Unsubscribe=One-Click" (chopar's
  // own does, when the API runs with the same inbox secret).
  bool one_click_unsubscribe = false;
};

}  // namespace chopar::channels::email
