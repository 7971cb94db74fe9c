#pragma once

// The PostgreSQL fixture shared by the delivery tests (header only; not part
// of the library). Users, notifications and deliveries are created with
// direct SQL so the tests depend on nothing but the schema.

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "core/time_format.hpp"
#include "db/connection.hpp"
#include "testing/test_database.hpp"

namespace chopar::delivery::testing {

class DeliveryPgTest : public chopar::testing::PgTest {
 protected:
  // 14:00 in Tashkent, 10:00 in Berlin.
  static core::TimePoint T0() { return *core::ParseRfc3339("2026-10-28T09:00:00Z"); }

  void SetUp() override {
    PgTest::SetUp();
    if (IsSkipped()) return;
    conn_.emplace(db_->Connect());
  }

  db::Result Sql(const std::string& sql) { return conn_->ExecText(sql, {}); }
  std::string Scalar(const std::string& sql) {
    auto r = Sql(sql);
    return r.Rows() > 0 && !r.IsNull(0, 0) ? r.String(0, 0) : "";
  }
  std::int64_t Count(const std::string& sql) { return std::stoll(Scalar(sql)); }

  void AddUser(std::int64_t id, const std::string& columns = "email", const std::string& values = "'u@example.uz'") {
    Sql("INSERT INTO users (id, " + columns + ") VALUES (" + std::to_string(id) + ", " + values + ")");
  }

  // A notification with one queued delivery per channel, created and due at
  // the simulated now. Returns the delivery ids in channel order.
  std::vector<std::int64_t> Notify(std::int64_t user, const std::vector<std::string>& channels,
                                   bool critical = false, const std::string& title = "Task due") {
    const std::string now = "'" + core::FormatRfc3339Micros(clock_.Now()) + "'::timestamptz";
    const auto n = Sql("INSERT INTO notifications (user_id, type, title, body, link, critical, created_at) "
                       "VALUES (" + std::to_string(user) + ", 'task.due', '" + title +
                       "', 'Pay the bill', '/tasks/1', " + (critical ? "true" : "false") + ", " + now +
                       ") RETURNING id")
                       .Int(0, 0);
    std::vector<std::int64_t> ids;
    for (const auto& channel : channels) {
      ids.push_back(Sql("INSERT INTO deliveries (notification_id, user_id, channel, next_attempt_at, "
                        "created_at, updated_at) VALUES (" + std::to_string(n) + ", " + std::to_string(user) +
                        ", '" + channel + "', " + now + ", " + now + ", " + now + ") RETURNING id")
                        .Int(0, 0));
    }
    return ids;
  }

  // One column of a delivery as text ("" for NULL).
  std::string Field(std::int64_t delivery, const std::string& column) {
    return Scalar("SELECT " + column + "::text FROM deliveries WHERE id = " + std::to_string(delivery));
  }
  // A timestamptz column of a delivery.
  std::optional<core::TimePoint> TimeField(std::int64_t delivery, const std::string& column) {
    const std::string text = Field(delivery, column);
    if (text.empty()) return std::nullopt;
    return core::ParsePgTimestamp(text);
  }
  std::int64_t CountStatus(const std::string& status) {
    return Count("SELECT count(*) FROM deliveries WHERE status = '" + status + "'");
  }

  // Re-checks `condition` (a database observation) every 10 ms until it
  // holds or `timeout` passes.
  template <typename Condition>
  static bool WaitUntil(Condition condition, std::chrono::seconds timeout = std::chrono::seconds(30)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!condition()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
  }

  core::SimulatedClock clock_{T0()};

  core::MetricsRegistry metrics_;  // what this test's components counted
  std::optional<db::Connection> conn_;
};

}  // namespace chopar::delivery::testing
