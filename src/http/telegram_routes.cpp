// The Telegram bot's connect flow.
#include "http/telegram_routes.hpp"

#include "core/request_error.hpp"
#include "http/json_view.hpp"
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
    const auto link = Configured(updates).CreateLink(request.Id("id"));
    return JsonResponse(200, {{"url", link.url}, {"expires_at", TimeView(link.expires_at)}});
  }
};

struct TelegramWebhook {
  channels::telegram::TelegramUpdates* updates;
  Response operator()(const Request& request) const {
    const auto secret = request.Header("x-telegram-bot-api-secret-token");
    Configured(updates).HandleWebhook(secret.value_or(""), request.body);
    return JsonResponse(200, {{"ok", true}});
  }
};

}  // namespace

void RegisterTelegramRoutes(Router& router, channels::telegram::TelegramUpdates* updates) {
  router.Add("GET", "/v1/users/{id}/telegram/link", Auth::kServerKey, GetTelegramLink{updates});
  router.Add("POST", "/v1/telegram/webhook", Auth::kNone, TelegramWebhook{updates});
}

}  // namespace chopar::http
