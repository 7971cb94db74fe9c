// A report through the whole pipeline: the runner creates one notification
// per admin, the delivery worker sends each over a real Bot API client to a
// fake Telegram. The source document's naive loop sent 24 copies to the
// first admin when the second had blocked the bot; here the blocked admin's
// delivery fails alone and the other admin receives exactly one message.

#include <gtest/gtest.h>

#include "channels/telegram/channel.hpp"
#include "delivery/channel_set.hpp"
#include "delivery/worker.hpp"
#include "net/http_client.hpp"
#include "reports/pgtest_fixture.hpp"
#include "testing/fake_telegram.hpp"

namespace chopar::reports {
namespace {

using chopar::testing::BotError;
using chopar::testing::BotOk;
using chopar::testing::FakeTelegram;
using std::chrono::minutes;
using testing::ScriptedSource;

constexpr std::int64_t kBlockedChat = 111;
constexpr std::int64_t kReadingChat = 222;

class AdminDeliveryTest : public testing::ReportsPgTest {
 protected:
  channels::telegram::TelegramSettings Settings() const {
    channels::telegram::TelegramSettings settings;
    settings.bot_token = "123456:TEST-token_abc";
    settings.api_base = telegram_.url();
    settings.public_url = "https://chopar.example.uz";
    settings.timeout = std::chrono::seconds(5);
    return settings;
  }
  // sendMessage requests that reached the fake for `chat`.
  int ArrivalsFor(std::int64_t chat) const {
    int n = 0;
    for (const auto& arrival : telegram_.arrivals()) n += arrival.body["chat_id"] == chat;
    return n;
  }

  FakeTelegram telegram_{[](const nlohmann::json& body) {
    if (body["chat_id"] == kBlockedChat)
      return BotError(403, "Forbidden: bot was blocked by the user");
    return BotOk(7);
  }};
};

TEST_F(AdminDeliveryTest, BlockedAdminFailsAloneAndTheOtherReceivesExactlyOnce) {
  AddUser(1, true, kBlockedChat);
  AddUser(2, true, kReadingChat);
  net::HttpClient http;
  channels::telegram::TelegramChannel telegram(Settings(), http, clock_);
  core::MetricsRegistry worker_metrics;
  delivery::Worker worker(*pool_, delivery::ChannelSet::AllTo(telegram), clock_, worker_metrics);
  ScriptedSource source;
  Runner runner(*pool_, testing::DocumentJobs(), source, clock_, metrics_);

  // Ticks every minute through the day, the worker draining after each.
  int reports = 0;
  for (int tick = 0; tick < 30; ++tick) {
    reports += runner.RunOnce().ran.has_value();
    while (worker.RunOnce().claimed > 0) {
    }
    clock_.Advance(minutes(1));
  }
  EXPECT_EQ(reports, 1);
  EXPECT_EQ(ArrivalsFor(kReadingChat), 1);
  EXPECT_EQ(ArrivalsFor(kBlockedChat), 1);
  EXPECT_EQ(db_->Scalar("SELECT string_agg(n.user_id || ':' || d.status, ',' ORDER BY n.user_id) "
                        "FROM chopar.deliveries d JOIN chopar.notifications n "
                        "ON n.id = d.notification_id"),
            "1:failed,2:sent");
  EXPECT_EQ(db_->Scalar("SELECT active::text FROM chopar.telegram_connections WHERE user_id = 1"),
            "false");
  // The message is the report, in Telegram's HTML mode.
  const auto sent = telegram_.arrivals();
  ASSERT_FALSE(sent.empty());
  EXPECT_EQ(sent[0].body["parse_mode"], "HTML");
  EXPECT_EQ(sent[0].body["text"], "<b>Haftalik hisobot: 2026-W33</b>\nweekly weekly:2026-W33");

  // A restart of both loops changes nothing.
  Runner restarted(*pool_, testing::DocumentJobs(), source, clock_, metrics_);
  EXPECT_FALSE(restarted.RunOnce().ran);
  EXPECT_EQ(worker.RunOnce().claimed, 0);
  EXPECT_EQ(telegram_.arrivals().size(), 2u);
}

}  // namespace
}  // namespace chopar::reports
