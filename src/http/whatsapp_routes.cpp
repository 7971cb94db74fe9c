#include "http/whatsapp_routes.hpp"

#include <algorithm>

#include "channels/chat/whatsapp_status.hpp"
#include "core/encoding.hpp"
#include "core/request_error.hpp"
#include "http/message.hpp"

namespace chopar::http {
namespace {

// Meta's challenge is a number; anything else is not echoed back.
constexpr std::size_t kMaxChallenge = 64;

struct VerifySubscription {
  std::string verify_token;
  Response operator()(const Request& request) const {
    if (verify_token.empty()) {
      throw core::Unavailable("WhatsApp is not configured ([channels.whatsapp] verify_token)");
    }
    const auto mode = request.query.Get("hub.mode");
    const auto token = request.query.Get("hub.verify_token");
    const auto challenge = request.query.Get("hub.challenge");
    if (mode != "subscribe" || !token || !core::ConstantTimeEquals(*token, verify_token)) {
      throw core::Unauthorized(
          "hub.mode must be subscribe and hub.verify_token the configured one");
    }
    const bool digits = challenge && !challenge->empty() && challenge->size() <= kMaxChallenge &&
                        std::all_of(challenge->begin(), challenge->end(),
                                    [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) {
      throw core::InvalidField("hub.challenge", "hub.challenge must be 1 to 64 digits");
    }
    Response response;
    response.content_type = "text/plain; charset=utf-8";
    response.body = *challenge;
    return response;
  }
};

struct StatusWebhook {
  db::Pool& pool;
  const core::Clock& clock;
  std::string app_secret;
  Response operator()(const Request& request) const {
    if (app_secret.empty()) {
      throw core::Unavailable("WhatsApp is not configured ([channels.whatsapp] app_secret)");
    }
    const auto signature = request.Header("x-hub-signature-256");
    if (!signature ||
        !channels::chat::WhatsAppSignatureMatches(app_secret, request.body, *signature)) {
      throw core::Unauthorized(
          "X-Hub-Signature-256 must be the body's HMAC-SHA256 under the "
          "app secret");
    }
    const auto statuses = channels::chat::ParseWhatsAppStatuses(request.body);
    const auto result = channels::chat::RecordWhatsAppStatuses(pool, statuses, clock);
    return JsonResponse(
        200,
        {{"statuses", result.statuses}, {"matched", result.matched}, {"recorded", result.changed}});
  }
};

}  // namespace

void RegisterWhatsAppRoutes(Router& router, db::Pool& pool, const core::Clock& clock,
                            channels::chat::WhatsAppWebhookSecrets secrets) {
  router.Add("GET", "/v1/whatsapp/webhook", Auth::kNone,
             VerifySubscription{std::move(secrets.verify_token)});
  router.Add("POST", "/v1/whatsapp/webhook", Auth::kNone,
             StatusWebhook{pool, clock, std::move(secrets.app_secret)});
}

}  // namespace chopar::http
