#include "channels/email/compose.hpp"

#include "channels/unsubscribe.hpp"

namespace chopar::channels::email {

std::optional<ComposedEmail> ComposeEmail(const Message& m, const Mailbox& from,
                                          const EmailSettings& settings, core::TimePoint now) {
  if (!m.email || !IsPlainAddress(*m.email)) return std::nullopt;
  // A tenant's sender name is the display name; the address stays the
  // deployment's (the one its SPF and DKIM are for).
  Mailbox sender = from;
  if (m.branding && m.branding->sender_name) sender.display_name = *m.branding->sender_name;
  const EmailEnvelope envelope{sender, *m.email, MakeMessageId(m.delivery_id, sender.address), now,
                               settings.one_click_unsubscribe};
  const std::string unsubscribe =
      UnsubscribeUrl(settings.public_url, settings.unsubscribe_secret, m.user_id,
                     UnsubscribeScope::Of(m), core::ChannelKind::kEmail);
  EmailContent content = RenderEmail(m, settings.public_url, unsubscribe);
  std::string mime = BuildMimeMessage(envelope, content, MakeBoundary());
  return ComposedEmail{std::move(mime), envelope.message_id, std::move(content), sender};
}

}  // namespace chopar::channels::email
