#include "schedule/csv_import.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace chopar::schedule {
namespace {

CsvSchedules Parse(const std::string& text, const CsvImportOptions& options = {}) {
  std::istringstream in(text);
  return ParseScheduleCsv(in, options);
}

// The line a CSV is refused at, with its message; a failure if accepted.
CsvImportError ErrorFor(const std::string& text) {
  try {
    (void)Parse(text);
  } catch (const CsvImportError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted:\n" << text;
  return CsvImportError(0, "");
}

TEST(CsvImportTest, PositionalRowsWithDailyTimesAndOptionalZone) {
  const CsvSchedules s = Parse(
      "pill-1,1,18:05,Asia/Tashkent\n"
      "pill-2,2,8:30,\r\n"
      "pill-3,3,*/15 9-17 * * MON-FRI\n");
  ASSERT_EQ(s.specs.size(), 3u);
  EXPECT_EQ(s.specs[0].key, "pill-1");
  EXPECT_EQ(s.specs[0].user_id, 1);
  EXPECT_EQ(s.specs[0].cron, "5 18 * * *");
  EXPECT_EQ(s.specs[0].timezone, "Asia/Tashkent");
  EXPECT_EQ(s.specs[1].cron, "30 8 * * *");
  EXPECT_EQ(s.specs[1].timezone, std::nullopt);
  EXPECT_EQ(s.specs[2].cron, "*/15 9-17 * * MON-FRI");
  EXPECT_EQ(s.specs[2].notification.type, "reminder");
  EXPECT_EQ(s.specs[2].notification.title, "Reminder");
  EXPECT_EQ(s.lines, (std::vector<std::size_t>{1, 2, 3}));
}

TEST(CsvImportTest, DelayAndCancellationKeyColumnsAreCheckedAsTheApiChecksThem) {
  const CsvSchedules s = Parse(
      "key,user_id,cron,delay_seconds,cancellation_key\n"
      "pill-1,1,18:00,600,pill-1:dose\n"
      "pill-2,2,18:00,,\n");
  ASSERT_EQ(s.specs.size(), 2u);
  EXPECT_EQ(s.specs[0].notification.delay_seconds, 600);
  EXPECT_EQ(s.specs[0].notification.cancellation_key, "pill-1:dose");
  EXPECT_EQ(s.specs[1].notification.delay_seconds, std::nullopt);
  EXPECT_EQ(s.specs[1].notification.cancellation_key, std::nullopt);

  const std::string header = "key,user_id,cron,delay_seconds\n";
  EXPECT_NE(std::string(ErrorFor(header + "pill-1,1,18:00,ten\n").what()).find("delay_seconds"),
            std::string::npos);
  const CsvImportError too_long = ErrorFor(header + "pill-1,1,18:00,31622401\n");
  EXPECT_EQ(too_long.line(), 2u);
  EXPECT_NE(std::string(too_long.what()).find("delay_seconds"), std::string::npos)
      << too_long.what();
}

TEST(CsvImportTest, HeaderNamesColumnsInAnyOrderWithTemplateFields) {
  CsvImportOptions options;
  options.catchup = {{"policy", "all"}};
  const CsvSchedules s = Parse(
      "\xEF\xBB\xBFuser_id,key,time,title,body,channels,catchup_window_seconds,timezone\n"
      "# comment lines and blank lines are skipped\n"
      "\n"
      "7,pill-7,18:05,Sitramon,\"Dori vaqti, 18:00\",push;telegram,600,Europe/Berlin\n",
      options);
  ASSERT_EQ(s.specs.size(), 1u);
  const ScheduleSpec& spec = s.specs[0];
  EXPECT_EQ(spec.key, "pill-7");
  EXPECT_EQ(spec.user_id, 7);
  EXPECT_EQ(spec.cron, "5 18 * * *");
  EXPECT_EQ(spec.timezone, "Europe/Berlin");
  EXPECT_EQ(spec.notification.title, "Sitramon");
  EXPECT_EQ(spec.notification.body, "Dori vaqti, 18:00");
  EXPECT_EQ(
      spec.notification.channels,
      (std::vector<core::ChannelKind>{core::ChannelKind::kPush, core::ChannelKind::kTelegram}));
  EXPECT_EQ(spec.catchup_policy, CatchupPolicy::kAll);
  EXPECT_EQ(spec.catchup_window, std::chrono::seconds(600));
  EXPECT_EQ(s.lines, std::vector<std::size_t>{4});
}

TEST(CsvImportTest, QuotedFieldSpanningLinesKeepsLaterLineNumbersRight) {
  const CsvImportError e = ErrorFor(
      "key,user_id,cron,body\n"
      "a,1,18:05,\"two\n"
      "lines and a \"\"quote\"\"\"\n"
      "b,2,61 * * * *,x\n");
  EXPECT_EQ(e.line(), 4u);
  const CsvSchedules s = Parse(
      "key,user_id,cron,body\n"
      "a,1,18:05,\"two\n"
      "lines and a \"\"quote\"\"\"\n");
  EXPECT_EQ(s.specs[0].notification.body, "two\nlines and a \"quote\"");
  EXPECT_EQ(s.lines, std::vector<std::size_t>{2});
}

TEST(CsvImportTest, ErrorsNameTheLine) {
  const CsvImportError cron = ErrorFor("a,1,18:05\nb,2,5 24 * * *\n");
  EXPECT_EQ(cron.line(), 2u);
  EXPECT_EQ(std::string(cron.what()).rfind("line 2: ", 0), 0u) << cron.what();
  EXPECT_NE(std::string(cron.what()).find("position"), std::string::npos) << cron.what();

  EXPECT_EQ(ErrorFor("a,1,25:00\n").line(), 1u);
  EXPECT_EQ(ErrorFor("a,1,18:05\n\nb,x,18:05\n").line(), 3u);
  EXPECT_EQ(ErrorFor("a,1,18:05,Mars/Olympus\n").line(), 1u);
  EXPECT_EQ(ErrorFor("a,1\n").line(), 1u);
  EXPECT_EQ(ErrorFor("a,1,18:05\n,2,18:05\n").line(), 2u);
  EXPECT_EQ(ErrorFor("a,1,\"18:05\n").line(), 1u);
  EXPECT_EQ(ErrorFor("key,user_id,when\n").line(), 1u);
  EXPECT_EQ(ErrorFor("key,user_id,cron\na,1,18:05,extra\n").line(), 2u);
}

TEST(CsvImportTest, RowsWithAndWithoutTheirOwnTemplateAgree) {
  CsvImportOptions options;
  options.notification = {{"type", "pill.reminder"}, {"title", "Sitramon"}, {"channels", {"push"}}};
  options.catchup = {{"policy", "none"}, {"window_seconds", 120}};
  const CsvSchedules s = Parse(
      "key,user_id,cron,timezone,title\n"
      "shared,5,18:05,Asia/Tashkent,\n"
      "own,5,18:05,Asia/Tashkent,Sitramon\n",
      options);
  ASSERT_EQ(s.specs.size(), 2u);
  EXPECT_EQ(s.specs[0].notification, s.specs[1].notification);
  EXPECT_EQ(s.specs[0].pattern, s.specs[1].pattern);
  EXPECT_EQ(s.specs[0].timezone, s.specs[1].timezone);
  EXPECT_EQ(s.specs[0].catchup_policy, CatchupPolicy::kNone);
  EXPECT_EQ(s.specs[1].catchup_policy, CatchupPolicy::kNone);
  EXPECT_EQ(s.specs[1].catchup_window, std::chrono::seconds(120));
  EXPECT_EQ(ErrorFor("a b,1,18:05\n").line(), 1u);

  CsvImportOptions bad;
  bad.notification = {{"type", "Not A Type"}, {"title", "x"}};
  std::istringstream in("a,1,18:05\n");
  EXPECT_THROW(ParseScheduleCsv(in, bad), std::invalid_argument);
}

TEST(CsvImportTest, RepeatedKeyNamesBothLines) {
  const CsvImportError e = ErrorFor("a,1,18:05\nb,1,18:05\na,2,19:00\n");
  EXPECT_EQ(e.line(), 3u);
  EXPECT_NE(std::string(e.what()).find("repeats line 1"), std::string::npos) << e.what();
}

}  // namespace
}  // namespace chopar::schedule
