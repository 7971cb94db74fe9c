#pragma once

#include "channels/telegram/updates.hpp"
#include "http/router.hpp"

namespace chopar::http {

// The Telegram connect flow (docs/api.md "Users and addresses"):
// GET /v1/users/{id}/telegram/link (server key) and POST /v1/telegram/webhook
// (checked against the configured X-Telegram-Bot-Api-Secret-Token, so no API
// key). `updates` is null when Telegram is a sink: both answer 503
// `unavailable` then. It must outlive the router.
void RegisterTelegramRoutes(Router& router, channels::telegram::TelegramUpdates* updates);

}  // namespace chopar::http
