#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "channels/channel.hpp"
#include "net/http_client.hpp"

namespace chopar::channels::chat {

// What differs between the chat services chopar posts to through a webhook
// URL the user (or an admin for them) supplied: the body, the URL a post
// goes to, what an answer means and how long a webhook rests after one.
// The sending, the address policy and the rests are ChatWebhookChannel's.
struct ChatFormat {
  std::string_view provider;  // "discord", "msteams": logs, metrics, last_error
  // The JSON body of one message's post.
  std::string (*body)(const Message& message, std::string_view public_url);
  // Where the post goes, from the user's webhook URL.
  std::string (*target)(std::string_view webhook);
  // What a complete answer means (one whose request was written and whose
  // status line came back).
  Outcome (*outcome)(const net::HttpResponse& response, std::chrono::system_clock::time_point now);
  // How long this webhook takes no more posts after `response` (its rate
  // limit's bucket is empty, or it answered 429), or nullopt.
  std::optional<std::chrono::milliseconds> (*rest)(const net::HttpResponse& response,
                                                   std::chrono::system_clock::time_point now);
};

// The delay a response's Retry-After header asks for, or nullopt.
std::optional<std::chrono::seconds> RetryAfterHeader(const net::HttpResponse& response,
                                                     std::chrono::system_clock::time_point now);

// ChatFormat::rest of a service whose only rate-limit signal is a 429: its
// Retry-After (a second without one); nullopt for any other answer.
std::optional<std::chrono::milliseconds> RestAfterA429(const net::HttpResponse& response,
                                                       std::chrono::system_clock::time_point now);

// ChatFormat::target of a service posted to at the webhook URL itself.
std::string TheWebhookItself(std::string_view webhook);

// A timeout_seconds key's value: a whole number from 1 to 60. Throws
// std::invalid_argument naming the key otherwise.
std::chrono::milliseconds ParseTimeoutSeconds(const std::string& value);

}  // namespace chopar::channels::chat
