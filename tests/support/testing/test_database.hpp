#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "db/pool.hpp"

namespace chopar::testing {

// A fresh database for one test on the server named by
// CHOPAR_TEST_DATABASE_URL (set by scripts/with-test-pg): fully migrated
// (cloned from a template database) unless asked for an empty one. Dropped
// when the object goes. Tests that need it skip with a message when the
// variable is missing, so pure tests still run.
class TestDatabase {
 public:
  enum class Contents {
    kMigrated,  // a clone of the migrated template: chopar's schema, as `chopar migrate` leaves it
    kEmpty,     // a new database with nothing in it (migration tests; an application's database
                // before `chopar outbox install`)
  };
  explicit TestDatabase(Contents contents = Contents::kMigrated);
  ~TestDatabase();
  TestDatabase(const TestDatabase&) = delete;
  TestDatabase& operator=(const TestDatabase&) = delete;

  // Connection string of the test's own database.
  [[nodiscard]] const std::string& url() const { return url_; }
  // A new direct connection to it.
  [[nodiscard]] db::Connection Connect() const;
  // Runs SQL and returns the first column of the first row as text ("" if none).
  std::string Scalar(const std::string& sql) const;
  std::int64_t Count(const std::string& sql) const { return std::stoll(Scalar(sql)); }

  static bool Available();

 private:
  std::string name_;
  std::string url_;
};

// Fixture base: `db_` is a fresh database, `pool_` a pool on it.
class PgTest : public ::testing::Test {
 protected:
  void SetUp() override;
  std::unique_ptr<TestDatabase> db_;
  std::unique_ptr<db::Pool> pool_;
};

}  // namespace chopar::testing
