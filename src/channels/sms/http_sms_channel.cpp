#include "channels/sms/http_sms_channel.hpp"

#include <algorithm>

#include "channels/render.hpp"

namespace chopar::channels::sms {

HttpSmsChannel::HttpSmsChannel(SmsApi api, SmsText text, net::HttpClient& http)
    : api_(std::move(api)),
      text_(std::move(text)),
      http_(http),
      in_flight_(std::max<std::size_t>(1, api_.max_in_flight)) {}

std::vector<Outcome> HttpSmsChannel::Send(std::span<const Message> messages) {
  const auto prepare = [&](const Message& m) -> PreparedCall {
    if (const auto missing = MissingAddress(m)) {
      return Outcome::Permanent(api_.provider + ": " + *missing);
    }
    if (PhoneDigits(*m.phone).empty())
      return Outcome::Permanent(api_.provider + ": no phone number");
    return api_.request(m, RenderSmsText(m, text_.public_url, text_.max_chars));
  };
  std::vector<Outcome> outcomes = SendEachOverHttp(
      messages, {api_.provider, api_.timeout, &in_flight_}, prepare, api_.outcome, http_);
  if (api_.message_id) {
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
      Outcome& outcome = outcomes[i];
      if (outcome.kind == OutcomeKind::kSent && !outcome.provider_message_id) {
        outcome.provider_message_id = api_.message_id(messages[i]);
      }
    }
  }
  return outcomes;
}

std::string PhoneDigits(std::string_view phone) {
  std::string digits;
  for (const char c : phone) {
    if (c >= '0' && c <= '9') digits += c;
  }
  return digits;
}

}  // namespace chopar::channels::sms
