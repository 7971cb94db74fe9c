#pragma once

// The core of the black-box suite as one flow against a running chopar:
// users, notify (one, a repeated dedup key, a batch), deliveries sent by the
// sink, a schedule that falls due and fires, and the inbox stream receiving
// what is created. Run unchanged against different deployments (directly on
// PostgreSQL, through PgBouncer, several processes).

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "blackbox_support.hpp"
#include "testing/sse_reader.hpp"
#include "testing/test_database.hpp"

namespace chopar::testing {

// Runs the flows with users `first_user` .. `first_user` + 9 (so several runs
// can share one database); `port` is where `api` calls. Fails the calling
// test with what went wrong.
inline void RunCoreFlows(Api& api, int port, const TestDatabase& db, int first_user = 1) {
  using namespace std::chrono_literals;
  const std::string base = std::to_string(first_user);
  for (int user = first_user; user < first_user + 10; ++user) {
    const auto put = api.Call(
        "PUT", "/v1/users/" + std::to_string(user),
        {{"email", "u" + std::to_string(user) + "@example.uz"}, {"timezone", "Asia/Tashkent"}});
    ASSERT_EQ(put.status, 200) << put.body;
  }
  const auto user = nlohmann::json::parse(api.Call("GET", "/v1/users/" + base).body);
  EXPECT_EQ(user["timezone"], "Asia/Tashkent");
  EXPECT_EQ(user["channels"]["email"], true);

  // The inbox stream of the first user, open before anything is created.
  const auto token = nlohmann::json::parse(api.Call("GET", "/v1/users/" + base + "/token").body);
  SseReader stream(port, "/v1/inbox/stream?token=" + token["token"].get<std::string>());
  ASSERT_TRUE(stream.WaitFor("event: unread_count", 10s)) << stream.Text();

  // One notification, then the same dedup key again.
  const nlohmann::json one = {{"user_id", first_user},
                              {"type", "task.due"},
                              {"title", "Muddat yaqin"},
                              {"dedup_key", "flow:" + base}};
  const auto created = api.Call("POST", "/v1/notifications", one);
  ASSERT_EQ(created.status, 201) << created.body;
  const auto id = nlohmann::json::parse(created.body)["id"].get<std::int64_t>();
  const auto repeated = api.Call("POST", "/v1/notifications", one);
  ASSERT_EQ(repeated.status, 200) << repeated.body;
  EXPECT_EQ(nlohmann::json::parse(repeated.body)["id"], id);
  EXPECT_TRUE(stream.WaitFor("\"title\":\"Muddat yaqin\"", 10s)) << stream.Text();

  // A batch for all ten users.
  nlohmann::json batch = nlohmann::json::array();
  for (int i = 0; i < 50; ++i) {
    batch.push_back({{"user_id", first_user + i % 10}, {"type", "bench.ping"}, {"title", "t"}});
  }
  const auto results = api.Call("POST", "/v1/notifications/batch", {{"notifications", batch}});
  ASSERT_EQ(results.status, 200) << results.body;
  for (const auto& result : nlohmann::json::parse(results.body)["results"]) {
    EXPECT_EQ(result["created"], true) << result;
  }

  // Every delivery is sent (by the sink) and listed.
  const std::string of_users = "user_id BETWEEN " + base + " AND " + std::to_string(first_user + 9);
  EXPECT_TRUE(WaitUntil(
      [&] {
        return db.Count("SELECT count(*) FROM chopar.deliveries WHERE status = 'sent' AND " +
                        of_users) == 51;
      },
      30s))
      << db.Scalar(
             "SELECT string_agg(status || ':' || coalesce(last_error, ''), ', ') FROM "
             "chopar.deliveries WHERE status <> 'sent' AND " +
             of_users);
  const auto shown =
      nlohmann::json::parse(api.Call("GET", "/v1/notifications/" + std::to_string(id)).body);
  EXPECT_EQ(shown["deliveries"][0]["status"], "sent") << shown;
  const auto listed = api.Call("GET", "/v1/deliveries?user_id=" + base + "&limit=10");
  EXPECT_EQ(listed.status, 200) << listed.body;
  EXPECT_EQ(nlohmann::json::parse(listed.body)["items"].size(), 6u) << listed.body;

  // The inbox: list, count, mark read.
  const auto page =
      nlohmann::json::parse(api.Call("GET", "/v1/users/" + base + "/notifications?limit=3").body);
  EXPECT_EQ(page["items"].size(), 3u);
  EXPECT_FALSE(page["next_cursor"].is_null());
  const auto next =
      nlohmann::json::parse(api.Call("GET", "/v1/users/" + base + "/notifications?limit=3&cursor=" +
                                                page["next_cursor"].get<std::string>())
                                .body);
  EXPECT_EQ(next["items"].size(), 3u);
  EXPECT_NE(next["items"][0]["id"], page["items"][2]["id"]);
  EXPECT_EQ(nlohmann::json::parse(
                api.Call("GET", "/v1/users/" + base + "/notifications/unread-count").body)["count"],
            6);
  const auto read = api.Call("POST", "/v1/users/" + base + "/notifications/read", {{"all", true}});
  EXPECT_EQ(nlohmann::json::parse(read.body)["updated"], 6) << read.body;
  EXPECT_TRUE(stream.WaitFor("{\"count\":0}", 10s)) << stream.Text();

  // A schedule, made due from outside, fires once.
  const std::string key = "flow-" + base;
  const auto schedule =
      api.Call("PUT", "/v1/schedules/" + key,
               {{"user_id", first_user},
                {"cron", "5 18 * * *"},
                {"notification", {{"type", "pill.reminder"}, {"title", "Sitramon"}}}});
  ASSERT_EQ(schedule.status, 200) << schedule.body;
  db.Scalar(
      "WITH due AS (UPDATE chopar.schedules SET next_fire_at = now() - interval '1 second' "
      "WHERE key = '" +
      key +
      "' RETURNING 1) "
      "SELECT pg_notify('chopar_schedules', '') FROM due");
  EXPECT_TRUE(WaitUntil(
      [&] {
        return db.Count(
                   "SELECT count(*) FROM chopar.deliveries d JOIN chopar.notifications n ON "
                   "n.id = d.notification_id WHERE d.status = 'sent' AND n.dedup_key LIKE "
                   "'schedule:" +
                   key + ":%'") == 1;
      },
      30s));
  EXPECT_TRUE(stream.WaitFor("\"title\":\"Sitramon\"", 10s)) << stream.Text();
  const auto fired = nlohmann::json::parse(api.Call("GET", "/v1/schedules/" + key).body);
  EXPECT_FALSE(fired["last_fired_at"].is_null()) << fired;
}

}  // namespace chopar::testing
