#include "reports/texts.hpp"

#include <gtest/gtest.h>

#include "channels/render.hpp"
#include "reports/runner.hpp"
#include "reports/test_jobs.hpp"

namespace chopar::reports {
namespace {

using core::ChannelKind;
using testing::Tashkent;

SummaryStats SampleStats() {
  SummaryStats stats;
  stats.notifications = 1234;
  stats.deliveries[ChannelKind::kEmail] = {900, 12, 3, 0};
  stats.deliveries[ChannelKind::kTelegram] = {300, 2, 0, 1};
  stats.top_types = {{"task.due", 800}, {"pill.reminder", 434}};
  stats.failure_reasons = {{"smtp 550 <a@b.uz> mailbox unavailable", 12},
                           {"telegram 403: Forbidden: bot was blocked\nby the user", 2}};
  stats.latency_p50 = 1.234;
  stats.latency_p95 = 4.8;
  return stats;
}

ReportJob Weekly(const std::string& locale) {
  ReportJobSettings settings = testing::WeeklySettings();
  settings.locale = locale;
  return testing::Compiled(settings);
}

TEST(RenderSummaryTest, EnglishWeeklyReport) {
  const ReportJob job = Weekly("en");
  const ReportMessage message =
      RenderSummary(SampleStats(), job, PeriodOf(job, Tashkent(2026, 8, 17, 9)));
  EXPECT_EQ(message.title, "Weekly report: 2026-W33");
  EXPECT_EQ(message.body,
            "Period: 2026-08-10 – 2026-08-16 (Asia/Tashkent)\n"
            "Notifications: 1234\n"
            "Deliveries:\n"
            "— email: 900 sent, 12 failed, 3 skipped\n"
            "— telegram: 300 sent, 2 failed, 1 pending\n"
            "Top types:\n"
            "— task.due: 800\n"
            "— pill.reminder: 434\n"
            "Failure reasons:\n"
            "— smtp 550 <a@b.uz> mailbox unavailable: 12\n"
            "— telegram 403: Forbidden: bot was blocked by the user: 2\n"
            "Latency: p50 1.23 s, p95 4.8 s");
}

TEST(RenderSummaryTest, UzbekMonthlyReportOfAQuietMonth) {
  ReportJobSettings settings = testing::MonthlySettings();
  const ReportJob job = testing::Compiled(settings);
  const ReportMessage message =
      RenderSummary(SummaryStats{}, job, PeriodOf(job, Tashkent(2026, 8, 1, 9)));
  EXPECT_EQ(message.title, "Oylik hisobot: 2026-07");
  EXPECT_EQ(message.body,
            "Davr: 2026-07-01 – 2026-07-31 (Asia/Tashkent)\n"
            "Bildirishnomalar: 0\n"
            "Yetkazishlar: yo‘q");
}

TEST(RenderSummaryTest, DailyReportSoFarAndLongLatencies) {
  ReportJobSettings settings = testing::WeeklySettings();
  settings.name = "daily";
  settings.period = "day";
  settings.locale = "en";
  const ReportJob job = testing::Compiled(settings);
  SummaryStats stats;
  stats.notifications = 3;
  stats.deliveries[ChannelKind::kSms] = {3, 0, 0, 0};
  stats.latency_p50 = 95;
  stats.latency_p95 = 7300;
  const ReportMessage message = RenderSummary(stats, job, PeriodOf(job, Tashkent(2026, 8, 17, 18)));
  EXPECT_EQ(message.title, "Daily report: 2026-08-17");
  EXPECT_EQ(message.body,
            "Period: 2026-08-17 (Asia/Tashkent)\n"
            "Notifications: 3\n"
            "Deliveries:\n"
            "— sms: 3 sent\n"
            "Latency: p50 1.6 min, p95 2 h");
}

TEST(MessageForTest, AnomaliesBecomeTheAlertAndNoneIsSilence) {
  const ReportJob anomaly = testing::Compiled(testing::AnomalySettings());
  const ReportPeriod period = PeriodOf(anomaly, Tashkent(2026, 8, 17, 20));
  const auto alert =
      MessageFor(anomaly, period, AnomalyContent{{{"orders", 30}}, {{"orders", 100}}});
  ASSERT_TRUE(alert);
  EXPECT_EQ(alert->title, "⚠️ Bugungi anomaliyalar:");
  EXPECT_EQ(alert->body, "— orders: 30 (odatda 100, -70%)");
  EXPECT_EQ(MessageFor(anomaly, period, AnomalyContent{{{"orders", 90}}, {{"orders", 100}}}),
            std::nullopt);
  EXPECT_EQ(MessageFor(anomaly, period, AnomalyContent{{{"orders", 30}}, {}}), std::nullopt);
}

TEST(MessageForTest, SummaryTextWithItsOwnOrTheReportsTitle) {
  const ReportJob weekly = testing::Compiled(testing::WeeklySettings());
  const ReportPeriod period = PeriodOf(weekly, Tashkent(2026, 8, 17, 9));
  EXPECT_EQ(MessageFor(weekly, period, SummaryContent{std::nullopt, "Buyurtmalar: 1200"}),
            (ReportMessage{"Haftalik hisobot: 2026-W33", "Buyurtmalar: 1200"}));
  EXPECT_EQ(MessageFor(weekly, period, SummaryContent{"Savdo", "Buyurtmalar: 1200"}),
            (ReportMessage{"Savdo", "Buyurtmalar: 1200"}));
  EXPECT_EQ(MessageFor(weekly, period, SummaryContent{std::nullopt, ""}), std::nullopt);
}

TEST(FitNotificationLimitsTest, CutsOnCodePointsToTheNotificationsLimits) {
  std::string long_body;
  for (int i = 0; i < 6000; ++i) long_body += "ö";  // 2 bytes, 1 character each
  const ReportMessage fitted =
      FitNotificationLimits({std::string(600, 'T'), long_body + long_body});
  EXPECT_EQ(fitted.title, std::string(499, 'T') + "…");
  std::size_t characters = 0;
  for (char c : fitted.body) characters += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  EXPECT_EQ(characters, 10000u);
  EXPECT_TRUE(fitted.body.ends_with("ö…"));
  // Within the limits nothing changes.
  EXPECT_EQ(FitNotificationLimits({"t", "b"}), (ReportMessage{"t", "b"}));
}

channels::Message AsMessage(const ReportMessage& report) {
  channels::Message message;
  message.user_id = 1;
  message.type = "report.summary";
  message.title = report.title;
  message.body = report.body;
  message.locale = "en";
  return message;
}

TEST(ReportRenderingTest, TelegramHtmlEscapesTheReportAndKeepsItsLines) {
  const ReportJob job = Weekly("en");
  const ReportMessage report =
      RenderSummary(SampleStats(), job, PeriodOf(job, Tashkent(2026, 8, 17, 9)));
  const std::string html = channels::RenderTelegramHtml(AsMessage(report), "https://x.uz");
  EXPECT_TRUE(html.starts_with("<b>Weekly report: 2026-W33</b>\nPeriod: 2026-08-10 – 2026-08-16"));
  EXPECT_NE(html.find("— smtp 550 &lt;a@b.uz&gt; mailbox unavailable: 12\n"), std::string::npos);
  EXPECT_EQ(html.find("<a@b.uz>"), std::string::npos);
}

TEST(ReportRenderingTest, EmailKeepsOneFactALine) {
  const ReportMessage alert = RenderAnomalies({{"orders", 30, 100}, {"a<b", 0, 4}}, "en");
  const channels::EmailContent email =
      channels::RenderEmail(AsMessage(alert), "https://x.uz", "https://x.uz/v1/unsubscribe");
  EXPECT_EQ(email.subject, "⚠️ Today's anomalies:");
  EXPECT_NE(email.html.find("— orders: 30 (usually 100, -70%)<br>\n— a&lt;b: 0 (usually 4, "
                            "-100%)</p>"),
            std::string::npos);
  EXPECT_NE(email.text.find("— orders: 30 (usually 100, -70%)\n— a<b: 0"), std::string::npos);
}

}  // namespace
}  // namespace chopar::reports
