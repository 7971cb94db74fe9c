#include "core/log_context.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace chopar::core {
namespace {

std::string Render() {
  std::string text;
  for (const LogField& field : CurrentLogFields()) {
    text += std::string(field.key) + "=" + field.value + ";";
  }
  return text;
}

TEST(LogScopeTest, FieldsLiveAsLongAsTheirScope) {
  EXPECT_EQ(Render(), "");
  {
    LogScope request("request_id", "r1");
    EXPECT_EQ(Render(), "request_id=r1;");
    {
      LogScope user("user_id", "42");
      EXPECT_EQ(Render(), "request_id=r1;user_id=42;");
    }
    EXPECT_EQ(Render(), "request_id=r1;");
  }
  EXPECT_EQ(Render(), "");
}

TEST(LogScopeTest, TheInnermostValueOfAKeyCountsInItsFirstPlace) {
  LogScope user("user_id", "1");
  LogScope request("request_id", "r1");
  {
    LogScope other_user("user_id", "2");
    EXPECT_EQ(Render(), "user_id=2;request_id=r1;");
  }
  EXPECT_EQ(Render(), "user_id=1;request_id=r1;");
}

TEST(LogScopeTest, EachThreadHasItsOwnFields) {
  LogScope here("request_id", "main");
  std::string there;
  std::thread([&] {
    LogScope other("request_id", "other");
    there = Render();
  }).join();
  EXPECT_EQ(there, "request_id=other;");
  EXPECT_EQ(Render(), "request_id=main;");
}

}  // namespace
}  // namespace chopar::core
