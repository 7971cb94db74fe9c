#pragma once

namespace chopar::channels::chat {

// Registers the chat channels — `discord`, `msteams` and `slack`, reached
// through a webhook URL, and `whatsapp`, reached at a WhatsApp number, each
// addressed by the user's "addresses" entry of its name — and their
// providers (`provider = "discord"` in [channels.discord], and so on; the
// webhook ones read allow_local_webhooks and timeout_seconds, WhatsApp's
// `cloud_api` the keys of WhatsAppKeys). Without a provider the channel
// goes to the sink. Call it once before anything reads the channels
// (the top of main); a second call does nothing.
void RegisterChatChannels();

}  // namespace chopar::channels::chat
