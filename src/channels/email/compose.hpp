#pragma once

#include <string>

#include "channels/channel.hpp"
#include "channels/email/message.hpp"
#include "channels/email/settings.hpp"
#include "channels/render.hpp"
#include "core/clock.hpp"

namespace chopar::channels::email {

// One email as every email provider sends it (SMTP, Amazon SES): the
// rendered content in a multipart/alternative MIME message with its
// List-Unsubscribe link, From `from`, To the message's address.
struct ComposedEmail {
  std::string mime;
  std::string message_id;  // with the angle brackets
  // The pieces of the MIME message, for a service that takes them apart
  // (Postmark, SendGrid): subject, text, HTML, the unsubscribe URL.
  EmailContent content;
  // Its From: the configured sender, with the display name of the
  // notification's tenant when its branding has one (Message::branding).
  Mailbox from;
};

// `message` composed at `now`, or nullopt when it has no usable address.
// Thread-safe.
std::optional<ComposedEmail> ComposeEmail(const Message& message, const Mailbox& from,
                                          const EmailSettings& settings, core::TimePoint now);

}  // namespace chopar::channels::email
