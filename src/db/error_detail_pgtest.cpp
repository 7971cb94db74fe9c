// Errors from PostgreSQL carry its primary message only: the DETAIL of a
// constraint violation quotes the row ("Failing row contains (…)", "Key
// (email)=(…)"), and error messages end up in logs and answers.
#include <gtest/gtest.h>

#include "db/errors.hpp"
#include "db/pool.hpp"
#include "testing/test_database.hpp"

namespace chopar::db {
namespace {

constexpr Query kInsertUser{"test.detail_insert_user",
                            "INSERT INTO users (id, email) VALUES ($1, $2)"};

class ErrorDetailTest : public testing::PgTest {};

TEST_F(ErrorDetailTest, ConstraintViolationsDoNotQuoteTheRow) {
  auto conn = pool_->Acquire();
  conn->Exec(kInsertUser, 1, "aziz.private@example.uz");
  const auto message_of = [&](std::int64_t id, const std::string& email) -> std::string {
    try {
      conn->Exec(kInsertUser, id, email);
    } catch (const DbError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no violation for " << id << " " << email;
    return "";
  };
  for (const auto& [id, email] :
       {std::pair<std::int64_t, std::string>{1, "other.secret@example.uz"},
        {2, "secret-not-an-email"}}) {
    const std::string message = message_of(id, email);
    EXPECT_FALSE(message.empty());
    EXPECT_EQ(message.find("secret"), std::string::npos) << message;
    EXPECT_EQ(message.find("private"), std::string::npos) << message;
    EXPECT_EQ(message.find("Failing row"), std::string::npos) << message;
    EXPECT_EQ(message.find("DETAIL"), std::string::npos) << message;
  }
}

// A full disk (or memory, or connection slots) on the server is a class 53
// error: retried later by the loops and a 503 to a caller, never a 500.
TEST_F(ErrorDetailTest, AFullDiskIsInsufficientResourcesAndTransient) {
  constexpr Query kFullDisk{"test.detail_full_disk",
                            "DO $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on "
                            "device' USING ERRCODE = 'disk_full'; END $$"};
  try {
    pool_->Acquire()->Exec(kFullDisk);
    ADD_FAILURE() << "no error raised";
  } catch (const InsufficientResources& e) {
    EXPECT_EQ(e.sqlstate(), "53100");
    EXPECT_TRUE(IsTransient(e));
  }
}

}  // namespace
}  // namespace chopar::db
