#include <gtest/gtest.h>

#include "channels/sms/eskiz_callback.hpp"
#include "core/request_error.hpp"

namespace chopar::channels::sms {
namespace {

TEST(EskizReportTest, ReadsJsonFormAndMultipartBodies) {
  EXPECT_EQ(ParseEskizReport(R"({"request_id": "r-1", "status": "DELIVRD"})").provider_message_id,
            "r-1");
  EXPECT_EQ(ParseEskizReport(R"({"id": 42, "status": "UNDELIV"})").provider_message_id, "42");
  const EskizReport form = ParseEskizReport("id=7&status=DELIVRD");
  EXPECT_EQ(form.provider_message_id, "7");
  EXPECT_EQ(form.status, "DELIVRD");
}

TEST(EskizReportTest, NoIdNoStatusOrANulIsAnInvalidCallback) {
  for (const char* body : {"", "status=DELIVRD", "id=7", R"({"id": 7})", "[1]",
                           "id=7%00&status=DELIVRD", "id=7&status=DELIV%00RD"}) {
    try {
      (void)ParseEskizReport(body);
      ADD_FAILURE() << body << " was accepted";
    } catch (const core::RequestError& e) {
      EXPECT_EQ(e.code(), core::ErrorCode::kInvalidCallback) << body;
    }
  }
}

}  // namespace
}  // namespace chopar::channels::sms
