#include <gtest/gtest.h>

#include <sstream>

#include "core/request_error.hpp"
#include "core/time_format.hpp"
#include "db/errors.hpp"
#include "schedule/csv_import.hpp"
#include "schedule/schedule_pgtest_fixture.hpp"
#include "testing/request_error.hpp"

namespace chopar::schedule {
namespace {

using nlohmann::json;
using testing::RequestErrorOf;

class ScheduleServiceTest : public SchedulePgTest {
 protected:
  // The instants POST /v1/schedules/preview answers for `body`, as RFC 3339.
  std::vector<std::string> Preview(const json& body) {
    std::vector<std::string> fire_at;
    for (core::TimePoint t : service_->Preview(ParsePreviewRequest(body))) {
      fire_at.push_back(core::FormatRfc3339(t));
    }
    return fire_at;
  }
  std::int64_t Schedules() { return db_->Count("SELECT count(*) FROM chopar.schedules"); }
};

TEST_F(ScheduleServiceTest, PutGetDelete) {
  AddUser(8, "Asia/Tashkent");
  json body = Body(8, "5 18 * * *");
  body["notification"]["channels"] = {"push", "telegram"};
  const StoredSchedule put = Put("pill-17", body);
  EXPECT_EQ(put.key, "pill-17");
  EXPECT_EQ(put.next_fire_at, core::ParseRfc3339("2026-10-20T13:05:00Z"));

  const Schedule got = service_->Get("pill-17");
  EXPECT_EQ(got.key, "pill-17");
  EXPECT_EQ(got.user_id, 8);
  EXPECT_EQ(got.cron, "5 18 * * *");
  EXPECT_EQ(got.timezone, std::nullopt);
  EXPECT_EQ(got.effective_timezone, "Asia/Tashkent");
  const Schedule::Notification& n = got.notification;
  EXPECT_EQ(n.type, "pill.reminder");
  EXPECT_EQ(n.title, "Sitramon");
  EXPECT_EQ(n.body, "18:00 dori vaqti");
  EXPECT_EQ(n.link, "/pills/17");
  EXPECT_EQ(n.data, (json{{"pill_id", 17}}));
  EXPECT_EQ(n.channels, (std::vector<std::string>{"push", "telegram"}));
  EXPECT_FALSE(n.critical);
  EXPECT_EQ(n.delay_seconds, std::nullopt);
  EXPECT_EQ(n.cancellation_key, std::nullopt);
  EXPECT_EQ(got.catchup_policy, "latest");
  EXPECT_EQ(got.catchup_window_seconds, 86400);
  EXPECT_TRUE(got.enabled);
  ASSERT_TRUE(got.next_fire_at);
  EXPECT_EQ(core::FormatRfc3339(*got.next_fire_at), "2026-10-20T13:05:00Z");
  EXPECT_EQ(got.last_fired_at, std::nullopt);
  EXPECT_EQ(got.skipped_count, 0);
  EXPECT_EQ(core::FormatRfc3339(got.created_at), "2026-10-20T10:00:00Z");

  service_->Delete("pill-17");
  EXPECT_EQ(RequestErrorOf([&] { service_->Get("pill-17"); }).code(), core::ErrorCode::kNotFound);
  EXPECT_EQ(RequestErrorOf([&] { service_->Delete("pill-17"); }).code(),
            core::ErrorCode::kNotFound);
  EXPECT_EQ(RequestErrorOf([&] { service_->Get("no/such key"); }).code(),
            core::ErrorCode::kNotFound);
}

TEST_F(ScheduleServiceTest, TemplateTextAndDataRoundTrip) {
  AddUser(1, "UTC");
  json body = Body(1, "0 9 * * *");
  body["notification"]["title"] = "Dori \"Sitramon\" \\ vaqti\t✓";
  body["notification"]["body"] = "ikki\nqator \u0001";
  body["notification"]["data"] = {{"nested", {{"a", json::array({1, "b", nullptr})}}},
                                  {"emoji", "💊"}};
  body["notification"]["critical"] = true;
  Put("pill-1", body);
  const Schedule::Notification got = service_->Get("pill-1").notification;
  EXPECT_EQ(got.title, body["notification"]["title"]);
  EXPECT_EQ(got.body, body["notification"]["body"]);
  EXPECT_EQ(got.data, body["notification"]["data"]);
  EXPECT_TRUE(got.critical);
  EXPECT_EQ(got.channels, std::nullopt);
}

TEST_F(ScheduleServiceTest, WorkflowMembersRoundTripAndTheDatabaseHoldsTheirBounds) {
  AddUser(1, "UTC");
  json body = Body(1, "0 9 * * *");
  body["notification"]["delay_seconds"] = 31622400;
  body["notification"]["cancellation_key"] = std::string(255, 'k');
  Put("pill-1", body);
  const Schedule::Notification got = service_->Get("pill-1").notification;
  EXPECT_EQ(got.delay_seconds, 31622400);
  EXPECT_EQ(got.cancellation_key, std::string(255, 'k'));

  // The CHECKs say what the API says, for writers that bypass it.
  for (const char* bad : {"delay_seconds = -1", "delay_seconds = 31622401", "cancellation_key = ''",
                          "cancellation_key = repeat('k', 256)"}) {
    EXPECT_THROW(db_->Scalar(std::string("UPDATE chopar.schedules SET ") + bad), db::DbError)
        << bad;
  }
  EXPECT_EQ(Column("pill-1", "delay_seconds"), "31622400");
}

TEST_F(ScheduleServiceTest, UnknownUserWritesNothing) {
  const core::RequestError e = RequestErrorOf([&] { Put("pill-1", Body(99, "5 18 * * *")); });
  EXPECT_EQ(e.code(), core::ErrorCode::kUserNotFound);
  EXPECT_EQ(e.field(), "user_id");
  EXPECT_EQ(Schedules(), 0);
}

TEST_F(ScheduleServiceTest, BadCronIsRefusedWithItsPosition) {
  AddUser(1, "UTC");
  const core::RequestError e = RequestErrorOf([&] { Put("pill-1", Body(1, "5 18 * * MON-XYZ")); });
  EXPECT_EQ(e.code(), core::ErrorCode::kInvalidField);
  EXPECT_EQ(e.field(), "cron");
  EXPECT_NE(std::string(e.what()).find("position"), std::string::npos) << e.what();
  EXPECT_EQ(Schedules(), 0);
}

TEST_F(ScheduleServiceTest, ResendingAnUnchangedScheduleKeepsAnOccurrenceThatIsDue) {
  AddUser(1, "UTC");
  Put("pill-1", Body(1, "0 11 * * *"));
  clock_.Set(At("2026-10-20T11:30:00Z"));  // 11:00 passed, not fired yet
  // A rebuild from the application's tables re-sends the same schedule.
  EXPECT_EQ(Put("pill-1", Body(1, "0 11 * * *")).next_fire_at,
            core::ParseRfc3339("2026-10-20T11:00:00Z"));
  EXPECT_EQ(scheduler_->RunOnce().fired, 1);
  EXPECT_EQ(FiredDueAts("pill-1"), "2026-10-20T11:00:00Z");

  // A changed pattern starts from now.
  EXPECT_EQ(Put("pill-1", Body(1, "0 12 * * *")).next_fire_at,
            core::ParseRfc3339("2026-10-20T12:00:00Z"));
  // So does a changed template? No: only pattern, zone, user and enabled move it.
  json retitled = Body(1, "0 12 * * *");
  retitled["notification"]["title"] = "Yangi";
  EXPECT_EQ(Put("pill-1", retitled).next_fire_at, core::ParseRfc3339("2026-10-20T12:00:00Z"));
  EXPECT_EQ(service_->Get("pill-1").notification.title, "Yangi");
}

TEST_F(ScheduleServiceTest, DisabledScheduleIsNeverDue) {
  AddUser(1, "UTC");
  json body = Body(1, "0 11 * * *");
  body["enabled"] = false;
  EXPECT_EQ(Put("pill-1", body).next_fire_at, std::nullopt);
  clock_.Set(At("2026-10-21T11:00:00Z"));
  EXPECT_EQ(scheduler_->RunOnce().claimed, 0);
  body["enabled"] = true;
  EXPECT_EQ(Put("pill-1", body).next_fire_at, core::ParseRfc3339("2026-10-22T11:00:00Z"));
}

TEST_F(ScheduleServiceTest, PatternThatNeverFiresIsStoredWithoutANextInstant) {
  AddUser(1, "UTC");
  EXPECT_EQ(Put("feb-30", Body(1, "0 0 30 2 *")).next_fire_at, std::nullopt);
  EXPECT_EQ(scheduler_->LookUpDue().next_fire_at, std::nullopt);
}

TEST_F(ScheduleServiceTest, BulkPutOfTenThousandInOneCall) {
  db_->Scalar(
      "INSERT INTO chopar.users (id, timezone) SELECT i, (ARRAY['Asia/Tashkent', 'Europe/Berlin', "
      "'America/St_Johns', 'Asia/Kathmandu'])[1 + i % 4] FROM generate_series(1, 1000) i");
  json items = json::array();
  for (int i = 0; i < 10'000; ++i) {
    json item = Body(1 + i % 1000, "5 18 * * *", i % 5 == 0 ? json("UTC") : json());
    item["key"] = "pill-" + std::to_string(i);
    items.push_back(std::move(item));
  }
  EXPECT_EQ(BulkPut({{"schedules", items}}), 10'000u);
  EXPECT_EQ(Schedules(), 10'000);
  // pill-i belongs to user 1 + i; pill-0 has its own zone, UTC.
  EXPECT_EQ(NextFire("pill-0"), "2026-10-20T18:05:00Z");
  EXPECT_EQ(NextFire("pill-1"), "2026-10-20T20:35:00Z");  // America/St_Johns, -2:30 in summer
  EXPECT_EQ(NextFire("pill-2"), "2026-10-20T12:20:00Z");  // Asia/Kathmandu, +5:45
  EXPECT_EQ(NextFire("pill-3"), "2026-10-20T13:05:00Z");  // Asia/Tashkent
  EXPECT_EQ(NextFire("pill-4"), "2026-10-20T16:05:00Z");  // Europe/Berlin, summer time
  // The same again replaces, idempotently.
  EXPECT_EQ(BulkPut({{"schedules", items}}), 10'000u);
  EXPECT_EQ(Schedules(), 10'000);

  items.push_back(items[0]);
  EXPECT_EQ(RequestErrorOf([&] { BulkPut({{"schedules", items}}); }).field(), "schedules");
}

TEST_F(ScheduleServiceTest, BulkPutIsAllOrNothingAndNamesTheBadItem) {
  AddUser(1, "UTC");
  json items = json::array();
  for (int i = 0; i < 10; ++i) {
    json item = Body(1, "0 9 * * *");
    item["key"] = "k" + std::to_string(i);
    items.push_back(item);
  }
  json bad = items;
  bad[7]["cron"] = "0 9 * * 8";
  core::RequestError e = RequestErrorOf([&] { BulkPut({{"schedules", bad}}); });
  EXPECT_EQ(e.field(), "schedules[7].cron");
  EXPECT_EQ(std::string(e.what()).rfind("schedules[7]: ", 0), 0u) << e.what();

  bad = items;
  bad[3]["user_id"] = 99;
  e = RequestErrorOf([&] { BulkPut({{"schedules", bad}}); });
  EXPECT_EQ(e.code(), core::ErrorCode::kUserNotFound);
  EXPECT_EQ(e.field(), "schedules[3].user_id");

  bad = items;
  bad[5]["key"] = "k2";
  e = RequestErrorOf([&] { BulkPut({{"schedules", bad}}); });
  EXPECT_EQ(e.field(), "schedules[5].key");
  EXPECT_NE(std::string(e.what()).find("schedules[2]"), std::string::npos) << e.what();

  bad = items;
  bad[4].erase("key");
  EXPECT_EQ(RequestErrorOf([&] { BulkPut({{"schedules", bad}}); }).field(), "schedules[4].key");
  EXPECT_EQ(RequestErrorOf([&] { BulkPut({{"schedule", items}}); }).field(), "schedules");

  EXPECT_EQ(Schedules(), 0);
}

TEST_F(ScheduleServiceTest, PreviewMatchesTheApiExample) {
  const auto preview = Preview({{"cron", "30 2 * * *"},
                                {"timezone", "Europe/Berlin"},
                                {"after", "2027-03-27T00:00:00Z"},
                                {"count", 5}});
  ASSERT_EQ(preview.size(), 5u);
  EXPECT_EQ(preview[0], "2027-03-27T01:30:00Z");
  EXPECT_EQ(preview[1],
            "2027-03-28T01:00:00Z");  // 02:30 is skipped by summer time: right after the gap
  EXPECT_EQ(preview[2], "2027-03-29T00:30:00Z");

  // Defaults: UTC, after now, ten instants.
  const auto defaults = Preview({{"cron", "@hourly"}});
  ASSERT_EQ(defaults.size(), 10u);
  EXPECT_EQ(defaults[0], "2026-10-20T11:00:00Z");

  core::RequestError e = RequestErrorOf([&] { Preview({{"cron", "61 * * * *"}}); });
  EXPECT_EQ(e.field(), "cron");
  EXPECT_NE(std::string(e.what()).find("position 1"), std::string::npos) << e.what();
  EXPECT_EQ(RequestErrorOf([&] {
              Preview({{"cron", "@daily"}, {"timezone", "Nowhere"}});
            }).field(),
            "timezone");
  EXPECT_EQ(RequestErrorOf([&] {
              Preview({{"cron", "@daily"}, {"count", 1001}});
            }).field(),
            "count");
  EXPECT_EQ(RequestErrorOf([&] {
              Preview({{"cron", "@daily"}, {"after", "yesterday"}});
            }).field(),
            "after");
}

TEST_F(ScheduleServiceTest, WritesWakeSchedulers) {
  AddUser(1, "UTC");
  auto listener = db_->Connect();
  listener.Listen("chopar_schedules");
  Put("pill-1", Body(1, "0 9 * * *"));
  const auto woken = listener.WaitForNotifications(std::chrono::seconds(10));
  ASSERT_FALSE(woken.empty());
  EXPECT_EQ(woken[0].channel, "chopar_schedules");
}

TEST_F(ScheduleServiceTest, ImportCsvWritesEveryRowWithProgress) {
  AddUser(1, "Asia/Tashkent");
  AddUser(2, "Europe/Berlin");
  std::ostringstream csv;
  for (int i = 0; i < 12; ++i)
    csv << "pill-" << i << "," << 1 + i % 2 << ",18:05," << (i == 0 ? "UTC" : "") << "\n";
  std::istringstream in(csv.str());
  std::vector<std::pair<std::size_t, std::size_t>> progress;
  CsvImportOptions options;
  options.batch = 5;
  const std::size_t rows = ImportCsv(
      *pool_, in, clock_,
      [&](std::size_t done, std::size_t total) { progress.emplace_back(done, total); }, options);
  EXPECT_EQ(rows, 12u);
  EXPECT_EQ(progress, (std::vector<std::pair<std::size_t, std::size_t>>{
                          {0, 12}, {5, 12}, {10, 12}, {12, 12}}));
  EXPECT_EQ(Schedules(), 12);
  EXPECT_EQ(NextFire("pill-0"), "2026-10-20T18:05:00Z");
  EXPECT_EQ(NextFire("pill-1"), "2026-10-20T16:05:00Z");
  EXPECT_EQ(NextFire("pill-2"), "2026-10-20T13:05:00Z");
  EXPECT_EQ(Column("pill-2", "cron"), "5 18 * * *");
}

TEST_F(ScheduleServiceTest, ImportCsvWithABadLineNamesItAndWritesNothing) {
  AddUser(1, "UTC");
  std::istringstream bad_cron("a,1,18:05\nb,1,18:05\nc,1,18:65\nd,1,19:00\n");
  try {
    ImportCsv(*pool_, bad_cron, clock_, nullptr);
    ADD_FAILURE() << "imported";
  } catch (const CsvImportError& e) {
    EXPECT_EQ(e.line(), 3u);
  }
  EXPECT_EQ(Schedules(), 0);

  // A user that does not exist is only found by the database, after earlier
  // statements of the same import were written: they are rolled back.
  std::ostringstream csv;
  for (int i = 1; i <= 7; ++i) csv << "k" << i << "," << (i == 6 ? 42 : 1) << ",09:00\n";
  std::istringstream unknown_user(csv.str());
  CsvImportOptions options;
  options.batch = 2;
  try {
    ImportCsv(*pool_, unknown_user, clock_, nullptr, options);
    ADD_FAILURE() << "imported";
  } catch (const CsvImportError& e) {
    EXPECT_EQ(e.line(), 6u);
    EXPECT_NE(std::string(e.what()).find("user 42"), std::string::npos) << e.what();
  }
  EXPECT_EQ(Schedules(), 0);
}

}  // namespace
}  // namespace chopar::schedule
