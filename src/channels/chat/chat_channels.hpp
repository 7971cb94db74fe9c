#pragma once

namespace chopar::channels::chat {

// Registers the chat channels a user is reached on through a webhook URL —
// `discord`, `msteams` and `slack`, each addressed by the user's "addresses"
// entry of its name — and their providers (`provider = "discord"` in
// [channels.discord], and so on; each reads allow_local_webhooks and
// timeout_seconds). Without a provider the
// channel goes to the sink. Call it once before anything reads the channels
// (the top of main); a second call does nothing.
void RegisterChatChannels();

}  // namespace chopar::channels::chat
