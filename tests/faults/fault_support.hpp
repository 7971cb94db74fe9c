#pragma once

// What the fault tests share (header-only, test use): the broadcast they
// crash things under, and the backend of a chopar statement held waiting.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "testing/child_process.hpp"
#include "testing/test_database.hpp"

namespace chopar::testing {

// Users 1..`recipients`, each with an email address and subscribed to the
// topic "everyone", and a running broadcast to that topic of an email-only
// notification (type `maintenance`), not yet fanned out. Returns the
// broadcast's id. Throws db::DbError.
inline std::string MakeTopicBroadcast(const TestDatabase& db, int recipients) {
  const std::string n = std::to_string(recipients);
  db.Scalar(
      "INSERT INTO chopar.users (id, email) SELECT i, 'u' || i || '@example.uz' "
      "FROM generate_series(1, " +
      n + ") i");
  db.Scalar("INSERT INTO chopar.topics (key, name) VALUES ('everyone', 'Everyone')");
  db.Scalar(
      "INSERT INTO chopar.topic_subscribers (topic, user_id) SELECT 'everyone', i "
      "FROM generate_series(1, " +
      n + ") i");
  return db.Scalar(
      "INSERT INTO chopar.broadcasts (topic, audience, notification) VALUES ('everyone', "
      "'topic', '{\"type\": \"maintenance\", \"title\": \"Texnik ishlar\", "
      "\"channels\": [\"email\"]}') RETURNING id");
}

// The backend (pid) of a statement in `db`'s database whose text contains
// `text` and that waits for a lock (pg_locks `w`, not granted), where
// `where` (SQL on pg_stat_activity `a` and `w`) says; nullopt until there is
// one. Throws db::DbError.
inline std::optional<std::int64_t> BackendWaitingIn(const TestDatabase& db, const std::string& text,
                                                    const std::string& where = "true") {
  const std::string pid = db.Scalar(
      "SELECT coalesce(min(a.pid), 0) FROM pg_stat_activity a "
      "JOIN pg_locks w ON w.pid = a.pid AND NOT w.granted "
      "WHERE a.datname = current_database() AND a.query LIKE '%" +
      text + "%' AND " + where);
  if (pid == "0") return std::nullopt;
  return std::stoll(pid);
}

// BackendWaitingIn(db, text) once there is one, within `timeout`;
// nullopt if there is none by then. Throws db::DbError.
inline std::optional<std::int64_t> AwaitBackendWaitingIn(const TestDatabase& db,
                                                         const std::string& text,
                                                         std::chrono::milliseconds timeout) {
  std::optional<std::int64_t> backend;
  WaitUntil(
      [&] {
        backend = BackendWaitingIn(db, text);
        return backend.has_value();
      },
      timeout);
  return backend;
}

// Whether backend `pid` has ended.
inline bool BackendGone(const TestDatabase& db, std::int64_t pid) {
  return db.Count("SELECT count(*) FROM pg_stat_activity WHERE pid = " + std::to_string(pid)) == 0;
}

}  // namespace chopar::testing
