#include "channels/sink_channel.hpp"

#include "channels/queries.hpp"

namespace chopar::channels {
namespace {

std::optional<std::string> AddressOf(const Message& m) {
  if (m.email) return m.email;
  if (m.phone) return m.phone;
  if (m.telegram_chat_id) return std::to_string(*m.telegram_chat_id);
  if (!m.push_targets.empty()) return m.push_targets.front().endpoint;
  return std::nullopt;
}

// The sink_insert parameters: one array per column, a row per message.
db::Params SinkRows(std::span<const Message> messages) {
  std::vector<std::int64_t> delivery_ids, user_ids;
  std::vector<std::string_view> channels;
  std::vector<std::optional<std::string>> addresses;
  std::vector<std::string> subjects, bodies;
  for (const Message& m : messages) {
    delivery_ids.push_back(m.delivery_id);
    channels.push_back(core::ChannelName(m.channel));
    user_ids.push_back(m.user_id);
    addresses.push_back(AddressOf(m));
    // What the user would read: a template's own texts for the channel first.
    subjects.push_back(m.subject.value_or(m.title));
    bodies.push_back(m.text.value_or(m.body));
  }
  using db::ArrayLiteral;
  return db::Params(ArrayLiteral(delivery_ids), ArrayLiteral(channels), ArrayLiteral(user_ids),
                    ArrayLiteral(addresses), ArrayLiteral(subjects), ArrayLiteral(bodies));
}

}  // namespace

std::vector<Outcome> SinkChannel::Send(std::span<const Message> messages) {
  if (messages.empty()) return {};
  auto conn = pool_.Acquire();
  conn->Exec(queries::kSinkInsert, SinkRows(messages));
  return std::vector<Outcome>(messages.size(), Outcome::Sent());
}

void SinkChannel::SendInClaim(db::Transaction& claim, std::span<const Message> messages) {
  if (messages.empty()) return;
  // Deferred: it goes to the server with the claim's next statement.
  claim.Defer(queries::kSinkInsert, SinkRows(messages));
}

}  // namespace chopar::channels
