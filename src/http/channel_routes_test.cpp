#include "http/channel_routes.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/channel_kind.hpp"
#include "templates/target.hpp"

namespace chopar::http {
namespace {

TEST(ChannelRoutesTest, TheDocumentListsEveryChannelInTheApisOrderWithWhatItIs) {
  const nlohmann::json doc = ChannelsDocument();
  ASSERT_EQ(doc.at("channels").size(), core::ChannelCount());
  std::size_t i = 0;
  for (core::ChannelKind kind : core::AllChannels()) {
    const nlohmann::json& channel = doc["channels"][i++];
    EXPECT_EQ(channel.at("name"), core::ChannelName(kind));
    EXPECT_EQ(channel.size(), 5u) << channel.dump();
  }
  EXPECT_EQ(doc["channels"][0],
            nlohmann::json::parse(R"({"name": "email", "address": "email", "default": true,
              "template_fields": ["subject", "html", "text"], "settings": "channels.email"})"));
  EXPECT_EQ(doc["channels"][3],
            nlohmann::json::parse(R"({"name": "sms", "address": "phone", "default": false,
              "template_fields": ["text"], "settings": "channels.sms"})"));
}

// Every field a template may give a channel is listed under that channel,
// once: the console's template editor and the documentation read it there.
TEST(ChannelRoutesTest, EveryChannelTemplateFieldIsListedOnceUnderItsChannel) {
  const nlohmann::json doc = ChannelsDocument();
  std::size_t listed = 0;
  for (const nlohmann::json& channel : doc["channels"]) listed += channel["template_fields"].size();
  std::size_t targets = 0;
  for (templates::Target target : templates::AllTargets()) {
    const templates::TargetInfo& info = templates::InfoOf(target);
    if (!info.channel) continue;
    ++targets;
    const nlohmann::json& fields = doc["channels"][info.channel->index()]["template_fields"];
    EXPECT_EQ(std::count(fields.begin(), fields.end(), std::string(info.key)), 1)
        << templates::TargetPath(target);
  }
  EXPECT_EQ(listed, targets);
}

TEST(ChannelRoutesTest, TheRouteNeedsNoCredentials) {
  Router router;
  RegisterChannelRoutes(router);
  const auto match = router.Find("GET", "/v1/channels");
  ASSERT_EQ(match.outcome, Router::Match::Outcome::kFound);
  EXPECT_EQ(match.route->auth, Auth::kNone);
  const Response response = match.route->handler(Request{});
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(nlohmann::json::parse(response.body), ChannelsDocument());
}

TEST(ChannelKindTest, MessagesListTheNamesInOrder) {
  EXPECT_EQ(core::ChannelNamesText(), "email, telegram, push or sms");
}

}  // namespace
}  // namespace chopar::http
