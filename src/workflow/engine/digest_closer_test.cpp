#include "workflow/engine/digest_closer.hpp"

#include <gtest/gtest.h>

namespace chopar::workflow::engine {
namespace {

using core::ChannelKind;

std::vector<DigestEntry> Entries() {
  return {
      {1,
       "Aziz commented",
       "",
       "/p/7",
       {{"project", "alpha"}, {"author", "Aziz"}},
       "2026-12-03T10:00:00Z",
       {ChannelKind::kEmail}},
      {2,
       "Dilnoza commented",
       "",
       "/p/7",
       {{"project", "alpha"}, {"author", "Dilnoza"}},
       "2026-12-03T10:01:00Z",
       {ChannelKind::kEmail, ChannelKind::kTelegram}},
  };
}

TEST(RenderDigestTest, TheTemplateSeesTheCountTheItemsAndTheNewestData) {
  const auto tmpl = templates::ParseTemplate(
      "project.comment", {{"default_locale", "en"},
                          {"locales",
                           {{"en",
                             {{"title", "{{author}} commented on {{project}}"},
                              {"email",
                               {{"subject", "{{digest.count}} new comments on {{project}}"},
                                {"text", "{{#digest.items}}{{data.author}};{{/digest.items}}"}}}}},
                            {"uz", {{"title", "{{digest.count}} ta izoh: {{project}}"}}}}}});
  const DigestMessage en = RenderDigest("project.comment", 1, "en", "UTC", Entries(), &tmpl);
  EXPECT_EQ(en.channels, (std::vector{ChannelKind::kEmail, ChannelKind::kTelegram}))
      << "the union of the items' channels";
  EXPECT_EQ(en.content["title"], "Dilnoza commented on alpha");
  EXPECT_EQ(en.content["email"]["subject"], "2 new comments on alpha");
  EXPECT_EQ(en.content["email"]["text"], "Aziz;Dilnoza;");
  const DigestMessage uz = RenderDigest("project.comment", 1, "uz", "UTC", Entries(), &tmpl);
  EXPECT_EQ(uz.content["title"], "2 ta izoh: alpha") << "in the user's locale";
}

TEST(RenderDigestTest, WithoutATemplateADefaultTextInTheUsersLanguage) {
  const DigestMessage en = RenderDigest("project.comment", 1, "en", "UTC", Entries(), nullptr);
  EXPECT_EQ(en.content["title"], "2 new notifications");
  EXPECT_EQ(en.content["body"], "Aziz commented\nDilnoza commented");
  const DigestMessage uz = RenderDigest("project.comment", 1, "uz-Cyrl", "UTC", Entries(), nullptr);
  EXPECT_EQ(uz.content["title"], "2 ta yangi bildirishnoma");
}

}  // namespace
}  // namespace chopar::workflow::engine
