#include "reports/http_source.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "reports/test_jobs.hpp"
#include "testing/fake_http_server.hpp"

namespace chopar::reports {
namespace {

using chopar::testing::FakeHttpServer;
using nlohmann::json;
using testing::Tashkent;

TEST(HttpUrlTest, OnlyHttpAndHttpsWithAHost) {
  EXPECT_EQ(HttpUrlProblem("https://shop.example.uz/stats/weekly"), std::nullopt);
  EXPECT_EQ(HttpUrlProblem("http://127.0.0.1:8000/stats?token=x"), std::nullopt);
  EXPECT_EQ(HttpUrlProblem("ftp://shop.example.uz/x"), "unsupported scheme \"ftp\"");
  EXPECT_TRUE(HttpUrlProblem("stats"));
  EXPECT_TRUE(HttpUrlProblem("https://"));
  EXPECT_TRUE(HttpUrlProblem(""));
}

TEST(HttpUrlTest, QueryIsAppendedEncodedAndHiddenWhenShown) {
  EXPECT_EQ(WithQuery("https://shop.example.uz/stats?token=s3cret",
                      {{"period", "weekly:2026-W33"}, {"job", "weekly"}}),
            "https://shop.example.uz/stats?token=s3cret&job=weekly&period=weekly%3a2026-W33");
  EXPECT_EQ(RedactedUrl("https://user:pw@shop.example.uz/stats?token=s3cret"),
            "https://shop.example.uz/stats?…");
  EXPECT_EQ(RedactedUrl("https://shop.example.uz/stats"), "https://shop.example.uz/stats");
}

TEST(ParseSourceAnswerTest, SummaryTextAndOptionalTitle) {
  const auto content =
      std::get<SummaryContent>(ParseSourceAnswer(ReportKind::kSummary, {{"text", "Savdo: 12"}}));
  EXPECT_EQ(content.text, "Savdo: 12");
  EXPECT_EQ(content.title, std::nullopt);
  EXPECT_EQ(std::get<SummaryContent>(
                ParseSourceAnswer(ReportKind::kSummary, {{"text", "x"}, {"title", "Savdo"}}))
                .title,
            "Savdo");
}

TEST(ParseSourceAnswerTest, AnomalyWithBaselineOrHistory) {
  const auto given = std::get<AnomalyContent>(ParseSourceAnswer(
      ReportKind::kAnomaly, {{"metrics", {{"orders", 30}}}, {"baseline", {{"orders", 100}}}}));
  EXPECT_EQ(given.today, (Metrics{{"orders", 30}}));
  EXPECT_EQ(given.baseline, (Metrics{{"orders", 100}}));
  const auto averaged = std::get<AnomalyContent>(ParseSourceAnswer(
      ReportKind::kAnomaly, {{"metrics", {{"orders", 30}}},
                             {"history", {{"orders", {80, 120, 5}}, {"users", json::array()}}}}));
  EXPECT_EQ(averaged.baseline, (Metrics{{"orders", 100}, {"users", 0}}));
}

TEST(ParseSourceAnswerTest, WrongShapesAreSourceErrors) {
  const auto refusal = [](ReportKind kind, const json& body) -> std::string {
    try {
      (void)ParseSourceAnswer(kind, body);
    } catch (const SourceError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  EXPECT_EQ(refusal(ReportKind::kSummary, json::array()),
            "the source answered with JSON that is not an object");
  EXPECT_EQ(refusal(ReportKind::kSummary, {{"txt", "x"}}),
            "the source answered without a string \"text\"");
  EXPECT_EQ(refusal(ReportKind::kAnomaly,
                    {{"metrics", {{"orders", "30"}}}, {"baseline", json::object()}}),
            "the source answered a non-number for \"metrics.orders\"");
  EXPECT_EQ(refusal(ReportKind::kAnomaly, {{"metrics", json::object()}}),
            "the source answered without \"baseline\" or \"history\"");
  EXPECT_EQ(refusal(ReportKind::kAnomaly, {{"metrics", json::object()}, {"history", {{"a", 1}}}}),
            "the source answered a \"history.a\" that is not a list");
}

FakeHttpServer::Response Answer(int status, std::string body) {
  FakeHttpServer::Response response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

ReportJob HttpJob(const std::string& url, const std::string& kind = "summary") {
  ReportJobSettings settings =
      kind == "summary" ? testing::WeeklySettings() : testing::AnomalySettings();
  settings.source = url;
  settings.timeout = std::chrono::milliseconds(300);
  return testing::Compiled(settings);
}

TEST(HttpSourceTest, GetsThePeriodsContent) {
  FakeHttpServer server([](const FakeHttpServer::Request&) {
    return Answer(200, R"({"text": "Buyurtmalar: 1200"})");
  });
  net::HttpClient http;
  HttpSource source(http);
  const ReportJob job = HttpJob(server.url() + "/stats/weekly");
  const auto content = source.Fetch(job, PeriodOf(job, Tashkent(2026, 8, 17, 9)));
  EXPECT_EQ(std::get<SummaryContent>(content).text, "Buyurtmalar: 1200");
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].target,
            "/stats/weekly?from=2026-08-09T19%3a00%3a00Z&job=weekly&period=weekly%3a2026-W33"
            "&to=2026-08-16T19%3a00%3a00Z");
}

TEST(HttpSourceTest, NonSuccessAndTimeoutMeanTheJobDidNotRun) {
  FakeHttpServer server(
      [](const FakeHttpServer::Request&) { return Answer(503, R"({"error": "maintenance"})"); });
  net::HttpClient http;
  HttpSource source(http);
  const ReportJob job = HttpJob(server.url(), "anomaly");
  const ReportPeriod period = PeriodOf(job, Tashkent(2026, 8, 17, 20));
  try {
    (void)source.Fetch(job, period);
    FAIL() << "a 503 was taken as content";
  } catch (const SourceError& e) {
    EXPECT_STREQ(e.what(), "HTTP 503: {\"error\": \"maintenance\"}");
  }
  // An answer later than the job's timeout (300 ms).
  server.SetHandler([](const FakeHttpServer::Request&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    return Answer(200, R"({"metrics": {}, "baseline": {}})");
  });
  try {
    (void)source.Fetch(job, period);
    FAIL() << "a late answer was waited for";
  } catch (const SourceError& e) {
    EXPECT_STREQ(e.what(), "no answer within 300 ms");
  }
}

}  // namespace
}  // namespace chopar::reports
