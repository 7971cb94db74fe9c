// The sink records its messages inside the worker's claim transaction: one
// write per delivery (queued → sent), no lease, and the same guarantees as
// the leased path (exactly once, the hourly limit, quiet hours).

#include <gtest/gtest.h>

#include "channels/sink_channel.hpp"
#include "delivery/claim.hpp"
#include "delivery/test_fixture.hpp"
#include "delivery/test_support.hpp"
#include "delivery/worker.hpp"

namespace chopar::delivery {
namespace {

class SendInClaimTest : public testing::DeliveryPgTest {
 protected:
  void SetUp() override {
    DeliveryPgTest::SetUp();
    if (IsSkipped()) return;
    pool_.emplace(db_->url(), 4);
    sink_.emplace(*pool_);
  }

  ChannelSet Sinks() { return ChannelSet::AllTo(*sink_); }

  void DrainWith(int workers, const WorkerSettings& settings) {
    testing::DrainConcurrently(db_->url(), workers, Sinks(), clock_, settings);
  }

  std::optional<db::Pool> pool_;
  std::optional<channels::SinkChannel> sink_;
};

TEST_F(SendInClaimTest, SinkDeliveryIsSentByTheClaimItself) {
  AddUser(1);
  const auto ids = Notify(1, {"email"});
  WorkerSettings settings;

  const ClaimResult claim = ClaimBatch(*pool_, clock_.Now(), settings, Sinks());

  EXPECT_TRUE(claim.to_send.empty()) << "nothing is left to send after the claim";
  EXPECT_EQ(claim.sent[core::ChannelKind::kEmail], 1);
  ASSERT_EQ(claim.sent_latency.size(), 1u);
  EXPECT_EQ(Field(ids[0], "status"), "sent");
  EXPECT_EQ(Field(ids[0], "attempts"), "1");
  EXPECT_EQ(Field(ids[0], "claim_token"), "");
  EXPECT_EQ(Field(ids[0], "lease_until"), "");
  EXPECT_EQ(TimeField(ids[0], "sent_at"), clock_.Now());
  EXPECT_EQ(TimeField(ids[0], "claimed_at"), clock_.Now());
  EXPECT_EQ(
      Count("SELECT count(*) FROM sink_messages WHERE delivery_id = " + std::to_string(ids[0]) +
            " AND address = 'u@example.uz' AND subject = 'Task due'"),
      1);
}

TEST_F(SendInClaimTest, WorkerCountsSinkSendsAsSent) {
  AddUser(1);
  Notify(1, {"email"});
  Notify(1, {"email"});
  Worker worker(*pool_, Sinks(), clock_, metrics_, WorkerSettings{});

  const RunStats stats = worker.RunOnce();

  EXPECT_EQ(stats.claimed, 2);
  EXPECT_EQ(stats.sent, 2);
  EXPECT_EQ(worker.RunOnce().claimed, 0);
}

TEST_F(SendInClaimTest, FailingSinkInsertRollsTheWholeClaimBack) {
  AddUser(1);
  const auto ids = Notify(1, {"email"});
  // The sink's insert now violates a constraint: the claim must not commit
  // a delivery as sent without its message.
  Sql("ALTER TABLE sink_messages ADD CONSTRAINT no_messages CHECK (false) NOT VALID");

  EXPECT_ANY_THROW(ClaimBatch(*pool_, clock_.Now(), WorkerSettings{}, Sinks()));

  EXPECT_EQ(Field(ids[0], "status"), "queued");
  EXPECT_EQ(Field(ids[0], "attempts"), "0");
  EXPECT_EQ(Count("SELECT count(*) FROM sink_messages"), 0);
}

TEST_F(SendInClaimTest, MissingAddressStillFailsPermanently) {
  AddUser(1);  // an email address only
  const auto ids = Notify(1, {"sms"});
  Worker worker(*pool_, Sinks(), clock_, metrics_, WorkerSettings{});

  EXPECT_EQ(worker.RunOnce().failed, 1);
  EXPECT_EQ(Field(ids[0], "status"), "failed");
  EXPECT_EQ(Field(ids[0], "last_error"), "no phone number");
  EXPECT_EQ(Count("SELECT count(*) FROM sink_messages"), 0);
}

TEST_F(SendInClaimTest, QuietHoursDeferTheSinkToo) {
  // 14:00 in Tashkent, inside 13:00–15:00.
  AddUser(1, "email, timezone, quiet_start, quiet_end",
          "'u@example.uz', 'Asia/Tashkent', '13:00', '15:00'");
  const auto ids = Notify(1, {"email"});
  Worker worker(*pool_, Sinks(), clock_, metrics_, WorkerSettings{});

  EXPECT_EQ(worker.RunOnce().deferred, 1);
  EXPECT_EQ(Field(ids[0], "status"), "queued");
  EXPECT_EQ(Count("SELECT count(*) FROM sink_messages"), 0);
}

TEST_F(SendInClaimTest, FourWorkersSendEveryDeliveryExactlyOnce) {
  constexpr int kUsers = 500, kPerUser = 8, kTotal = kUsers * kPerUser;
  Sql("INSERT INTO users (id, email) SELECT g, 'u' || g || '@example.uz' FROM generate_series(1, " +
      std::to_string(kUsers) + ") g");
  for (int user = 1; user <= kUsers; ++user) {
    for (int i = 0; i < kPerUser; ++i) Notify(user, {"email"});
  }
  WorkerSettings settings;
  settings.hourly_limits = {1'000'000, 1'000'000, 1'000'000, 1'000'000};
  settings.batch = 50;  // many claims, so the four workers interleave

  DrainWith(4, settings);

  EXPECT_EQ(CountStatus("sent"), kTotal);
  EXPECT_EQ(Count("SELECT count(*) FROM sink_messages"), kTotal);
  EXPECT_EQ(Count("SELECT count(DISTINCT delivery_id) FROM sink_messages"), kTotal);
  EXPECT_EQ(Count("SELECT count(*) FROM deliveries WHERE attempts <> 1"), 0);
}

TEST_F(SendInClaimTest, HourlyLimitHoldsAcrossFourWorkers) {
  AddUser(1, "phone", "'+998901234567'");
  for (int i = 0; i < 100; ++i) Notify(1, {"sms"});
  WorkerSettings settings;  // sms: 3 an hour
  settings.batch = 2;

  DrainWith(4, settings);

  EXPECT_EQ(CountStatus("sent"), 3);
  EXPECT_EQ(CountStatus("skipped"), 97);
  EXPECT_EQ(Count("SELECT count(*) FROM sink_messages"), 3);
}

}  // namespace
}  // namespace chopar::delivery
