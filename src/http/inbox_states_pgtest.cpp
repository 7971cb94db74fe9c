// The inbox states through the HTTP API (docs/api.md "Inbox states"): each
// change by the subscriber token and by the server key, the lists' filters
// and the counts.
#include <gtest/gtest.h>

#include "core/time_format.hpp"
#include "http/http_server_fixture.hpp"

namespace chopar::http::testing {
namespace {

using nlohmann::json;

class InboxStatesTest : public HttpServerPgTest {
 protected:
  void SetUp() override {
    HttpServerPgTest::SetUp();
    if (IsSkipped()) return;
    PutUser(1, {{"email", "aziz@example.uz"}});
    PutUser(2, {{"email", "dilnoza@example.uz"}});
  }

  // A notification of user 1 (or `user_id`) with `extra` fields; its id.
  std::int64_t Create(json extra = json::object(), std::int64_t user_id = 1) {
    const auto response = Notify(user_id, std::move(extra));
    EXPECT_EQ(response.status, 201) << response.body;
    return response.Json()["id"];
  }

  HttpResult Change(const std::string& change, const json& body, std::int64_t user_id = 1) {
    return client().Post("/v1/inbox/" + change + "?token=" + Token(user_id), body.dump());
  }
  std::int64_t Updated(const std::string& change, const json& body, std::int64_t user_id = 1) {
    const auto response = Change(change, body, user_id);
    EXPECT_EQ(response.status, 200) << change << " " << body << ": " << response.body;
    return response.Json().value("updated", -1);
  }

  // The ids of user 1's inbox list with the query `query`, newest first.
  std::vector<std::int64_t> Listed(const std::string& query = "") {
    const auto response =
        client().Get("/v1/inbox/notifications?token=" + Token(1) + "&limit=100" + query);
    EXPECT_EQ(response.status, 200) << query << ": " << response.body;
    const json page = response.Json();
    std::vector<std::int64_t> ids;
    for (const auto& item : page["items"]) ids.push_back(item["id"]);
    return ids;
  }

  std::int64_t Count(const std::string& query = "") {
    const auto response = client().Get("/v1/inbox/count?token=" + Token(1) + query);
    EXPECT_EQ(response.status, 200) << query << ": " << response.body;
    return response.Json().value("count", -1);
  }

  json Item(std::int64_t id) {
    return client().Get("/v1/notifications/" + std::to_string(id), {kAuth}).Json();
  }
};

TEST_F(InboxStatesTest, SeenReadUnreadAndTheCounts) {
  const std::int64_t a = Create();
  const std::int64_t b = Create();
  const std::int64_t c = Create();
  EXPECT_EQ(Count(), 3);
  EXPECT_EQ(Count("&count=unread"), 3);

  EXPECT_EQ(Updated("seen", {{"ids", {a, b}}}), 2);
  EXPECT_EQ(Updated("seen", {{"ids", {a, b}}}), 0) << "a repeat changes nothing";
  EXPECT_EQ(Count(), 1);
  EXPECT_EQ(Count("&count=unread"), 3);
  EXPECT_FALSE(Item(a)["seen_at"].is_null());
  EXPECT_TRUE(Item(a)["read_at"].is_null());

  // Marking read marks seen too.
  EXPECT_EQ(Updated("read", {{"ids", {c}}}), 1);
  EXPECT_FALSE(Item(c)["seen_at"].is_null());
  EXPECT_FALSE(Item(c)["read_at"].is_null());
  EXPECT_EQ(Count(), 0);
  EXPECT_EQ(Count("&count=unread"), 2);
  EXPECT_EQ(client().Get("/v1/inbox/unread-count?token=" + Token(1)).Json(), (json{{"count", 2}}));

  // Unread clears read_at, not seen_at.
  EXPECT_EQ(Updated("unread", {{"ids", {c}}}), 1);
  EXPECT_EQ(Updated("unread", {{"ids", {c}}}), 0);
  EXPECT_TRUE(Item(c)["read_at"].is_null());
  EXPECT_FALSE(Item(c)["seen_at"].is_null());
  EXPECT_EQ(Count(), 0);
  EXPECT_EQ(Count("&count=unread"), 3);

  EXPECT_EQ(Listed("&seen=false"), std::vector<std::int64_t>{});
  EXPECT_EQ(Updated("read", {{"all", true}}), 3);
  EXPECT_EQ(Updated("read", {{"all", true}}), 0);
  EXPECT_EQ(Listed("&unread=true"), std::vector<std::int64_t>{});
  // The items each change changed: seen 2, read 1 and then 3.
  EXPECT_EQ(
      metrics_.GetCounter("chopar_inbox_state_changes_total", "", {{"change", "seen"}}).Value(), 2);
  EXPECT_EQ(
      metrics_.GetCounter("chopar_inbox_state_changes_total", "", {{"change", "read"}}).Value(), 4);
}

TEST_F(InboxStatesTest, AnotherUsersIdsAreIgnored) {
  const std::int64_t mine = Create();
  const std::int64_t theirs = Create(json::object(), 2);
  for (const char* change : {"seen", "read", "archive"}) {
    EXPECT_EQ(Updated(change, {{"ids", {theirs}}}), 0) << change;
  }
  EXPECT_EQ(Updated("snooze", {{"ids", {theirs}}, {"minutes", 10}}), 0);
  EXPECT_EQ(Updated("archive", {{"all", true}}), 1);
  EXPECT_TRUE(Item(theirs)["archived_at"].is_null());
  EXPECT_TRUE(Item(theirs)["seen_at"].is_null());
  EXPECT_FALSE(Item(mine)["archived_at"].is_null());
}

TEST_F(InboxStatesTest, ArchivedAndSnoozedLeaveTheDefaultListAndTheCounts) {
  const std::int64_t a = Create();
  const std::int64_t b = Create();
  const std::int64_t c = Create();
  EXPECT_EQ(Updated("archive", {{"ids", {a}}}), 1);
  EXPECT_EQ(Updated("archive", {{"ids", {a}}}), 0);
  EXPECT_TRUE(Item(a)["read_at"].is_null()) << "archiving does not read";
  const std::string until = core::FormatRfc3339(
      std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()) +
      std::chrono::hours(1));
  EXPECT_EQ(Updated("snooze", {{"ids", {b}}, {"until", until}}), 1);
  EXPECT_EQ(Item(b)["snoozed_until"], until);

  EXPECT_EQ(Listed(), (std::vector<std::int64_t>{c}));
  EXPECT_EQ(Listed("&archived=true"), (std::vector<std::int64_t>{a}));
  EXPECT_EQ(Listed("&snoozed=true"), (std::vector<std::int64_t>{b}));
  EXPECT_EQ(Count(), 1);
  EXPECT_EQ(Count("&count=unread"), 1);
  EXPECT_EQ(client().Get("/v1/inbox/unread-count?token=" + Token(1)).Json(), (json{{"count", 1}}));
  EXPECT_EQ(client().Get("/v1/users/1/notifications/unread-count", {kAuth}).Json(),
            (json{{"count", 1}}));

  // A snooze to another time changes it; the same time again does not.
  EXPECT_EQ(Updated("snooze", {{"ids", {b}}, {"until", until}}), 0);
  EXPECT_EQ(Updated("snooze", {{"ids", {b}}, {"minutes", 120}}), 1);
  EXPECT_EQ(Updated("unsnooze", {{"ids", {b}}}), 1);
  EXPECT_EQ(Updated("unsnooze", {{"ids", {b}}}), 0);
  EXPECT_EQ(Updated("unarchive", {{"all", true}}), 1);
  EXPECT_EQ(Listed(), (std::vector<std::int64_t>{c, b, a}));
  EXPECT_EQ(Count(), 3);
}

TEST_F(InboxStatesTest, FiltersCombineAndPagesStayRight) {
  const std::int64_t task1 = Create({{"category", "tasks"}});
  const std::int64_t bill = Create({{"category", "billing"}});
  const std::int64_t task2 = Create({{"category", "tasks"}});
  const std::int64_t other = Create();
  ASSERT_EQ(db_->Count("WITH t AS (UPDATE chopar.notifications SET tags = '{billing,urgent}' "
                       "WHERE id IN (" +
                       std::to_string(bill) + ", " + std::to_string(task2) +
                       ") RETURNING 1) SELECT count(*) FROM t"),
            2);
  EXPECT_EQ(Listed("&category=tasks"), (std::vector<std::int64_t>{task2, task1}));
  EXPECT_EQ(Listed("&category=tasks,billing"), (std::vector<std::int64_t>{task2, bill, task1}));
  EXPECT_EQ(Listed("&tag=urgent"), (std::vector<std::int64_t>{task2, bill}));
  EXPECT_EQ(Listed("&tag=urgent&category=billing"), (std::vector<std::int64_t>{bill}));
  EXPECT_EQ(Count("&category=tasks"), 2);
  EXPECT_EQ(Count("&tag=urgent"), 2);

  // A bulk change narrowed by a filter.
  EXPECT_EQ(Updated("seen", {{"all", true}, {"category", "tasks"}}), 2);
  EXPECT_EQ(Listed("&seen=false"), (std::vector<std::int64_t>{other, bill}));
  EXPECT_EQ(Listed("&seen=true"), (std::vector<std::int64_t>{task2, task1}));
  EXPECT_EQ(Updated("archive", {{"ids", {task1, bill, task2}}, {"tag", "urgent"}}), 2);
  EXPECT_EQ(Listed(), (std::vector<std::int64_t>{other, task1}));
  EXPECT_EQ(Listed("&archived=true&category=tasks"), (std::vector<std::int64_t>{task2}));

  // Keyset pages of a filtered list: each item once, in order.
  std::vector<std::int64_t> pages;
  std::string cursor;
  for (int i = 0; i < 5; ++i) {
    const auto page =
        client()
            .Get("/v1/inbox/notifications?token=" + Token(1) + "&limit=1&archived=true" + cursor)
            .Json();
    for (const auto& item : page["items"]) pages.push_back(item["id"]);
    if (page["next_cursor"].is_null()) break;
    cursor = "&cursor=" + page["next_cursor"].get<std::string>();
  }
  EXPECT_EQ(pages, (std::vector<std::int64_t>{task2, bill}));
}

TEST_F(InboxStatesTest, TheApplicationChangesStatesWithTheServerKey) {
  const std::int64_t a = Create();
  const std::int64_t b = Create();
  auto post = [&](const std::string& change, const json& body, const std::string& user = "1") {
    return client().Post("/v1/users/" + user + "/notifications/" + change, body.dump(), {kAuth});
  };
  EXPECT_EQ(post("seen", {{"ids", {a}}}).Json(), (json{{"updated", 1}}));
  EXPECT_EQ(post("archive", {{"all", true}}).Json(), (json{{"updated", 2}}));
  EXPECT_EQ(post("unarchive", {{"ids", {b}}}).Json(), (json{{"updated", 1}}));
  EXPECT_EQ(post("snooze", {{"ids", {b}}, {"minutes", 5}}).Json(), (json{{"updated", 1}}));
  EXPECT_EQ(post("unsnooze", {{"ids", {b}}}).Json(), (json{{"updated", 1}}));
  EXPECT_EQ(post("read", {{"ids", {b}}}).Json(), (json{{"updated", 1}}));
  EXPECT_EQ(post("unread", {{"ids", {b}}}).Json(), (json{{"updated", 1}}));
  EXPECT_EQ(client().Get("/v1/users/1/notifications?archived=true", {kAuth}).Json()["items"].size(),
            1u);
  EXPECT_EQ(post("seen", {{"all", true}}, "999").ErrorCode(), "user_not_found");
  EXPECT_EQ(client().Post("/v1/users/1/notifications/seen", R"({"all": true})").status, 401);
  EXPECT_EQ(post("snooze", {{"all", true}}).ErrorCode(), "invalid_field");
}

TEST_F(InboxStatesTest, BadRequestsChangeNothing) {
  const std::int64_t a = Create();
  struct Case {
    std::string change;
    json body;
    std::string field;
  };
  const std::vector<Case> cases = {
      {"seen", json::object(), "ids"},
      {"archive", {{"ids", std::vector<int>(1001, 1)}}, "ids"},
      {"read", {{"all", true}, {"category", "Bad"}}, "category"},
      {"read", {{"all", true}, {"tag", "no spaces"}}, "tag"},
      {"read", {{"all", true}, {"tenant", "bad key"}}, "tenant"},
      {"snooze", {{"ids", {a}}}, "until"},
      {"snooze", {{"ids", {a}}, {"minutes", 0}}, "minutes"},
      {"snooze", {{"ids", {a}}, {"minutes", 129601}}, "minutes"},
      {"snooze", {{"ids", {a}}, {"until", "2001-01-01T00:00:00Z"}}, "until"},
      {"snooze", {{"ids", {a}}, {"until", "2001-01-01T00:00:00Z"}, {"minutes", 3}}, "until"},
  };
  for (const auto& c : cases) {
    const auto response = Change(c.change, c.body);
    EXPECT_EQ(response.status, 400) << c.change << " " << c.body;
    EXPECT_EQ(response.Json()["error"]["field"], c.field) << c.change << " " << c.body;
  }
  EXPECT_EQ(Change("read", json::array()).ErrorCode(), "invalid_json");
  EXPECT_EQ(client().Post("/v1/inbox/seen", R"({"all": true})").status, 401);
  const json item = Item(a);
  for (const char* field : {"seen_at", "read_at", "archived_at", "snoozed_until"}) {
    EXPECT_TRUE(item[field].is_null()) << field;
  }
  for (const char* query : {"&category=Tasks", "&tag=A", "&count=all", "&category=a,,b"}) {
    EXPECT_EQ(client().Get("/v1/inbox/count?token=" + Token(1) + query).status, 400) << query;
  }
  for (const char* query : {"&archived=maybe", "&seen=2", "&snoozed=x", "&tag=A"}) {
    EXPECT_EQ(client().Get("/v1/inbox/notifications?token=" + Token(1) + query).status, 400)
        << query;
  }
}

}  // namespace
}  // namespace chopar::http::testing
