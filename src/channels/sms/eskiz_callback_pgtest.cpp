#include "channels/sms/eskiz_callback.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "core/request_error.hpp"
#include "testing/test_database.hpp"

namespace chopar::channels::sms {
namespace {

class EskizCallbackTest : public testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    if (!db_) return;
    db_->Scalar("INSERT INTO users (id, phone) VALUES (7, '+998901234567')");
    delivery_ = NewDelivery("sms-1");
  }

  std::string NewDelivery(const std::string& provider_id) {
    const std::string notification =
        db_->Scalar("INSERT INTO notifications (user_id, type, title) VALUES (7, 'task.due', 'Vazifa') RETURNING id");
    return db_->Scalar("INSERT INTO deliveries (notification_id, user_id, channel, provider_message_id) VALUES (" +
                       notification + ", 7, 'sms', '" + provider_id + "') RETURNING id");
  }
  std::string StatusOf(const std::string& delivery) {
    return db_->Scalar("SELECT coalesce(provider_status, '<null>') FROM deliveries WHERE id = " + delivery);
  }

  core::SimulatedClock clock_{core::TimePoint{std::chrono::seconds(1748944800)}};
  std::string delivery_;
};

TEST_F(EskizCallbackTest, RecordsTheFinalStatusOnce) {
  const std::string report =
      R"({"request_id":"sms-1","message_id":"4385062","user_sms_id":"","country":"UZ",)"
      R"("phone_number":"998901234567","sms_count":"1","status":"DELIVRD","status_date":"2025-06-03 15:00:02"})";
  const auto first = RecordEskizCallback(*pool_, report, clock_);
  EXPECT_TRUE(first.final);
  EXPECT_TRUE(first.matched);
  EXPECT_TRUE(first.changed);
  EXPECT_EQ(first.provider_message_id, "sms-1");
  EXPECT_EQ(StatusOf(delivery_), "DELIVRD");
  EXPECT_EQ(db_->Scalar("SELECT updated_at = '2025-06-03T10:00:00Z' FROM deliveries WHERE id = " + delivery_), "t");

  // Eskiz repeats reports it thinks were lost: nothing changes.
  clock_.Advance(std::chrono::hours(1));
  const auto repeat = RecordEskizCallback(*pool_, report, clock_);
  EXPECT_TRUE(repeat.matched);
  EXPECT_FALSE(repeat.changed);
  EXPECT_EQ(db_->Scalar("SELECT updated_at = '2025-06-03T10:00:00Z' FROM deliveries WHERE id = " + delivery_), "t");

  // A different final status later does not overwrite the first.
  const auto late = RecordEskizCallback(*pool_, R"({"request_id":"sms-1","status":"EXPIRED"})", clock_);
  EXPECT_FALSE(late.changed);
  EXPECT_EQ(StatusOf(delivery_), "DELIVRD");
}

TEST_F(EskizCallbackTest, AcceptsFormBodies) {
  const std::string second = NewDelivery("sms-2");
  EXPECT_TRUE(RecordEskizCallback(*pool_, "request_id=sms-1&status=UNDELIV&phone_number=998901234567", clock_).changed);
  EXPECT_EQ(StatusOf(delivery_), "UNDELIV");
  const std::string multipart =
      "--b0undary\r\nContent-Disposition: form-data; name=\"id\"\r\n\r\nsms-2\r\n"
      "--b0undary\r\nContent-Disposition: form-data; name=\"status\"\r\n\r\nREJECTD\r\n--b0undary--\r\n";
  EXPECT_TRUE(RecordEskizCallback(*pool_, multipart, clock_).changed);
  EXPECT_EQ(StatusOf(second), "REJECTD");
}

TEST_F(EskizCallbackTest, IgnoresNonFinalStatusesAndUnknownIds) {
  const auto interim = RecordEskizCallback(*pool_, R"({"request_id":"sms-1","status":"TRANSMTD"})", clock_);
  EXPECT_FALSE(interim.final);
  EXPECT_FALSE(interim.changed);
  EXPECT_EQ(StatusOf(delivery_), "<null>");
  const auto unknown = RecordEskizCallback(*pool_, R"({"request_id":"sms-404","status":"DELIVRD"})", clock_);
  EXPECT_TRUE(unknown.final);
  EXPECT_FALSE(unknown.matched);
  EXPECT_FALSE(unknown.changed);
}

TEST_F(EskizCallbackTest, RefusesABodyWithoutIdOrStatus) {
  for (const std::string body : {R"({"status":"DELIVRD"})", R"({"request_id":"sms-1"})", "not json at all", ""}) {
    try {
      (void)RecordEskizCallback(*pool_, body, clock_);
      ADD_FAILURE() << "accepted: " << body;
    } catch (const core::RequestError& e) {
      EXPECT_EQ(e.code(), core::ErrorCode::kInvalidCallback);
    }
  }
  EXPECT_EQ(StatusOf(delivery_), "<null>");
}

TEST_F(EskizCallbackTest, SimultaneousRepeatsChangeTheDeliveryOnce) {
  constexpr int kThreads = 8;
  std::atomic<int> changed{0};
  {
    std::vector<std::jthread> threads;
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([&] {
        if (RecordEskizCallback(*pool_, R"({"request_id":"sms-1","status":"DELIVRD"})", clock_).changed) ++changed;
      });
    }
  }
  EXPECT_EQ(changed.load(), 1);
  EXPECT_EQ(StatusOf(delivery_), "DELIVRD");
}

}  // namespace
}  // namespace chopar::channels::sms
