#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "channels/email/http_email_channel.hpp"
#include "core/clock.hpp"

// What the tests of the email services called over HTTP (SES, Mailgun)
// share: a message, the channel's settings, one message sent.
namespace chopar::channels::email::testing {

inline Message Mail(std::int64_t delivery_id, std::string to) {
  Message m;
  m.delivery_id = delivery_id;
  m.notification_id = 1000 + delivery_id;
  m.user_id = 7;
  m.channel = core::ChannelKind::kEmail;
  m.type = "task.due";
  m.title = "Hisobot muddati yaqin";
  m.body = "Hisobotni juma kuni topshiring.";
  m.link = "/tasks/42";
  m.locale = "uz";
  m.email = std::move(to);
  return m;
}

// From `from`, links on https://app.acme.uz/, one-click unsubscribe, 5 s.
inline EmailSettings ApiEmailSettings(std::string from) {
  EmailSettings s;
  s.from = std::move(from);
  s.public_url = "https://app.acme.uz/";
  s.unsubscribe_secret = "inbox-secret";
  s.one_click_unsubscribe = true;
  s.timeout = std::chrono::seconds(5);
  return s;
}

// `m` sent alone through `api`; its outcome.
inline Outcome SendAlone(const EmailSettings& email, EmailApi api, const Message& m) {
  static net::HttpClient http;
  static const core::SimulatedClock clock{core::TimePoint{std::chrono::seconds(1748944800)}};
  HttpEmailChannel channel(email, std::move(api), http, clock);
  return channel.Send(std::span<const Message>(&m, 1))[0];
}

}  // namespace chopar::channels::email::testing
