#pragma once

#include "channels/chat/whatsapp_provider.hpp"
#include "core/clock.hpp"
#include "db/pool.hpp"
#include "http/router.hpp"

namespace chopar::http {

// WhatsApp's status webhooks, at the one URL Meta's app settings name:
// GET /v1/whatsapp/webhook answers Meta's subscription handshake (the
// hub.challenge, when hub.verify_token is [channels.whatsapp] verify_token);
// POST /v1/whatsapp/webhook records the statuses of a body whose
// X-Hub-Signature-256 is its HMAC under app_secret (401 otherwise). Each
// half answers 503 while its secret is not configured.
void RegisterWhatsAppRoutes(Router& router, db::Pool& pool, const core::Clock& clock,
                            channels::chat::WhatsAppWebhookSecrets secrets);

}  // namespace chopar::http
