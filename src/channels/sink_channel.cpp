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

}  // namespace

std::vector<Outcome> SinkChannel::Send(std::span<const Message> messages) {
  if (messages.empty()) return {};
  nlohmann::json rows = nlohmann::json::array();
  for (const Message& m : messages) {
    rows.push_back({{"delivery_id", m.delivery_id},
                    {"channel", core::ChannelName(m.channel)},
                    {"user_id", m.user_id},
                    {"address", AddressOf(m) ? nlohmann::json(*AddressOf(m)) : nlohmann::json()},
                    {"subject", m.title},
                    {"body", m.body}});
  }
  auto conn = pool_.Acquire();
  conn->Exec(queries::kSinkInsert, rows.dump());
  return std::vector<Outcome>(messages.size(), Outcome::Sent());
}

}  // namespace chopar::channels
