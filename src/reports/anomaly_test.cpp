#include "reports/anomaly.hpp"

#include <gtest/gtest.h>

#include "reports/texts.hpp"

namespace chopar::reports {
namespace {

TEST(DetectAnomaliesTest, TheDocumentsExampleSeventyPercentDown) {
  const auto found = DetectAnomalies({{"orders", 30}}, {{"orders", 100}}, 0.5);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], (Anomaly{"orders", 30, 100}));
  EXPECT_EQ(found[0].ChangePercent(), -70);
}

TEST(DetectAnomaliesTest, NoBaselineNoVerdict) {
  EXPECT_TRUE(DetectAnomalies({{"orders", 30}}, {}, 0.5).empty());
  EXPECT_TRUE(DetectAnomalies({{"orders", 30}}, {{"orders", 0}}, 0.5).empty());
  EXPECT_TRUE(DetectAnomalies({{"orders", 30}}, {{"users", 100}}, 0.5).empty());
}

TEST(DetectAnomaliesTest, OnlyBeyondTheThresholdInEitherDirection) {
  const Metrics baseline = {{"a", 100}, {"b", 100}, {"c", 100}, {"d", 100}, {"e", 100}};
  const Metrics today = {{"a", 150}, {"b", 50}, {"c", 151}, {"d", 49}, {"e", 100}};
  const auto found = DetectAnomalies(today, baseline, 0.5);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].metric, "c");
  EXPECT_EQ(found[0].ChangePercent(), 51);
  EXPECT_EQ(found[1].metric, "d");
  EXPECT_EQ(found[1].ChangePercent(), -51);
  // A lower threshold catches more.
  EXPECT_EQ(DetectAnomalies(today, baseline, 0.2).size(), 4u);
}

TEST(DetectAnomaliesTest, NothingFoundMeansSilence) {
  EXPECT_TRUE(DetectAnomalies({{"orders", 95}}, {{"orders", 100}}, 0.5).empty());
  EXPECT_TRUE(DetectAnomalies({}, {}, 0.5).empty());
}

TEST(AnomalyTest, ChangePercentRoundsHalvesToEven) {
  EXPECT_EQ((Anomaly{"m", 250, 100}).ChangePercent(), 150);
  EXPECT_EQ((Anomaly{"m", 0, 57.5}).ChangePercent(), -100);
  EXPECT_EQ((Anomaly{"m", 102.5, 100}).ChangePercent(), 2);  // 2.5 → 2
  EXPECT_EQ((Anomaly{"m", 97.5, 100}).ChangePercent(), -2);  // -2.5 → -2
  EXPECT_EQ((Anomaly{"m", 100.5, 100}).ChangePercent(), 0);  // 0.5 → 0
}

TEST(BaselineFromHistoryTest, MeanOfTheTwoNewestWeeks) {
  EXPECT_DOUBLE_EQ(BaselineFromHistory(std::vector<double>{80, 120, 1000}), 100);
  EXPECT_DOUBLE_EQ(BaselineFromHistory(std::vector<double>{50}), 50);
  EXPECT_DOUBLE_EQ(BaselineFromHistory(std::vector<double>{}), 0);
}

TEST(RenderAnomaliesTest, TheDocumentsMessageInUzbekAndEnglish) {
  const std::vector<Anomaly> found = {{"orders", 30, 100}, {"signups", 250, 100}};
  const ReportMessage uz = RenderAnomalies(found, "uz");
  EXPECT_EQ(uz.title, "⚠️ Bugungi anomaliyalar:");
  EXPECT_EQ(uz.body, "— orders: 30 (odatda 100, -70%)\n— signups: 250 (odatda 100, +150%)");
  const ReportMessage en = RenderAnomalies(found, "en");
  EXPECT_EQ(en.title, "⚠️ Today's anomalies:");
  EXPECT_EQ(en.body, "— orders: 30 (usually 100, -70%)\n— signups: 250 (usually 100, +150%)");
}

TEST(FormatNumberTest, WholeNumbersPlainOthersWithAtMostTwoDecimals) {
  EXPECT_EQ(FormatNumber(30), "30");
  EXPECT_EQ(FormatNumber(57.5), "57.5");
  EXPECT_EQ(FormatNumber(1.0 / 3), "0.33");
  EXPECT_EQ(FormatNumber(-12), "-12");
  EXPECT_EQ(FormatNumber(1234567), "1234567");
  EXPECT_EQ(FormatNumber(2.999), "3");
}

}  // namespace
}  // namespace chopar::reports
