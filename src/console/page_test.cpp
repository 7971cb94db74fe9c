#include "console/page.hpp"

#include <gtest/gtest.h>

#include "core/encoding.hpp"
#include "core/request_error.hpp"

namespace chopar::console {
namespace {

core::ErrorCode CodeOf(const std::function<void()>& call) {
  try {
    call();
  } catch (const core::RequestError& e) {
    EXPECT_EQ(e.field(), std::optional<std::string>("cursor"));
    return e.code();
  }
  ADD_FAILURE() << "no RequestError";
  return core::ErrorCode::kUnavailable;
}

TEST(PageTest, CursorsCarryTheirKeyOpaquely) {
  EXPECT_EQ(DecodeIdCursor(core::Base64UrlEncode("42")), 42);
  EXPECT_EQ(DecodeKeyCursor(core::Base64UrlEncode("pill-17")), "pill-17");
}

TEST(PageTest, MalformedCursorsAreInvalidFields) {
  for (const std::string& cursor :
       {std::string("!!"), std::string(""), core::Base64UrlEncode("4x2"),
        core::Base64UrlEncode("-3"), core::Base64UrlEncode("0")}) {
    EXPECT_EQ(CodeOf([&] { (void)DecodeIdCursor(cursor); }), core::ErrorCode::kInvalidField)
        << cursor;
  }
  EXPECT_EQ(CodeOf([] { (void)DecodeKeyCursor("%%"); }), core::ErrorCode::kInvalidField);
}

// GET /v1/schedules?cursor=99999999999999999999 was a 500: the cursor
// decoded to bytes that are not UTF-8, which PostgreSQL refused as text.
TEST(PageTest, KeyCursorOfBytesNoKeyHasIsAnInvalidFieldNotAnInternalError) {
  for (const std::string& cursor :
       {std::string("99999999999999999999"), core::Base64UrlEncode("\xff\xfe"),
        core::Base64UrlEncode(std::string("a\0b", 3)), core::Base64UrlEncode("a\nb")}) {
    EXPECT_EQ(CodeOf([&] { (void)DecodeKeyCursor(cursor); }), core::ErrorCode::kInvalidField)
        << cursor;
  }
}

TEST(PageTest, LimitOutsideItsRangeIsRefused) {
  EXPECT_EQ(CheckLimit(1, 100), 1);
  EXPECT_EQ(CheckLimit(100, 100), 100);
  EXPECT_THROW((void)CheckLimit(0, 100), core::RequestError);
  EXPECT_THROW((void)CheckLimit(101, 100), core::RequestError);
}

}  // namespace
}  // namespace chopar::console
