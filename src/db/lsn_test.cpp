#include "db/lsn.hpp"

#include <gtest/gtest.h>

namespace chopar::db {
namespace {

TEST(Lsn, ParsesAndFormatsPostgresqlsTextForm) {
  EXPECT_EQ(ParseLsn("0/0"), Lsn{0});
  EXPECT_EQ(ParseLsn("16/B374D848"), (Lsn{0x16} << 32) | 0xB374D848);
  EXPECT_EQ(ParseLsn("16/b374d848"), (Lsn{0x16} << 32) | 0xB374D848);
  EXPECT_EQ(ParseLsn("FFFFFFFF/FFFFFFFF"), ~Lsn{0});
  EXPECT_EQ(FormatLsn((Lsn{0x16} << 32) | 0xB374D848), "16/B374D848");
  EXPECT_EQ(FormatLsn(0), "0/0");
  EXPECT_EQ(ParseLsn(FormatLsn(~Lsn{0})), ~Lsn{0});
}

TEST(Lsn, RefusesAnythingElse) {
  for (const char* text : {"", "/", "16/", "/1", "16", "1/2/3", "x/1", "1/ 2", "-1/2", "+1/2",
                           "100000000/0", "0/100000000", "soon"}) {
    EXPECT_FALSE(ParseLsn(text)) << text;
  }
}

TEST(Lsn, ScopesCaptureCommitsAndNameWhatAReadMustSee) {
  EXPECT_FALSE(CapturingWriteLsn());
  EXPECT_FALSE(ReadAfterLsn());
  RecordWriteLsn(5);  // no scope: nowhere to go
  {
    ReadYourWritesScope request(Lsn{10}, /*capture=*/true);
    EXPECT_TRUE(CapturingWriteLsn());
    EXPECT_EQ(ReadAfterLsn(), Lsn{10});
    RecordWriteLsn(30);
    RecordWriteLsn(20);  // the largest is kept
    EXPECT_EQ(request.written(), Lsn{30});
    // A read after the request's own write waits for it too.
    EXPECT_EQ(ReadAfterLsn(), Lsn{30});
    {
      ReadYourWritesScope inner(std::nullopt, /*capture=*/false);
      EXPECT_FALSE(CapturingWriteLsn());
      EXPECT_FALSE(ReadAfterLsn());
    }
    EXPECT_TRUE(CapturingWriteLsn());
  }
  EXPECT_FALSE(CapturingWriteLsn());
}

}  // namespace
}  // namespace chopar::db
