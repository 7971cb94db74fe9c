#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "db/background_loop.hpp"
#include "db/pool.hpp"

namespace chopar::hub {

// An erasure as recorded (chopar.user_erasures, migration 0044): the id and
// the times, nothing else about the user.
struct Erasure {
  std::int64_t user_id = 0;
  core::TimePoint requested_at;
  std::optional<core::TimePoint> completed_at;  // nullopt: pending
};

// Most ids one POST /v1/users/erase may name.
inline constexpr std::size_t kMaxErasureIds = 1000;

// Asking for erasures and reading them (docs/api.md "Erasing a user").
// Thread-safe; the pool must outlive it.
class UserErasures {
 public:
  explicit UserErasures(db::Pool& pool) : pool_(pool) {}

  // DELETE /v1/users/{id}, POST /v1/users/erase: in one transaction, marks
  // each user of `ids` that exists (and, with `confined`, belongs to that
  // tenant) as being erased — from the commit on it is not found by the
  // API, notify, the fan-out or the scheduler, and its subscriber tokens
  // are refused — and records its erasure, which a UserEraser then
  // carries out. A user already being erased keeps its record; one erased
  // before and created again is erased again. Returns the erasures of
  // `ids` as Find() reads them after that; an id missing from the answer
  // is an unknown user (or, to a confined key, another tenant's). Throws
  // db::DbError.
  std::vector<Erasure> Request(std::span<const std::int64_t> ids,
                               const std::optional<std::string>& confined) const;
  // The erasures of `ids`, in id order. With `confined`: only the pending
  // ones of that tenant's users (a completed erasure no longer tells which
  // tenants the user was in). Throws db::DbError.
  std::vector<Erasure> Find(std::span<const std::int64_t> ids,
                            const std::optional<std::string>& confined) const;

 private:
  db::Pool& pool_;
};

struct UserEraserSettings {
  // Rows one statement deletes (or, in the audit log, erases the values of);
  // each batch is a transaction of its own. At most kMaxUserErasureBatch.
  int batch = 1000;
  std::chrono::milliseconds max_sleep{60'000};  // the polling fallback
};
inline constexpr int kMaxUserErasureBatch = 10'000;

// Carries out the recorded erasures (docs/privacy.md): each step is one
// short transaction that locks the oldest pending erasure no other holds
// (FOR UPDATE SKIP LOCKED) and deletes up to settings.batch rows of the
// first kind that still has any — delayed notifications, schedules,
// Telegram connect tokens, digest items, deliveries, digests, sink
// messages, notifications, dedup keys, the suppressions of the user's
// email and phone, the audit log's values about the user (kept as
// "[erased]"), outbox events, push subscriptions, devices, the Telegram
// connection, addresses, topic and tenant memberships — in that order, so
// what a later kind needs (the addresses) is there until then. A step
// that finds none of them left deletes the users row and stamps
// completed_at in the same transaction. Nothing but the rows themselves
// says how far an erasure got: a crash (kill -9) mid-way loses nothing,
// the next step goes on where it was, and any number of erasers in any
// processes never do the same batch twice.
//
// A db::BackgroundLoop named "erasure" (one thread) steps while there is
// work, woken by NOTIFY chopar_erasures when an erasure is asked for.
// Metrics: chopar_user_erasure_rows_total{kind} (rows deleted or
// erased), chopar_user_erasures_completed_total, and the loop's.
// The pool and registry must outlive it. Thread-safe.
class UserEraser {
 public:
  UserEraser(db::Pool& pool, core::MetricsRegistry& metrics, UserEraserSettings settings = {});
  ~UserEraser();
  UserEraser(const UserEraser&) = delete;
  UserEraser& operator=(const UserEraser&) = delete;

  // What one step did.
  struct Step {
    std::optional<std::int64_t> user_id;  // nullopt: no erasure pending was free
    const char* kind = nullptr;           // the kind of rows it deleted; nullptr: none
    std::int64_t rows = 0;
    bool completed = false;  // the users row deleted and the erasure completed
  };
  // One step, now. Throws db::DbError (nothing of the step is kept).
  Step StepOnce();
  // Steps until no erasure is pending (or none is free); returns how many
  // erasures it completed. Throws db::DbError.
  int RunOnce();

  void Start() { loop_.Start(); }
  // Stops and joins; the step in progress commits or rolls back.
  void Stop() { loop_.StopAndJoin(); }

 private:
  db::Next LoopStep();

  db::Pool& pool_;
  const UserEraserSettings settings_;
  std::vector<core::Counter*> rows_;  // by kind, as the steps' table
  core::Counter& completed_;
  db::BackgroundLoop loop_;  // declared last: stopped before what its steps use
};

}  // namespace chopar::hub
