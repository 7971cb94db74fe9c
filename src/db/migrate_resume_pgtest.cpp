// A migration marked "no transaction" runs statement by statement: a
// `chopar migrate` killed (or its connection lost) between two statements
// leaves the ones before applied and the migration unrecorded, so the next
// start runs it again from its first statement. Every such migration must
// then finish and leave the schema a straight run leaves.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "db/migrate.hpp"
#include "testing/test_database.hpp"

namespace chopar::db {
namespace {

using testing::TestDatabase;

// chopar's schema as text, sorted: relations, columns, indexes (with their
// validity), constraints (with theirs), functions and triggers. Equal texts
// mean the same schema whatever order the objects were made in.
constexpr const char* kSchemaFingerprint = R"sql(
SELECT string_agg(line, E'\n' ORDER BY line) FROM (
  SELECT 'relation ' || c.relname || ' ' || c.relkind::text AS line
  FROM pg_catalog.pg_class c WHERE c.relnamespace = 'chopar'::regnamespace
  UNION ALL
  SELECT 'column ' || c.relname || '.' || a.attname || ' '
         || pg_catalog.format_type(a.atttypid, a.atttypmod) || ' not null ' || a.attnotnull
         || ' default ' || coalesce(pg_catalog.pg_get_expr(d.adbin, d.adrelid), '')
  FROM pg_catalog.pg_attribute a
  JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
  LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
  WHERE c.relnamespace = 'chopar'::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
    AND c.relkind IN ('r', 'p', 'v', 'm')
  UNION ALL
  SELECT 'index ' || pg_catalog.pg_get_indexdef(i.indexrelid) || ' valid ' || i.indisvalid
  FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
  WHERE c.relnamespace = 'chopar'::regnamespace
  UNION ALL
  SELECT 'constraint ' || n.conrelid::regclass || ' ' || n.conname || ' '
         || pg_catalog.pg_get_constraintdef(n.oid) || ' validated ' || n.convalidated
  FROM pg_catalog.pg_constraint n WHERE n.connamespace = 'chopar'::regnamespace
  UNION ALL
  SELECT 'function ' || p.oid::regprocedure || ' ' || pg_catalog.md5(p.prosrc)
  FROM pg_catalog.pg_proc p WHERE p.pronamespace = 'chopar'::regnamespace
  UNION ALL
  SELECT 'trigger ' || t.tgrelid::regclass || ' ' || pg_catalog.pg_get_triggerdef(t.oid)
  FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid
  WHERE c.relnamespace = 'chopar'::regnamespace AND NOT t.tgisinternal
) schema
)sql";

bool RunsWithoutTransaction(const Migration& migration) {
  return std::string_view(migration.sql).starts_with(kNoTransactionMarker);
}

class MigrateResumeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!TestDatabase::Available()) GTEST_SKIP() << "CHOPAR_TEST_DATABASE_URL is not set";
  }
};

TEST_F(MigrateResumeTest, EachNoTransactionMigrationFinishesAfterStoppingBetweenAnyTwoStatements) {
  const std::span<const Migration> all = EmbeddedMigrations();
  std::string straight;
  {
    TestDatabase db(TestDatabase::Contents::kEmpty);
    Connection conn = db.Connect();
    Migrate(conn, all);
    straight = db.Scalar(kSchemaFingerprint);
  }
  int stops = 0;
  for (std::size_t m = 0; m < all.size(); ++m) {
    if (!RunsWithoutTransaction(all[m])) continue;
    const std::vector<std::string> statements = SplitSqlStatements(all[m].sql);
    for (std::size_t done = 1; done < statements.size(); ++done) {
      SCOPED_TRACE("migration " + std::to_string(all[m].version) + " stopped after statement " +
                   std::to_string(done) + " of " + std::to_string(statements.size()));
      TestDatabase db(TestDatabase::Contents::kEmpty);
      Connection conn = db.Connect();
      Migrate(conn, all.first(m));
      for (std::size_t s = 0; s < done; ++s) conn.ExecScript(statements[s]);
      // The next start: everything from the unrecorded migration on.
      Connection restarted = db.Connect();
      ASSERT_NO_THROW(Migrate(restarted, all));
      EXPECT_EQ(db.Scalar(kSchemaFingerprint), straight);
      ++stops;
    }
  }
  std::cout << "resumed migrations after " << stops << " stops\n";
  EXPECT_GT(stops, 0) << "no migration runs without a transaction";
}

}  // namespace
}  // namespace chopar::db
