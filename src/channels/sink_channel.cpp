#include "channels/sink_channel.hpp"

#include "channels/queries.hpp"
#include "channels/render.hpp"
#include "channels/unsubscribe.hpp"

namespace chopar::channels {
namespace {

std::optional<std::string> AddressOf(const Message& m) {
  if (m.email) return m.email;
  if (m.phone) return m.phone;
  if (m.telegram_chat_id) return std::to_string(*m.telegram_chat_id);
  if (!m.push_targets.empty()) return m.push_targets.front().endpoint;
  if (!m.device_targets.empty()) {
    return m.device_targets.front().platform + " device " +
           std::to_string(m.device_targets.front().device_id);
  }
  if (m.address) return m.address;
  return std::nullopt;
}

// What the user would have received on the message's channel.
struct Rendered {
  std::string title;
  std::string body;
  std::optional<std::string> html;
};

Rendered Render(const Message& m, std::string_view public_url,
                std::string_view unsubscribe_secret) {
  const core::ChannelKind channel = m.channel;
  if (channel == core::ChannelKind::kEmail) {
    auto email = RenderEmail(m, public_url,
                             UnsubscribeUrl(public_url, unsubscribe_secret, m.user_id,
                                            UnsubscribeScope::Of(m), m.channel));
    return {std::move(email.subject), std::move(email.text), std::move(email.html)};
  }
  if (channel == core::ChannelKind::kTelegram) {
    return {m.title, RenderTelegramHtml(m, public_url), std::nullopt};
  }
  if (channel == core::ChannelKind::kPush) {
    const auto payload = RenderPushPayload(m, public_url);
    return {payload.value("title", m.title), payload.value("body", m.body), std::nullopt};
  }
  if (channel == core::ChannelKind::kSms)
    return {m.title, RenderSmsText(m, public_url), std::nullopt};
  // A registered channel: its template's text if it has one, else the body.
  return {m.subject.value_or(m.title), m.text.value_or(m.body), m.html};
}

}  // namespace

// The sink_insert parameters: one array per column, a row per message.
db::Params SinkChannel::Rows(std::span<const Message> messages) const {
  std::vector<std::int64_t> delivery_ids, user_ids;
  std::vector<std::string_view> channels;
  std::vector<std::optional<std::string>> addresses, htmls;
  std::vector<std::string> subjects, bodies;
  for (const Message& m : messages) {
    Rendered rendered = Render(m, public_url_, unsubscribe_secret_);
    delivery_ids.push_back(m.delivery_id);
    channels.push_back(core::ChannelName(m.channel));
    user_ids.push_back(m.user_id);
    addresses.push_back(AddressOf(m));
    subjects.push_back(std::move(rendered.title));
    bodies.push_back(std::move(rendered.body));
    htmls.push_back(std::move(rendered.html));
  }
  using db::ArrayLiteral;
  return db::Params(ArrayLiteral(delivery_ids), ArrayLiteral(channels), ArrayLiteral(user_ids),
                    ArrayLiteral(addresses), ArrayLiteral(subjects), ArrayLiteral(bodies),
                    ArrayLiteral(htmls));
}

std::vector<Outcome> SinkChannel::Send(std::span<const Message> messages) {
  if (messages.empty()) return {};
  auto conn = pool_.Acquire();
  conn->Exec(queries::kSinkInsert, Rows(messages));
  return std::vector<Outcome>(messages.size(), Outcome::Sent());
}

void SinkChannel::SendInClaim(db::Transaction& claim, std::span<const Message> messages) {
  if (messages.empty()) return;
  // Deferred: it goes to the server with the claim's next statement.
  claim.Defer(queries::kSinkInsert, Rows(messages));
}

}  // namespace chopar::channels
