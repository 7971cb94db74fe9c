// Telegram updates as the webhook and the poller receive them: a Bot API
// reply (getUpdates) and an Update object. Neither reading throws; an update
// that asks for something carries a chat and, for /start, a payload that is
// the trimmed rest of the message.
#include "channels/telegram/bot_api.hpp"
#include "channels/telegram/updates.hpp"
#include "core/json.hpp"
#include "fuzz_support.hpp"

using namespace chopar;
using channels::telegram::TelegramUpdateRequest;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::AsText(data, size);
  net::HttpResponse response;
  response.status = 200;
  response.body = std::string(text);
  const auto reply = channels::telegram::ParseBotApiReply(response, core::TimePoint{});
  std::vector<nlohmann::json> updates;
  if (reply.ok && reply.result.is_array()) updates.assign(reply.result.begin(), reply.result.end());
  const nlohmann::json update = core::ParseJsonOrDiscarded(text);
  if (!update.is_discarded()) updates.push_back(update);
  for (const auto& one : updates) {
    const auto request = channels::telegram::ReadTelegramUpdate(one, "chopar_bot");
    if (request.kind == TelegramUpdateRequest::Kind::kStart) {
      const std::string& payload = request.payload;
      fuzz::Require(payload.empty() || (payload.front() != ' ' && payload.back() != ' '),
                    "the payload is trimmed");
    }
    if (request.kind == TelegramUpdateRequest::Kind::kIgnore) {
      fuzz::Require(request.chat_id == 0 && request.payload.empty(), "ignored means empty");
    }
  }
  return 0;
}
