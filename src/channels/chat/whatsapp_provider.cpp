#include "channels/chat/whatsapp_provider.hpp"

#include <algorithm>
#include <stdexcept>

#include "channels/chat/chat_format.hpp"
#include "channels/provider_secret.hpp"

namespace chopar::channels::chat {
namespace {

const std::string& Get(const ProviderValues& values, const std::string& key) {
  static const std::string kEmpty;
  const auto it = values.find(key);
  return it == values.end() ? kEmpty : it->second;
}

bool IsLanguageCode(std::string_view code) {
  // "en", "uz", "en_US", "pt_BR", "zh_CN": as Meta names template languages.
  return code.size() >= 2 && code.size() <= 8 && std::all_of(code.begin(), code.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
         });
}

std::vector<std::string> Languages(const std::string& list) {
  std::vector<std::string> languages;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    std::string code = list.substr(start, comma - start);
    std::erase(code, ' ');
    if (!IsLanguageCode(code)) {
      throw std::invalid_argument(
          "languages must be template language codes separated by "
          "commas (\"en,uz\"), not \"" +
          list + "\"");
    }
    languages.push_back(std::move(code));
    start = comma + 1;
  }
  return languages;
}

}  // namespace

std::vector<ProviderKey> WhatsAppKeys() {
  return {
      {.name = "api_url",
       .default_value = "https://graph.facebook.com/v21.0",
       .doc = "the Graph API with its version"},
      {.name = "phone_number_id", .default_value = "", .doc = "the business number's id"},
      {.name = "access_token", .default_value = "", .doc = "a system user's token (a secret)"},
      {.name = "access_token_file", .default_value = "", .doc = "or a file holding it"},
      {.name = "app_secret",
       .default_value = "",
       .doc = "verifies the status webhooks' X-Hub-Signature-256 (a secret)"},
      {.name = "app_secret_file", .default_value = "", .doc = "or a file holding it"},
      {.name = "verify_token",
       .default_value = "",
       .doc = "what Meta's webhook subscription handshake must name"},
      {.name = "template",
       .default_value = "chopar_notification",
       .doc = "the approved template: {{1}} title, {{2}} body"},
      {.name = "languages",
       .default_value = "en,uz",
       .doc = "the languages the templates are approved in"},
      {.name = "default_language",
       .default_value = "en",
       .doc = "for a user whose locale is not one of them"},
      {.name = "timeout_seconds", .default_value = "10", .doc = "per request, 1 to 60"},
  };
}

WhatsAppSettings WhatsAppSettingsFrom(const ProviderValues& values) {
  WhatsAppSettings settings;
  settings.api_url = Get(values, "api_url");
  while (settings.api_url.ends_with('/')) settings.api_url.pop_back();
  if (!settings.api_url.starts_with("https://") && !settings.api_url.starts_with("http://")) {
    throw std::invalid_argument("api_url must be an http(s) URL, not \"" + settings.api_url + "\"");
  }
  settings.phone_number_id = Get(values, "phone_number_id");
  const bool digits = !settings.phone_number_id.empty() &&
                      std::all_of(settings.phone_number_id.begin(), settings.phone_number_id.end(),
                                  [](char c) { return c >= '0' && c <= '9'; });
  if (!digits) throw std::invalid_argument("phone_number_id must be the number's id, digits");
  settings.access_token = SecretValue(values, "access_token");
  if (settings.access_token.empty()) {
    throw std::invalid_argument("access_token (or access_token_file) must be set");
  }
  settings.template_name = Get(values, "template");
  if (!IsTemplateName(settings.template_name)) {
    throw std::invalid_argument(
        "template must be an approved template's name: lowercase "
        "letters, digits and '_'");
  }
  settings.languages = Languages(Get(values, "languages"));
  settings.default_language = Get(values, "default_language");
  if (!IsLanguageCode(settings.default_language)) {
    throw std::invalid_argument("default_language must be a template language code (\"en\")");
  }
  settings.timeout = ParseTimeoutSeconds(Get(values, "timeout_seconds"));
  return settings;
}

WhatsAppWebhookSecrets WhatsAppWebhookSecretsFrom(const ProviderValues& values) {
  return {SecretValue(values, "app_secret"), Get(values, "verify_token")};
}

}  // namespace chopar::channels::chat
