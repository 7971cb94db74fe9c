// The Telegram bot's connect flow.
#include "http/telegram_routes.hpp"

#include "core/request_error.hpp"
#include "http/message.hpp"

namespace chopar::http {
namespace {

channels::telegram::TelegramUpdates& Configured(channels::telegram::TelegramUpdates* updates) {
  if (updates == nullptr) {
    throw core::Unavailable("Telegram is not configured ([channels.telegram] bot_token)");
  }
  return *updates;
}

struct GetTelegramLink {
  channels::telegram::TelegramUpdates* updates;
  Response operator()(const Request& request) const {
    return JsonResponse(200, Configured(updates).CreateLink(request.Id("id")));
  }
};

struct TelegramWebhook {
  channels::telegram::TelegramUpdates* updates;
  Response operator()(const Request& request) const {
    const auto secret = request.Header("x-telegram-bot-api-secret-token");
    return JsonResponse(200, Configured(updates).HandleWebhook(secret.value_or(""), request.body));
  }
};

}  // namespace

void RegisterTelegramRoutes(Router& router, channels::telegram::TelegramUpdates* updates) {
  router.Add("GET", "/v1/users/{id}/telegram/link", Auth::kServerKey, GetTelegramLink{updates});
  router.Add("POST", "/v1/telegram/webhook", Auth::kNone, TelegramWebhook{updates});
}

}  // namespace chopar::http
