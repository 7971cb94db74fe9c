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
#include <thread>
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

// chopar.create_index_by_partition (migration 0022) commits once per
// partition inside one statement: a process killed in the middle leaves
// some partitions' indexes built and attached and the index invalid. For
// every partition, the build is held on that partition's lock, the
// migrating connection is killed there, and the next start must finish with
// the schema of a straight run and the index valid.
TEST_F(MigrateResumeTest, APerPartitionIndexBuildKilledAtAnyPartitionFinishesOnTheNextStart) {
  const std::span<const Migration> all = EmbeddedMigrations();
  std::size_t m = 0;
  while (m < all.size() && all[m].version != 22) ++m;
  ASSERT_LT(m, all.size());
  const std::vector<std::string> statements = SplitSqlStatements(all[m].sql);
  ASSERT_NE(statements.back().find("CALL chopar.create_index_by_partition"), std::string::npos);
  std::string straight;
  {
    TestDatabase db(TestDatabase::Contents::kEmpty);
    Connection conn = db.Connect();
    Migrate(conn, all);
    straight = db.Scalar(kSchemaFingerprint);
  }
  constexpr const char* kLeaves =
      "SELECT c.relname FROM pg_partition_tree('chopar.deliveries') t "
      "JOIN pg_class c ON c.oid = t.relid WHERE t.isleaf ORDER BY c.relname";
  constexpr const char* kAttached =
      "SELECT count(*) FROM pg_inherits WHERE inhparent = "
      "to_regclass('chopar.deliveries_due_ordinary')";
  // Absent until the first partition's transaction commits, then invalid.
  constexpr const char* kValid =
      "SELECT coalesce((SELECT indisvalid::text FROM pg_index "
      "WHERE indexrelid = to_regclass('chopar.deliveries_due_ordinary')), 'absent')";
  int leaves = 0;
  for (int stop = 0; stop == 0 || stop < leaves; ++stop) {
    SCOPED_TRACE("killed at partition " + std::to_string(stop));
    TestDatabase db(TestDatabase::Contents::kEmpty);
    Connection conn = db.Connect();
    Migrate(conn, all.first(m));
    for (std::size_t s = 0; s + 1 < statements.size(); ++s) conn.ExecScript(statements[s]);
    const Result names = conn.ExecText(kLeaves, {});
    leaves = names.Rows();
    ASSERT_GT(leaves, 1);

    // Writes to partition `stop` hold its build (CREATE INDEX waits for them).
    Connection writer = db.Connect();
    writer.ExecScript("BEGIN; LOCK TABLE chopar." + names.String(stop, 0) +
                      " IN ROW EXCLUSIVE MODE");
    Connection migrating = db.Connect();
    const std::string pid = migrating.ExecText("SELECT pg_backend_pid()", {}).String(0, 0);
    std::thread call([&] {
      try {
        migrating.ExecScript(statements.back());
      } catch (const std::exception&) {
        // Killed: what a process that died there leaves behind.
      }
    });
    for (int polls = 0; polls < 3000; ++polls) {
      const std::string waiting =
          db.Scalar("SELECT count(*) FROM pg_locks WHERE NOT granted AND pid = " + pid);
      if (waiting != "0") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ(db.Scalar("SELECT count(*) FROM pg_locks WHERE NOT granted AND pid = " + pid), "1")
        << "the build never reached partition " << stop;
    db.Scalar("SELECT pg_terminate_backend(" + pid + ")");
    call.join();
    writer.ExecScript("ROLLBACK");
    EXPECT_EQ(db.Count(kAttached), stop) << "the partitions before it were committed";
    EXPECT_NE(db.Scalar(kValid), "true");

    Connection restarted = db.Connect();
    ASSERT_NO_THROW(Migrate(restarted, all));
    EXPECT_EQ(db.Scalar(kSchemaFingerprint), straight);
    EXPECT_EQ(db.Scalar(kValid), "true");
    EXPECT_EQ(db.Count(kAttached), leaves);
  }
}

}  // namespace
}  // namespace chopar::db
