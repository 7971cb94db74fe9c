#include "hub/cursor.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "core/encoding.hpp"
#include "core/request_error.hpp"

namespace chopar::hub {
namespace {

std::string Forged(const std::string& text) { return core::Base64UrlEncode(text); }

void ExpectRefused(const std::function<void()>& decode, const std::string& what) {
  try {
    decode();
    ADD_FAILURE() << what << " was accepted";
  } catch (const core::RequestError& e) {
    EXPECT_EQ(e.code(), core::ErrorCode::kInvalidField) << what;
    EXPECT_EQ(e.field(), "cursor") << what;
  }
}

TEST(CursorTest, InboxCursorRoundTrips) {
  const InboxCursor cursor{1'790'000'000'123'456, 42};
  const InboxCursor decoded = DecodeInboxCursor(EncodeInboxCursor(cursor));
  EXPECT_EQ(decoded.created_micros, cursor.created_micros);
  EXPECT_EQ(decoded.id, cursor.id);
}

TEST(CursorTest, ForgedInboxCursorsAreRefusedNotPassedToTheDatabase) {
  for (const std::string text :
       {"-9223372036854775807:1", "-1:1", "0:0", "0:-5", "1:", ":1", "1:2:3", "1", "", "1:2 ",
        " 1:2", "+1:2", "1:99999999999999999999"}) {
    ExpectRefused([&] { (void)DecodeInboxCursor(Forged(text)); }, text);
  }
  ExpectRefused([] { (void)DecodeInboxCursor("%%%"); }, "not base64url");
  // The far future is still a time PostgreSQL holds (up to the year 294276).
  EXPECT_EQ(DecodeInboxCursor(Forged("9223372036854775807:1")).created_micros,
            std::numeric_limits<std::int64_t>::max());
  ExpectRefused([] { (void)DecodeInboxCursor(""); }, "empty");
}

TEST(CursorTest, IdCursorRoundTripsAndRefusesForgeries) {
  EXPECT_EQ(DecodeIdCursor(EncodeIdCursor(7)), 7);
  EXPECT_EQ(DecodeIdCursor(EncodeIdCursor(std::numeric_limits<std::int64_t>::max())),
            std::numeric_limits<std::int64_t>::max());
  for (const std::string text : {"0", "-5", "x", "", "9223372036854775808", "7:1"}) {
    ExpectRefused([&] { (void)DecodeIdCursor(Forged(text)); }, text);
  }
}

}  // namespace
}  // namespace chopar::hub
