#include "http/stream_hub.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

#include "http/inbox_listener.hpp"

namespace chopar::http {
namespace {

class CountingStream final : public Wakeable {
 public:
  void Wake() override { wakes.fetch_add(1); }
  std::atomic<int> wakes{0};
};

// A new CountingStream of `user`'s, added to `hub`; the caller holds the
// only strong reference (the hub keeps a weak one).
std::shared_ptr<CountingStream> AddCounting(StreamHub& hub, std::int64_t user) {
  auto stream = std::make_shared<CountingStream>();
  hub.Add(user, stream);
  return stream;
}

TEST(StreamHubTest, WakesOnlyTheNamedUsers) {
  StreamHub hub;
  auto a1 = AddCounting(hub, 1);
  auto a2 = AddCounting(hub, 1);
  auto b = AddCounting(hub, 2);
  hub.WakeUsers({1, 3});
  EXPECT_EQ(a1->wakes, 1);
  EXPECT_EQ(a2->wakes, 1);
  EXPECT_EQ(b->wakes, 0);
  hub.WakeAll();
  EXPECT_EQ(a1->wakes, 2);
  EXPECT_EQ(b->wakes, 1);
}

TEST(StreamHubTest, RemovedAndExpiredStreamsAreNotWoken) {
  StreamHub hub;
  auto kept = AddCounting(hub, 1);
  auto removed = AddCounting(hub, 1);
  auto expired = AddCounting(hub, 1);
  hub.Remove(1, removed.get());
  expired.reset();
  hub.WakeUsers({1});
  EXPECT_EQ(kept->wakes, 1);
  EXPECT_EQ(removed->wakes, 0);
  EXPECT_EQ(hub.size(), 1u) << "the expired stream is forgotten";
  hub.Remove(1, kept.get());
  EXPECT_EQ(hub.size(), 0u);
  hub.Remove(5, kept.get());  // unknown user: no-op
}

// A stream whose last owner is the hub's wake-up list is destroyed outside
// the hub's lock, so its destructor may call Remove().
class SelfRemovingStream final : public Wakeable {
 public:
  explicit SelfRemovingStream(StreamHub& hub) : hub_(hub) {}
  ~SelfRemovingStream() override { hub_.Remove(1, this); }
  void Wake() override {}

 private:
  StreamHub& hub_;
};

TEST(StreamHubTest, StreamMayRemoveItselfWhileBeingWoken) {
  StreamHub hub;
  std::atomic<bool> done{false};
  std::thread waker([&] {
    while (!done) hub.WakeAll();
  });
  for (int i = 0; i < 2000; ++i) {
    auto stream = std::make_shared<SelfRemovingStream>(hub);
    hub.Add(1, stream);
  }
  done = true;
  waker.join();
  EXPECT_EQ(hub.size(), 0u);
}

TEST(InboxPayloadTest, ParsesUserIdsAndStar) {
  auto wake = ParseInboxPayload("1,22, 333");
  EXPECT_FALSE(wake.all);
  EXPECT_EQ(wake.user_ids, (std::vector<std::int64_t>{1, 22, 333}));
  wake = ParseInboxPayload("*");
  EXPECT_TRUE(wake.all);
  wake = ParseInboxPayload("");
  EXPECT_FALSE(wake.all);
  EXPECT_TRUE(wake.user_ids.empty());
  wake = ParseInboxPayload("x,0,-4,5,,7x");
  EXPECT_EQ(wake.user_ids, (std::vector<std::int64_t>{5}));
  EXPECT_TRUE(wake.ranges.empty());
}

TEST(InboxPayloadTest, ParsesRanges) {
  const auto wake = ParseInboxPayload("3,100-2099,7-7,9-8,0-5,4-x,-");
  EXPECT_EQ(wake.user_ids, (std::vector<std::int64_t>{3}));
  EXPECT_EQ(wake.ranges, (std::vector<std::pair<std::int64_t, std::int64_t>>{{100, 2099}, {7, 7}}));
}

TEST(StreamHubTest, WakesTheUsersOfARange) {
  StreamHub hub;
  auto below = AddCounting(hub, 99);
  auto low = AddCounting(hub, 100);
  auto high = AddCounting(hub, 2099);
  auto above = AddCounting(hub, 2100);
  hub.WakeRange(100, 2099);
  EXPECT_EQ(below->wakes, 0);
  EXPECT_EQ(low->wakes, 1);
  EXPECT_EQ(high->wakes, 1);
  EXPECT_EQ(above->wakes, 0);
}

}  // namespace
}  // namespace chopar::http
