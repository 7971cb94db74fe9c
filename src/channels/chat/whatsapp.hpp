#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "channels/channel.hpp"
#include "net/http_client.hpp"

namespace chopar::channels::chat {

// The WhatsApp Business Cloud API (docs/api.md "WhatsApp"): a message that
// starts a conversation must be a template Meta approved beforehand, so
// every notification goes out as one: its name, its language and its body
// parameters {{1}}, {{2}}, … .
struct WhatsAppSettings {
  // "https://graph.facebook.com/v21.0": the Graph API with its version.
  std::string api_url = "https://graph.facebook.com/v21.0";
  std::string phone_number_id;  // the business number messages come from
  std::string access_token;     // a system user's token (a secret)
  // The approved template a notification uses unless its data names one,
  // with {{1}} = title and {{2}} = body.
  std::string template_name = "chopar_notification";
  // The languages the templates are approved in; a user whose locale is
  // not one of them gets default_language.
  std::vector<std::string> languages{"en", "uz"};
  std::string default_language = "en";
  std::chrono::milliseconds timeout{10000};
};

// Why `text` is not a WhatsApp number as chopar keeps it — E.164, "+"
// then 7 to 15 digits, the first not 0 — or nullopt when it is. Pure.
std::optional<std::string> WhatsAppNumberProblem(std::string_view text);

// Whether `name` can be a template's name: 1 to 512 lowercase letters,
// digits and '_', as Meta names them. Pure.
bool IsTemplateName(std::string_view name);

// The template a message goes out as: the notification's data may choose
// it ("whatsapp_template": an approved name, "whatsapp_parameters": the
// body's parameters as an array of at most 10 strings); otherwise the
// configured template with the title and the body. Language: the user's
// locale when the templates are approved in it, else the default.
struct WhatsAppTemplate {
  std::string name;
  std::string language;
  std::vector<std::string> parameters;
};
// The template of `message`, or what is wrong with its data's choice.
struct TemplateChoice {
  std::optional<WhatsAppTemplate> chosen;
  std::string problem;  // set when chosen is not
};
TemplateChoice ChooseTemplate(const Message& message, const WhatsAppSettings& settings);

// The JSON body of POST /{phone_number_id}/messages sending `chosen` to
// `number` (E.164; sent without its "+", as Meta writes numbers). Pure.
std::string WhatsAppTemplateBody(std::string_view number, const WhatsAppTemplate& chosen);

// What an answer of POST /messages means: 200 with messages[0].id → sent
// (that wamid is the provider_message_id the status webhooks name); 131026,
// the number is not on WhatsApp or cannot take messages → address gone; the rate limits (130429
// throughput, 131056 pair rate, 131048 spam rate, 80007 and 4 account and app limits) and Meta's
// temporary failures (131000, 131016, 133004, 5xx) → retried, after
// Retry-After when given; 190 (the access token expired or was revoked) →
// retried, so a token replaced in time loses nothing; any other → failed.
Outcome WhatsAppOutcome(const net::HttpResponse& response,
                        std::chrono::system_clock::time_point now);

}  // namespace chopar::channels::chat
