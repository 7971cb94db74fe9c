#include "outbox/type_patterns.hpp"

#include <gtest/gtest.h>

namespace chopar::outbox {
namespace {

TEST(TypePatternsTest, StarMatchesAnyRunOfCharactersDotsIncluded) {
  EXPECT_TRUE(GlobMatches("task.*", "task.created"));
  EXPECT_TRUE(GlobMatches("task.*", "task.due.soon"));
  EXPECT_TRUE(GlobMatches("task.*", "task."));
  EXPECT_FALSE(GlobMatches("task.*", "task"));
  EXPECT_FALSE(GlobMatches("task.*", "tasks.created"));
  EXPECT_TRUE(GlobMatches("*", "anything.at.all"));
  EXPECT_TRUE(GlobMatches("*.failed", "delivery.failed"));
  EXPECT_FALSE(GlobMatches("*.failed", "delivery.failed_twice"));
  EXPECT_TRUE(GlobMatches("delivery.*ed", "delivery.canceled"));
  EXPECT_TRUE(GlobMatches("a*b*c", "a-x-b-y-b-c"));
  EXPECT_FALSE(GlobMatches("a*b*c", "a-x-b-y-c-d"));
  EXPECT_TRUE(GlobMatches("notification.read", "notification.read"));
  EXPECT_FALSE(GlobMatches("notification.read", "notification.reads"));
}

TEST(TypePatternsTest, AnEmptyListMatchesEverythingAnyPatternOfAListMatches) {
  EXPECT_TRUE(TypePatterns().Matches("task.created"));
  EXPECT_TRUE(TypePatterns().MatchesAll());
  const TypePatterns delivery({"delivery.sent", "delivery.fail*"});
  EXPECT_FALSE(delivery.MatchesAll());
  EXPECT_TRUE(delivery.Matches("delivery.sent"));
  EXPECT_TRUE(delivery.Matches("delivery.failed"));
  EXPECT_FALSE(delivery.Matches("delivery.skipped"));
}

TEST(TypePatternsTest, RefusesPatternsNoEventTypeCouldMatch) {
  EXPECT_THROW(TypePatterns({""}), std::invalid_argument);
  EXPECT_THROW(TypePatterns({"task created"}), std::invalid_argument);
  EXPECT_THROW(TypePatterns({"task.>"}), std::invalid_argument);
  EXPECT_EQ(TypePatterns::Problem("task.?"), "event type pattern \"task.?\" holds '?'");
  EXPECT_EQ(TypePatterns::Problem("Task_2-x.*"), std::nullopt);
}

}  // namespace
}  // namespace chopar::outbox
