#include "channels/email/compose.hpp"

#include "channels/unsubscribe.hpp"

namespace chopar::channels::email {

std::optional<ComposedEmail> ComposeEmail(const Message& m, const Mailbox& from,
                                          const EmailSettings& settings, core::TimePoint now) {
  if (!m.email || !IsPlainAddress(*m.email)) return std::nullopt;
  const EmailEnvelope envelope{from, *m.email, MakeMessageId(m.delivery_id, from.address), now,
                               settings.one_click_unsubscribe};
  const std::string unsubscribe =
      UnsubscribeUrl(settings.public_url, settings.unsubscribe_secret, m.user_id,
                     UnsubscribeScope::Of(m), core::ChannelKind::kEmail);
  EmailContent content = RenderEmail(m, settings.public_url, unsubscribe);
  std::string mime = BuildMimeMessage(envelope, content, MakeBoundary());
  return ComposedEmail{std::move(mime), envelope.message_id, std::move(content)};
}

}  // namespace chopar::channels::email
