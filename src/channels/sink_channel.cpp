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

// The sink_insert parameter: one JSON row per message.
std::string SinkRows(std::span<const Message> messages) {
  nlohmann::json rows = nlohmann::json::array();
  for (const Message& m : messages) {
    const auto address = AddressOf(m);
    rows.push_back({{"delivery_id", m.delivery_id},
                    {"channel", core::ChannelName(m.channel)},
                    {"user_id", m.user_id},
                    {"address", address ? nlohmann::json(*address) : nlohmann::json()},
                    {"subject", m.title},
                    {"body", m.body}});
  }
  return rows.dump();
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
  claim.Exec(queries::kSinkInsert, SinkRows(messages));
}

}  // namespace chopar::channels
