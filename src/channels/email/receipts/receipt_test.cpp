#include "channels/email/receipts/receipt.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "channels/email/receipts/signed_time.hpp"

namespace chopar::channels::email::receipts {
namespace {

using namespace std::chrono_literals;

TEST(ShortDetail, CutsOnACodePointBoundary) {
  // "ў" is two bytes: 299 bytes of "a" and then one would cut it in half.
  const std::string text = std::string(299, 'a') + "ўўўў";
  const std::string detail = ShortDetail(text);
  EXPECT_EQ(detail, std::string(299, 'a'));
  EXPECT_EQ(ShortDetail(std::string(298, 'a') + "ўўўў"), std::string(298, 'a') + "ў");
}

TEST(ShortDetail, TurnsControlCharactersIntoSpaces) {
  EXPECT_EQ(ShortDetail("  550 5.1.1\r\nunknown\tuser "), "550 5.1.1  unknown user");
  EXPECT_EQ(ShortDetail(std::string("a\0b", 3)), "a b");
}

TEST(ReceiptBatch, RefusesTheReceiptPastTheBound) {
  ReceiptBatch batch;
  for (std::size_t i = 0; i < kMaxReceiptsPerWebhook; ++i) ASSERT_TRUE(batch.Add({}));
  EXPECT_FALSE(batch.Add({}));
  EXPECT_EQ(batch.refusal, Refusal::kTooMany);
  EXPECT_TRUE(batch.receipts.empty());
  EXPECT_FALSE(batch.ok());
}

TEST(ReceiptNames, AreStable) {
  EXPECT_EQ(ReceiptKindName(ReceiptKind::kBounced), "bounced");
  EXPECT_EQ(RefusalName(Refusal::kUnauthenticated), "unauthenticated");
  EXPECT_EQ(RefusalName(Refusal::kNone), "");
}

TEST(UnixTimeText, ReadsWholeAndFractionalSeconds) {
  EXPECT_EQ(UnixTimeText("1600112502"), core::TimePoint(1600112502s));
  EXPECT_EQ(UnixTimeText("1600112502.5"), core::TimePoint(1600112502s) + 500ms);
  for (const char* odd : {"", "-1", "1e9", " 1600112502", "1600112502.", ".5", "99999999999",
                          "160011250x", "123456789012"}) {
    EXPECT_FALSE(UnixTimeText(odd)) << odd;
  }
}

TEST(UnixTimeValue, ReadsNumbersAndDigitStrings) {
  EXPECT_EQ(UnixTimeValue(nlohmann::json(1600112502)), core::TimePoint(1600112502s));
  EXPECT_EQ(UnixTimeValue(nlohmann::json("1600112502")), core::TimePoint(1600112502s));
  EXPECT_TRUE(UnixTimeValue(nlohmann::json(1534108637.153125)));
  EXPECT_FALSE(UnixTimeValue(nlohmann::json(-5)));
  EXPECT_FALSE(UnixTimeValue(nlohmann::json(1e300)));
  EXPECT_FALSE(UnixTimeValue(nlohmann::json(true)));
  EXPECT_FALSE(UnixTimeValue(nlohmann::json::object()));
}

TEST(WithinWindow, IncludesItsEdges) {
  const core::TimePoint now(1600112502s);
  EXPECT_TRUE(WithinWindow(now - 10min, now, 10min, 5min));
  EXPECT_TRUE(WithinWindow(now + 5min, now, 10min, 5min));
  EXPECT_FALSE(WithinWindow(now - 10min - 1s, now, 10min, 5min));
  EXPECT_FALSE(WithinWindow(now + 5min + 1s, now, 10min, 5min));
}

}  // namespace
}  // namespace chopar::channels::email::receipts
