// A tenant's branding in the email layout (channels::RenderEmail).
#include "channels/render.hpp"

#include <gtest/gtest.h>

namespace chopar::channels {
namespace {

Message EmailMessage() {
  Message m;
  m.channel = core::ChannelKind::kEmail;
  m.title = "Due";
  m.body = "Today";
  m.link = "/t/1";
  return m;
}

TEST(RenderEmail, ATenantsBrandingShowsItsLogoColourAndFooter) {
  Message m = EmailMessage();
  ApplyChannelTexts(m, {{"subject", "S"},
                        {"branding",
                         {{"logo_url", "https://acme.example/l.png?a=1&b=2"},
                          {"primary_color", "#ff5500"},
                          {"sender_name", "Acme"},
                          {"footer", "Acme <Inc.>\nMain St"}}}});
  ASSERT_TRUE(m.branding);
  EXPECT_EQ(m.branding->sender_name, "Acme");
  EXPECT_EQ(m.subject, "S");
  const EmailContent email = RenderEmail(m, "https://app.example", "https://u.example/x");
  EXPECT_NE(email.html.find("<img src=\"https://acme.example/l.png?a=1&amp;b=2\""),
            std::string::npos)
      << email.html;
  EXPECT_NE(email.html.find("background:#ff5500"), std::string::npos);
  EXPECT_EQ(email.html.find("#2563eb"), std::string::npos);
  EXPECT_NE(email.html.find("Acme &lt;Inc.&gt;<br>\nMain St"), std::string::npos) << email.html;
  EXPECT_NE(email.text.find("Acme <Inc.>\nMain St"), std::string::npos) << email.text;
}

TEST(RenderEmail, WithoutBrandingOrWithABadColourTheLayoutIsAsBefore) {
  const EmailContent plain = RenderEmail(EmailMessage(), "https://app.example", "u");
  EXPECT_NE(plain.html.find("background:#2563eb"), std::string::npos);
  EXPECT_EQ(plain.html.find("<img"), std::string::npos);

  Message m = EmailMessage();
  m.branding = Branding{};
  m.branding->primary_color = "red;x:y";
  EXPECT_NE(RenderEmail(m, "https://app.example", "u").html.find("background:#2563eb"),
            std::string::npos)
      << "only a hex colour reaches the style";
}

}  // namespace
}  // namespace chopar::channels
