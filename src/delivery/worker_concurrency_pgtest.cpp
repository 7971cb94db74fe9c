// The delivery worker under real concurrency: threads, separate pools,
// another process killed while holding claims, and a slow provider.

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "channels/sink_channel.hpp"
#include "delivery/test_fixture.hpp"
#include "delivery/test_support.hpp"
#include "delivery/worker.hpp"

namespace chopar::delivery {
namespace {

using std::chrono::seconds;
using testing::CountingChannel;
using testing::DrainConcurrently;
using testing::TestChannel;

class ConcurrencyTest : public testing::DeliveryPgTest {
 protected:
  // `users` users with an email address, and `per_user` notifications each
  // with one email delivery, all due now.
  void QueueEmails(int users, int per_user) {
    const std::string now = "'" + core::FormatRfc3339Micros(clock_.Now()) + "'::timestamptz";
    Sql("INSERT INTO users (id, email) SELECT g, 'u' || g || '@example.uz' FROM "
        "generate_series(1, " +
        std::to_string(users) + ") g");
    Sql("INSERT INTO notifications (user_id, type, title, created_at) SELECT (g % " +
        std::to_string(users) + ") + 1, 'task.due', 'n' || g, " + now +
        " FROM generate_series(1, " + std::to_string(users * per_user) + ") g");
    Sql("INSERT INTO deliveries (notification_id, user_id, channel, next_attempt_at, created_at, "
        "updated_at) "
        "SELECT id, user_id, 'email', " +
        now + ", " + now + ", " + now + " FROM notifications");
  }

  // Four workers of two loops each, on pools of their own, drain the
  // `total` queued deliveries: each handed to the channel once.
  void ExpectFourWorkersSendEachOnce(int total) {
    db::Pool sink_pool(db_->url(), 8);
    channels::SinkChannel sink(sink_pool);
    CountingChannel counting(sink);
    WorkerSettings settings = Unlimited();
    settings.concurrency = 2;
    std::vector<std::unique_ptr<db::Pool>> pools;
    std::vector<std::unique_ptr<Worker>> workers;
    for (int i = 0; i < 4; ++i) {
      pools.push_back(std::make_unique<db::Pool>(db_->url(), 3));
      workers.push_back(std::make_unique<Worker>(*pools.back(), ChannelSet::AllTo(counting), clock_,
                                                 metrics_, settings));
    }
    for (auto& worker : workers) worker->Start();

    EXPECT_TRUE(counting.WaitForCount(total, seconds(50)));
    for (auto& worker : workers) worker->Stop(std::chrono::seconds(30));

    EXPECT_EQ(counting.count(), static_cast<std::size_t>(total)) << "no message handed over twice";
    EXPECT_EQ(CountStatus("sent"), total);
    EXPECT_EQ(Count("SELECT count(*) FROM sink_messages"), total);
    EXPECT_EQ(Count("SELECT count(DISTINCT delivery_id) FROM sink_messages"), total);
    EXPECT_EQ(Count("SELECT count(*) FROM deliveries WHERE attempts <> 1"), 0);
  }

  static WorkerSettings Unlimited() {
    WorkerSettings settings;
    settings.hourly_limits = {1'000'000, 1'000'000, 1'000'000, 1'000'000};
    settings.poll_interval = std::chrono::milliseconds(50);
    return settings;
  }
};

TEST_F(ConcurrencyTest, FourWorkersDeliverTwentyThousandExactlyOnce) {
  constexpr int kTotal = 20'000;
  QueueEmails(2'000, 10);
  ExpectFourWorkersSendEachOnce(kTotal);
}

// Half of them a broadcast's (bulk): the claims take the ordinary rows and
// then the bulk ones in one statement, each part skipping what the other
// workers hold.
TEST_F(ConcurrencyTest, FourWorkersDeliverABroadcastBesideOrdinaryRowsExactlyOnce) {
  constexpr int kTotal = 20'000;
  QueueEmails(2'000, 10);
  Sql("UPDATE deliveries SET bulk = true WHERE id % 2 = 0");
  ExpectFourWorkersSendEachOnce(kTotal);
}

TEST_F(ConcurrencyTest, HundredSmsForOneUserAcrossFourWorkersSendExactlyTheLimit) {
  AddUser(1, "phone", "'+998901234567'");
  for (int i = 0; i < 100; ++i) Notify(1, {"sms"});
  TestChannel channel;
  WorkerSettings settings;  // sms: 3 an hour
  settings.batch = 2;       // many small claims, so the workers interleave
  DrainConcurrently(db_->url(), 4, ChannelSet::AllTo(channel), clock_, settings);

  EXPECT_EQ(CountStatus("sent"), 3);
  EXPECT_EQ(CountStatus("skipped"), 97);
  EXPECT_EQ(Count("SELECT count(*) FROM deliveries WHERE last_error = 'hourly limit 3'"), 97);
  EXPECT_EQ(channel.count(), 3u);
}

// Blocks forever inside Send() after telling the parent how many messages it holds.
class BlockForeverChannel final : public channels::Channel {
 public:
  explicit BlockForeverChannel(int fd) : fd_(fd) {}
  std::vector<channels::Outcome> Send(std::span<const channels::Message> messages) override {
    const auto held = static_cast<std::uint32_t>(messages.size());
    if (write(fd_, &held, sizeof held) != sizeof held) _exit(3);
    for (;;) pause();
  }
  [[nodiscard]] std::string_view ProviderName() const override { return "block"; }

 private:
  int fd_;
};

TEST_F(ConcurrencyTest, KilledWorkerProcessesClaimsAreSentOnceByAnotherUnlessTheirSendHadStarted) {
  constexpr int kCount = 50;
  QueueEmails(kCount, 1);
  // Each notification also goes to Telegram: the claim holds both, and the
  // worker gets to Telegram only after the email batch.
  const std::string now = "'" + core::FormatRfc3339Micros(clock_.Now()) + "'::timestamptz";
  Sql("INSERT INTO telegram_connections (user_id, chat_id) SELECT id, 1000 + id FROM users");
  Sql("INSERT INTO deliveries (notification_id, user_id, channel, next_attempt_at, created_at, "
      "updated_at) SELECT id, user_id, 'telegram', " +
      now + ", " + now + ", " + now + " FROM notifications");
  WorkerSettings settings;
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const std::string url = db_->url();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child never returns into the test framework.
    close(fds[0]);
    try {
      db::Pool pool(url, 2);
      BlockForeverChannel channel(fds[1]);
      core::SimulatedClock child_clock(T0());
      core::MetricsRegistry child_metrics;
      Worker worker(pool, ChannelSet::AllTo(channel), child_clock, child_metrics, settings);
      (void)worker.RunOnce();
    } catch (...) {
    }
    _exit(2);
  }
  close(fds[1]);
  std::uint32_t held = 0;
  pollfd readable{fds[0], POLLIN, 0};
  ASSERT_EQ(poll(&readable, 1, 30'000), 1) << "the child never reached Send()";
  ASSERT_EQ(read(fds[0], &held, sizeof held), static_cast<ssize_t>(sizeof held));
  close(fds[0]);
  ASSERT_EQ(held, static_cast<std::uint32_t>(kCount)) << "the email batch";
  EXPECT_EQ(CountStatus("sending"), 2 * kCount);

  ASSERT_EQ(kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

  channels::SinkChannel sink(*pool_);
  Worker survivor(*pool_, ChannelSet::AllTo(sink), clock_, metrics_, settings);
  EXPECT_EQ(survivor.RunOnce().claimed, 0) << "the dead process's leases still hold";
  clock_.Advance(settings.lease + seconds(1));
  const RunStats taken = survivor.RunOnce();
  EXPECT_EQ(taken.sent, kCount);
  EXPECT_EQ(taken.failed, kCount);

  // Telegram: never handed to a provider, so sent now, once.
  EXPECT_EQ(Count("SELECT count(*) FROM deliveries WHERE channel = 'telegram' AND status = 'sent' "
                  "AND attempts = 2"),
            kCount);
  EXPECT_EQ(Count("SELECT count(DISTINCT s.delivery_id) FROM sink_messages s JOIN deliveries d "
                  "ON d.id = s.delivery_id WHERE d.channel = 'telegram'"),
            kCount);
  // Email: the dead process had handed them over; the provider may have them.
  EXPECT_EQ(Count("SELECT count(*) FROM deliveries WHERE channel = 'email' AND status = 'failed' "
                  "AND last_error LIKE 'outcome unknown:%'"),
            kCount);
  EXPECT_EQ(Count("SELECT count(*) FROM sink_messages"), kCount);
}

TEST_F(ConcurrencyTest, SlowChannelHoldsNoPooledConnectionWhileSending) {
  constexpr int kCount = 50;
  QueueEmails(kCount, 1);
  db::Pool worker_pool(db_->url(), 4, seconds(2));
  // Slow as a provider can be: every batch waits inside Send() until released.
  TestChannel slow;
  slow.Block();
  WorkerSettings settings = Unlimited();
  settings.concurrency = 4;
  settings.batch = 13;  // 50 rows need all four loops: 13 + 13 + 13 + 11
  Worker worker(worker_pool, ChannelSet::AllTo(slow), clock_, metrics_, settings);
  worker.Start();
  ASSERT_TRUE(slow.WaitForEntered(kCount));

  // Every loop is inside Send(), and none holds a connection.
  EXPECT_EQ(slow.batches(), 4);
  EXPECT_EQ(worker_pool.InUse(), 0);
  {
    std::vector<db::Transaction> transactions;
    transactions.reserve(4);
    for (int i = 0; i < 4; ++i) {
      transactions.push_back(worker_pool.Begin("probe"));
      EXPECT_EQ(transactions.back()
                    .ExecText("SELECT count(*) FROM deliveries WHERE status = 'sending'")
                    .Int(0, 0),
                kCount);
    }
  }

  slow.Unblock();
  worker.Stop(seconds(30));
  EXPECT_EQ(CountStatus("sent"), kCount);
}

}  // namespace
}  // namespace chopar::delivery
