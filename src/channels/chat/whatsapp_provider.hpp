#pragma once

#include <optional>
#include <string>

#include "channels/chat/whatsapp.hpp"
#include "channels/provider_registry.hpp"

namespace chopar::channels::chat {

// [channels.whatsapp] with provider = "cloud_api": the keys it reads.
std::vector<ProviderKey> WhatsAppKeys();

// The sender's settings from the section's values. A secret (access_token,
// app_secret) is its key's value or the file its `_file` key names, never
// both (channels::SecretValue). Throws std::invalid_argument naming the key for a
// missing phone_number_id or access token, an unreadable file, a bad
// api_url, template name, language list or timeout.
WhatsAppSettings WhatsAppSettingsFrom(const ProviderValues& values);

// What the status webhook route checks requests with.
struct WhatsAppWebhookSecrets {
  std::string app_secret;    // signs every POST (X-Hub-Signature-256)
  std::string verify_token;  // answers Meta's subscription handshake (GET)
};
// From the section's values; throws std::invalid_argument like
// WhatsAppSettingsFrom. Empty members: that half of the route answers 503.
WhatsAppWebhookSecrets WhatsAppWebhookSecretsFrom(const ProviderValues& values);

}  // namespace chopar::channels::chat
