#include "channels/sms/playmobile_report.hpp"

#include <gtest/gtest.h>

#include "core/request_error.hpp"

namespace chopar::channels::sms {
namespace {

TEST(PlaymobileReportTest, ReadsEveryMessageOfABrokerShapedReport) {
  const auto reports = ParsePlaymobileReports(R"({"messages": [
      {"message-id": "chopar42a1", "status": "Delivered"},
      {"message-id": "chopar43a1", "status": "NotDelivered", "error-code": 3},
      {"message-id": "chopar44a2", "status": "Transmitted"}]})");
  ASSERT_EQ(reports.size(), 3u);
  EXPECT_EQ(reports[0].provider_message_id, "chopar42a1");
  EXPECT_EQ(reports[0].status, "Delivered");
  EXPECT_EQ(reports[0].state, SmsDeliveryState::kDelivered);
  EXPECT_EQ(reports[1].state, SmsDeliveryState::kFailed);
  EXPECT_EQ(reports[1].error_code, "3");
  EXPECT_EQ(reports[2].state, SmsDeliveryState::kPending);
}

TEST(PlaymobileReportTest, ReadsOneMessageAnArrayOrAForm) {
  const auto one = ParsePlaymobileReports(R"({"message-id": "chopar1a1", "status": "failed"})");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].state, SmsDeliveryState::kFailed);

  const auto array = ParsePlaymobileReports(
      R"([{"message_id": "chopar2a1", "status": "undelivered"}, {"message-id": 17, "status": "deferred"}])");
  ASSERT_EQ(array.size(), 2u);
  EXPECT_EQ(array[0].provider_message_id, "chopar2a1");
  EXPECT_EQ(array[0].state, SmsDeliveryState::kFailed);
  EXPECT_EQ(array[1].provider_message_id, "17");
  EXPECT_EQ(array[1].state, SmsDeliveryState::kPending);

  const auto form = ParsePlaymobileReports("message-id=chopar3a2&status=delivered");
  ASSERT_EQ(form.size(), 1u);
  EXPECT_EQ(form[0].provider_message_id, "chopar3a2");
  EXPECT_EQ(form[0].state, SmsDeliveryState::kDelivered);
}

TEST(PlaymobileReportTest, EachFailureWordIsFinalAndFailed) {
  for (const char* status : {"undelivered", "NOT-DELIVERED", "not_delivered", "notDelivered",
                             "Rejected", "expired", "FAILED"}) {
    const std::string body = std::string(R"({"message-id": "x", "status": ")") + status + "\"}";
    EXPECT_EQ(ParsePlaymobileReports(body).at(0).state, SmsDeliveryState::kFailed) << status;
  }
}

TEST(PlaymobileReportTest, NoReportNoIdNoStatusOrANulIsAnInvalidCallback) {
  for (const char* body :
       {"", "{}", "[]", R"({"messages": []})", R"({"status": "delivered"})",
        R"({"message-id": "chopar1a1"})",
        R"({"messages": [{"message-id": "a", "status": "delivered"}, 5]})", "{not json",
        "status=delivered", "message-id=chopar1a1%00x&status=delivered"}) {
    try {
      (void)ParsePlaymobileReports(body);
      ADD_FAILURE() << body << " was accepted";
    } catch (const core::RequestError& e) {
      EXPECT_EQ(e.code(), core::ErrorCode::kInvalidCallback) << body;
    }
  }
}

}  // namespace
}  // namespace chopar::channels::sms
