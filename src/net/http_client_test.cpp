#include "net/http_client.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "testing/fake_http_server.hpp"
#include "testing/silent_server.hpp"

namespace chopar::net {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::FakeHttpServer;
using testing::SilentServer;

// Wed, 28 Oct 2026 13:05:00 GMT.
const std::chrono::system_clock::time_point kNow =
    std::chrono::sys_days{std::chrono::year{2026} / 10 / 28} + std::chrono::hours(13) +
    std::chrono::minutes(5);

TEST(ParseRetryAfterTest, DeltaSecondsAreTheDelay) {
  EXPECT_EQ(ParseRetryAfter("120", kNow), seconds(120));
  EXPECT_EQ(ParseRetryAfter("0", kNow), seconds(0));
}

TEST(ParseRetryAfterTest, HttpDateCountsFromTheGivenNow) {
  EXPECT_EQ(ParseRetryAfter("Wed, 28 Oct 2026 13:06:30 GMT", kNow), seconds(90));
  EXPECT_EQ(ParseRetryAfter("Wed, 28 Oct 2026 13:06:30 GMT", kNow + seconds(60)), seconds(30));
}

TEST(ParseRetryAfterTest, HttpDateAlreadyPassedIsNoDelay) {
  EXPECT_EQ(ParseRetryAfter("Wed, 28 Oct 2026 13:04:00 GMT", kNow), seconds(0));
}

TEST(ParseRetryAfterTest, FarFutureValuesAreClampedToADayNotOverflowed) {
  EXPECT_EQ(ParseRetryAfter("Fri, 31 Dec 9999 23:59:59 GMT", kNow), core::kLongestRetryAfter);
  EXPECT_EQ(ParseRetryAfter("99999999999999999999999", kNow), core::kLongestRetryAfter);
  EXPECT_EQ(ParseRetryAfter("0000000000120", kNow), seconds(120));
  EXPECT_EQ(ParseRetryAfter("Thu, 29 Oct 2026 13:05:00 GMT", kNow), std::chrono::hours(24));
}

TEST(ParseRetryAfterTest, EmptyOrUnparsableIsNone) {
  EXPECT_EQ(ParseRetryAfter("", kNow), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("soon", kNow), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("-5", kNow), std::nullopt);
}

TEST(InFlightLimitTest, HandsOutAtMostItsCapacityAndTakesSlotsBack) {
  InFlightLimit limit(2);
  EXPECT_TRUE(limit.TryAcquire());
  EXPECT_TRUE(limit.TryAcquire());
  EXPECT_FALSE(limit.TryAcquire());
  EXPECT_EQ(limit.in_use(), 2u);
  EXPECT_FALSE(limit.WaitForFree(milliseconds(10)));
  limit.Release();
  EXPECT_TRUE(limit.WaitForFree(milliseconds(0)));
  EXPECT_TRUE(limit.TryAcquire());
  EXPECT_THROW(InFlightLimit(0), std::invalid_argument);
}

TEST(InFlightLimitTest, AWaiterWakesWhenAnotherThreadReleases) {
  InFlightLimit limit(1);
  ASSERT_TRUE(limit.TryAcquire());
  std::thread releaser([&] {
    std::this_thread::sleep_for(milliseconds(50));
    limit.Release();
  });
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(limit.WaitForFree(seconds(10)));
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(5)) << "woken, not timed out";
  releaser.join();
}

// A receiver that counts the requests it is handling at once.
class ConcurrencyCounter {
 public:
  explicit ConcurrencyCounter(milliseconds latency) : latency_(latency) {}
  FakeHttpServer::Response Handle() {
    const int now = ++in_flight_;
    int seen = most_.load();
    while (now > seen && !most_.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(latency_);  // the receiver's work, overlapping as in a real one
    --in_flight_;
    return {200, "ok", {}, "text/plain"};
  }
  [[nodiscard]] int most() const { return most_.load(); }

 private:
  const milliseconds latency_;
  std::atomic<int> in_flight_{0};
  std::atomic<int> most_{0};
};

std::vector<HttpRequest> Posts(const std::string& url, int count, milliseconds timeout) {
  std::vector<HttpRequest> requests(static_cast<std::size_t>(count));
  for (auto& request : requests) {
    request.url = url;
    request.body = "{}";
    request.timeout = timeout;
  }
  return requests;
}

TEST(HttpClientLimitTest, TwoThreadsSharingALimitNeverHaveMoreInFlightThanItAllows) {
  ConcurrencyCounter counter(milliseconds(30));
  FakeHttpServer server([&](const FakeHttpServer::Request&) { return counter.Handle(); });
  HttpClient http;
  InFlightLimit limit(3);
  const auto requests = Posts(server.url() + "/hook", 15, seconds(10));
  std::vector<HttpResponse> first, second;
  std::thread other([&] { second = http.PerformAll(requests, &limit); });
  first = http.PerformAll(requests, &limit);
  other.join();

  for (const auto* responses : {&first, &second}) {
    ASSERT_EQ(responses->size(), requests.size());
    for (const HttpResponse& r : *responses)
      EXPECT_TRUE(r.ok()) << r.status << " " << r.error_message;
  }
  EXPECT_EQ(server.request_count(), 30u);
  EXPECT_LE(counter.most(), 3);
  EXPECT_GE(counter.most(), 2) << "the slots are used side by side";
  EXPECT_EQ(limit.in_use(), 0u) << "every slot given back";
}

TEST(HttpClientLimitTest, ConnectionsAreKeptAliveAndReusedWithinTheLimit) {
  FakeHttpServer server([](const FakeHttpServer::Request&) {
    return FakeHttpServer::Response{200, "ok", {}, "text/plain", milliseconds(10)};
  });
  HttpClient http;
  InFlightLimit limit(2);
  const auto requests = Posts(server.url() + "/hook", 10, seconds(10));
  for (int call = 0; call < 2; ++call) {
    for (const HttpResponse& r : http.PerformAll(requests, &limit)) EXPECT_TRUE(r.ok());
  }
  EXPECT_EQ(server.request_count(), 20u);
  EXPECT_LE(server.connection_count(), 2u) << "20 requests over at most 2 kept-alive connections";
}

// A webhook flood: a request queued behind the others had its
// timeout running while it waited, and timed out at a receiver that had
// taken it. Here the third request waits about 800 ms for its slot, longer
// than its 600 ms timeout, and still gets its answer.
TEST(HttpClientLimitTest, ARequestThatWaitedForASlotLongerThanItsTimeoutStillSucceeds) {
  FakeHttpServer server([](const FakeHttpServer::Request&) {
    return FakeHttpServer::Response{200, "ok", {}, "text/plain", milliseconds(400)};
  });
  HttpClient http;
  InFlightLimit limit(1);
  const auto requests = Posts(server.url() + "/hook", 3, milliseconds(600));
  const auto start = std::chrono::steady_clock::now();
  const auto responses = http.PerformAll(requests, &limit);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(responses.size(), 3u);
  for (const HttpResponse& r : responses) {
    EXPECT_TRUE(r.ok()) << r.status << " " << r.error_message;
  }
  EXPECT_GE(elapsed, milliseconds(1200)) << "one at a time";
  EXPECT_EQ(server.request_count(), 3u) << "each sent once";
}

TEST(HttpClientLimitTest, AStalledRequestHoldsOnlyItsOwnSlot) {
  SilentServer silent;
  FakeHttpServer server([](const FakeHttpServer::Request&) {
    return FakeHttpServer::Response{200, "ok", {}, "text/plain"};
  });
  HttpClient http;
  InFlightLimit limit(2);
  std::vector<HttpRequest> requests = Posts(server.url() + "/hook", 7, milliseconds(1500));
  requests[0].url = silent.url() + "/hook";  // never answers
  const auto start = std::chrono::system_clock::now();
  const auto responses = http.PerformAll(requests, &limit);

  EXPECT_EQ(responses[0].error, CURLE_OPERATION_TIMEDOUT);
  for (std::size_t i = 1; i < responses.size(); ++i) {
    EXPECT_TRUE(responses[i].ok()) << i << ": " << responses[i].error_message;
  }
  ASSERT_EQ(server.request_count(), 6u);
  for (const auto& request : server.requests()) {
    EXPECT_LT(request.received_at - start, milliseconds(1000))
        << "sent beside the stalled one, not after its timeout";
  }
}

TEST(HttpClientLimitTest, ARequestStillWaitingAtItsStartByIsGivenUpUnsent) {
  SilentServer silent;
  FakeHttpServer server([](const FakeHttpServer::Request&) {
    return FakeHttpServer::Response{200, "ok", {}, "text/plain"};
  });
  HttpClient http;
  InFlightLimit limit(1);
  std::vector<HttpRequest> requests = Posts(server.url() + "/hook", 2, milliseconds(1000));
  requests[0].url = silent.url() + "/hook";  // holds the only slot for its whole timeout
  requests[1].start_by = std::chrono::steady_clock::now() + milliseconds(300);
  const auto start = std::chrono::steady_clock::now();
  const auto responses = http.PerformAll(requests, &limit);

  EXPECT_EQ(responses[0].error, CURLE_OPERATION_TIMEDOUT);
  EXPECT_FALSE(responses[0].not_started);
  EXPECT_TRUE(responses[1].not_started);
  EXPECT_FALSE(responses[1].request_sent);
  EXPECT_EQ(responses[1].error, CURLE_OPERATION_TIMEDOUT);
  EXPECT_EQ(server.request_count(), 0u) << "never sent";
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(3000));
  EXPECT_EQ(limit.in_use(), 0u);
}

// Also with a fresh client over plain http://: no request waits for the
// first answer to learn that the connection does not multiplex (PIPEWAIT),
// which would run its timeout while it waited.
TEST(HttpClientLimitTest, WithoutALimitTheRequestsOfACallAllStartAtOnce) {
  ConcurrencyCounter counter(milliseconds(300));
  FakeHttpServer server([&](const FakeHttpServer::Request&) { return counter.Handle(); });
  HttpClient http;
  for (const HttpResponse& r : http.PerformAll(Posts(server.url() + "/hook", 8, seconds(10)))) {
    EXPECT_TRUE(r.ok());
  }
  EXPECT_EQ(counter.most(), 8);
}

// on_finished hands over each answer as it comes: the answered requests are
// reported (final) while the silent one is still out, each index once.
TEST(HttpClientFinishedTest, EachRequestIsReportedWhenItEndsNotWhenTheCallEnds) {
  SilentServer silent;
  FakeHttpServer server([](const FakeHttpServer::Request&) {
    return FakeHttpServer::Response{200, "ok", {}, "text/plain"};
  });
  HttpClient http;
  InFlightLimit limit(4);
  std::vector<HttpRequest> requests = Posts(server.url() + "/hook", 5, milliseconds(2000));
  requests[2].url = silent.url() + "/hook";  // never answers
  std::vector<int> times_reported(requests.size(), 0);
  std::size_t reported_before_the_silent_one = 0;
  bool answers_were_final = true;
  const auto responses = http.PerformAll(
      requests, &limit,
      [&](std::span<const std::size_t> finished, std::span<const HttpResponse> answers) {
        for (const std::size_t i : finished) {
          ++times_reported.at(i);
          if (i != 2) answers_were_final = answers_were_final && answers[i].ok();
        }
        if (times_reported[2] == 0) {
          reported_before_the_silent_one = static_cast<std::size_t>(
              std::count(times_reported.begin(), times_reported.end(), 1));
        }
      });

  EXPECT_EQ(times_reported, std::vector<int>(requests.size(), 1));
  EXPECT_EQ(reported_before_the_silent_one, 4u);
  EXPECT_TRUE(answers_were_final);
  EXPECT_EQ(responses[2].error, CURLE_OPERATION_TIMEDOUT);
  EXPECT_EQ(limit.in_use(), 0u);
}

// A request given up unstarted at its start_by is reported too.
TEST(HttpClientFinishedTest, ARequestGivenUpUnstartedIsReported) {
  SilentServer silent;
  HttpClient http;
  InFlightLimit limit(1);
  std::vector<HttpRequest> requests = Posts(silent.url() + "/hook", 2, milliseconds(800));
  requests[1].start_by = std::chrono::steady_clock::now() + milliseconds(100);
  std::vector<std::size_t> order;
  http.PerformAll(requests, &limit,
                  [&](std::span<const std::size_t> finished, std::span<const HttpResponse>) {
                    order.insert(order.end(), finished.begin(), finished.end());
                  });
  EXPECT_EQ(order, (std::vector<std::size_t>{1, 0})) << "the unstarted one first, long before";
}

// An on_finished that throws ends the call with its exception; the
// transfers still out are abandoned cleanly (their slots given back) and
// the client still works.
TEST(HttpClientFinishedTest, AThrowingCallbackAbandonsTheRestAndTheClientStillWorks) {
  SilentServer silent;
  FakeHttpServer server([](const FakeHttpServer::Request&) {
    return FakeHttpServer::Response{200, "ok", {}, "text/plain"};
  });
  HttpClient http;
  InFlightLimit limit(4);
  std::vector<HttpRequest> requests = Posts(server.url() + "/hook", 3, seconds(30));
  requests[0].url = silent.url() + "/hook";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(http.PerformAll(requests, &limit,
                               [](std::span<const std::size_t>, std::span<const HttpResponse>) {
                                 throw std::runtime_error("the database went away");
                               }),
               std::runtime_error);
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(20)) << "not held by the silent one";
  EXPECT_EQ(limit.in_use(), 0u);
  EXPECT_TRUE(http.Perform(Posts(server.url() + "/again", 1, seconds(10)).front(), &limit).ok());
}

}  // namespace
}  // namespace chopar::net
