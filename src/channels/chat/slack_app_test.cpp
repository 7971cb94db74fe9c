#include "channels/chat/slack_app.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace chopar::channels::chat {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;
using std::chrono::system_clock;

ProviderValues Values(ProviderValues set) {
  for (const ProviderKey& key : SlackAppKeys()) set.emplace(key.name, key.default_value);
  set.emplace("timeout_seconds", "10");
  return set;
}

const ProviderValues kConfigured = Values(
    {{"client_id", "123.456"}, {"client_secret", "secret"}, {"token_key", std::string(40, 'k')}});

TEST(SlackAppSettingsTest, NotConfiguredWithoutAClientIdAndCompleteWithOne) {
  EXPECT_FALSE(SlackAppSettingsFrom(Values({}), "https://x.example").configured());
  const SlackAppSettings settings = SlackAppSettingsFrom(kConfigured, "https://x.example/");
  EXPECT_TRUE(settings.configured());
  EXPECT_EQ(settings.redirect_uri, "https://x.example/v1/slack/oauth/callback");
  EXPECT_EQ(settings.token_key.size(), 32u);
  EXPECT_NE(settings.token_key, settings.state_key) << "one key for each use";
  EXPECT_EQ(settings.api_url, "https://slack.com/api");
}

TEST(SlackAppSettingsTest, RefusesWhatCannotWork) {
  const auto refused = [](ProviderValues set, const std::string& names) {
    try {
      (void)SlackAppSettingsFrom(Values(std::move(set)), "https://x.example");
      ADD_FAILURE() << "taken: " << names;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
    }
  };
  refused({{"client_id", "1"}, {"token_key", std::string(40, 'k')}}, "client_secret");
  refused({{"client_id", "1"}, {"client_secret", "s"}}, "token_key");
  refused({{"client_id", "1"}, {"client_secret", "s"}, {"token_key", "short"}}, "token_key");
  refused({{"client_secret", "s"}}, "client_id");
  refused({{"api_url", "ftp://slack.com"}}, "api_url");
  refused({{"scopes", "chat:write;drop"}}, "scopes");
}

TEST(SlackInstallStateTest, ValidHereForTenMinutesAndNowhereElse) {
  const SlackAppSettings settings = SlackAppSettingsFrom(kConfigured, "https://x.example");
  const auto now = system_clock::now();
  const std::string state = MakeSlackInstallState(settings, now);
  EXPECT_TRUE(SlackInstallStateValid(settings, state, now));
  EXPECT_TRUE(SlackInstallStateValid(settings, state, now + minutes(9)));
  EXPECT_FALSE(SlackInstallStateValid(settings, state, now + minutes(10) + seconds(2)));
  EXPECT_NE(MakeSlackInstallState(settings, now), state) << "a fresh nonce each time";

  ProviderValues other = kConfigured;
  other["token_key"] = std::string(40, 'j');
  EXPECT_FALSE(
      SlackInstallStateValid(SlackAppSettingsFrom(other, "https://x.example"), state, now));
  // Moving the expiry later breaks the signature.
  std::string later = state;
  later[0] = static_cast<char>(later[0] == '9' ? '8' : later[0] + 1);
  EXPECT_FALSE(SlackInstallStateValid(settings, later, now));
  for (const char* bad : {"", ".", "1.2.3", "abc", "99999999999.x.y"}) {
    EXPECT_FALSE(SlackInstallStateValid(settings, bad, now)) << bad;
  }
  EXPECT_FALSE(SlackInstallStateValid(SlackAppSettingsFrom(Values({}), "https://x"), state, now))
      << "no app, no state";
}

TEST(SlackInstallStateTest, TheAuthorizeUrlCarriesTheAppAndTheState) {
  const SlackAppSettings settings = SlackAppSettingsFrom(kConfigured, "https://x.example");
  EXPECT_EQ(SlackAuthorizeUrl(settings, "1.a-b.c_d"),
            "https://slack.com/oauth/v2/authorize?client_id=123.456"
            "&scope=chat%3Awrite%2Cim%3Awrite%2Cusers%3Aread%2Cusers%3Aread.email"
            "&redirect_uri=https%3A%2F%2Fx.example%2Fv1%2Fslack%2Foauth%2Fcallback"
            "&state=1.a-b.c_d");
}

}  // namespace
}  // namespace chopar::channels::chat
