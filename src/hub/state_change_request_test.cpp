#include "hub/state_change_request.hpp"

#include <gtest/gtest.h>

#include "core/time_format.hpp"
#include "testing/request_error.hpp"

namespace chopar::hub {
namespace {

using nlohmann::json;
using testing::RequestErrorOf;

const core::TimePoint kNow = *core::ParseRfc3339("2026-03-01T12:00:00Z");

StateChangeRequest Parse(const json& body, InboxChange change = InboxChange::kRead) {
  return ParseStateChangeRequest(body, change, kNow);
}

TEST(StateChangeParsing, IdsOrAll) {
  const StateChangeRequest ids = Parse({{"ids", {3, 1, 2}}});
  EXPECT_FALSE(ids.all);
  EXPECT_EQ(ids.ids, (std::vector<std::int64_t>{3, 1, 2}));
  EXPECT_TRUE(Parse({{"all", true}}).all);
  // "all": true wins over ids, whatever they are; "all": false means the ids.
  EXPECT_TRUE(Parse({{"all", true}, {"ids", "whatever"}}).all);
  const StateChangeRequest not_all = Parse({{"all", false}, {"ids", {7}}});
  EXPECT_FALSE(not_all.all);
  EXPECT_EQ(not_all.ids, (std::vector<std::int64_t>{7}));
  EXPECT_TRUE(Parse({{"ids", json::array()}}).ids.empty());
}

TEST(StateChangeParsing, FiltersNarrowIdsOrAll) {
  const StateChangeRequest one = Parse({{"all", true}, {"category", "tasks"}, {"tag", "billing"}});
  EXPECT_EQ(one.categories, (std::vector<std::string>{"tasks"}));
  EXPECT_EQ(one.tag, "billing");
  EXPECT_FALSE(one.tenant);
  const StateChangeRequest many =
      Parse({{"ids", {1}}, {"category", {"tasks", "billing.due"}}, {"tenant", "acme"}});
  EXPECT_EQ(many.categories, (std::vector<std::string>{"tasks", "billing.due"}));
  EXPECT_EQ(many.tenant, "acme");
  EXPECT_TRUE(Parse({{"all", true}, {"category", nullptr}}).categories.empty());
}

TEST(StateChangeParsing, SnoozeTakesUntilOrMinutes) {
  EXPECT_EQ(Parse({{"all", true}, {"minutes", 60}}, InboxChange::kSnoozed).snoozed_until,
            kNow + std::chrono::hours(1));
  EXPECT_EQ(
      Parse({{"ids", {1}}, {"until", "2026-03-02T09:00:00Z"}}, InboxChange::kSnoozed).snoozed_until,
      core::ParseRfc3339("2026-03-02T09:00:00Z"));
  EXPECT_EQ(Parse({{"ids", {1}}, {"minutes", 129600}}, InboxChange::kSnoozed).snoozed_until,
            kNow + std::chrono::minutes(129600));
  // Other changes ignore a snooze's fields.
  EXPECT_FALSE(Parse({{"ids", {1}}, {"minutes", 0}}).snoozed_until);
}

TEST(StateChangeParsing, BadInputNamesTheField) {
  auto field_of = [](const json& body, InboxChange change = InboxChange::kRead) {
    const auto e = RequestErrorOf([&] { return Parse(body, change); });
    EXPECT_EQ(e.code(), core::ErrorCode::kInvalidField) << body;
    return e.field().value_or("");
  };
  EXPECT_EQ(field_of(json::object()), "ids");
  EXPECT_EQ(field_of({{"ids", "1"}}), "ids");
  EXPECT_EQ(field_of({{"ids", 3}}), "ids");
  EXPECT_EQ(field_of({{"ids", {"1"}}}), "ids");
  EXPECT_EQ(field_of({{"all", false}}), "ids");
  EXPECT_EQ(field_of({{"all", "yes"}}), "all");
  EXPECT_EQ(field_of({{"all", "yes"}, {"ids", {1}}}), "all");
  EXPECT_EQ(field_of({{"ids", std::vector<int>(1001, 1)}}), "ids");
  EXPECT_EQ(Parse({{"ids", std::vector<int>(1000, 1)}}).ids.size(), 1000u);
  EXPECT_EQ(field_of({{"all", true}, {"category", "Tasks"}}), "category");
  EXPECT_EQ(field_of({{"all", true}, {"category", json::array()}}), "category");
  EXPECT_EQ(field_of({{"all", true}, {"category", std::vector<std::string>(21, "a")}}), "category");
  EXPECT_EQ(
      Parse({{"all", true}, {"category", std::vector<std::string>(20, "a")}}).categories.size(),
      20u);
  EXPECT_EQ(field_of({{"all", true}, {"category", {1}}}), "category");
  EXPECT_EQ(field_of({{"all", true}, {"tag", "A b"}}), "tag");
  EXPECT_EQ(field_of({{"all", true}, {"tag", 5}}), "tag");
  EXPECT_EQ(field_of({{"all", true}, {"tenant", "a b"}}), "tenant");
  EXPECT_EQ(RequestErrorOf([] { return Parse(json::array()); }).code(),
            core::ErrorCode::kInvalidJson);
}

TEST(StateChangeParsing, BadSnoozeNamesTheField) {
  auto field_of = [](const json& body) {
    const auto e = RequestErrorOf([&] { return Parse(body, InboxChange::kSnoozed); });
    EXPECT_EQ(e.code(), core::ErrorCode::kInvalidField) << body;
    return e.field().value_or("");
  };
  EXPECT_EQ(field_of({{"all", true}}), "until");
  EXPECT_EQ(field_of({{"all", true}, {"minutes", 5}, {"until", "2026-03-02T09:00:00Z"}}), "until");
  EXPECT_EQ(field_of({{"all", true}, {"minutes", 0}}), "minutes");
  EXPECT_EQ(field_of({{"all", true}, {"minutes", 129601}}), "minutes");
  EXPECT_EQ(field_of({{"all", true}, {"minutes", 1.5}}), "minutes");
  EXPECT_EQ(field_of({{"all", true}, {"until", "tomorrow"}}), "until");
  EXPECT_EQ(field_of({{"all", true}, {"until", "2026-03-01T12:00:00Z"}}), "until");  // now
  EXPECT_EQ(field_of({{"all", true}, {"until", "2026-05-30T12:00:01Z"}}), "until");  // > 90 days
}

}  // namespace
}  // namespace chopar::hub
