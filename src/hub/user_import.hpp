#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/request_error.hpp"
#include "db/params.hpp"
#include "db/pool.hpp"
#include "hub/user_request.hpp"
#include "hub/user_service.hpp"

namespace chopar::hub {

// One line of an import: a PUT /v1/users/{id} body with the user's "id"
// (a positive integer) beside its members.
struct ImportLine {
  std::int64_t user_id = 0;
  UserUpdate update;
};

// Parses one line's JSON object with ParseUserUpdate's rules (the same
// errors, the same fields) after taking its "id" out. Throws
// core::RequestError kInvalidJson for a line that is not an object,
// kInvalidField "id" or a member's field otherwise. Pure; thread-safe.
ImportLine ParseImportLine(nlohmann::json body);

// A line refused, as the API's error body names it.
struct ImportLineError {
  std::int64_t line = 0;  // its number in the input, from 1
  core::ErrorCode code = core::ErrorCode::kInvalidField;
  std::optional<std::string> field;
  std::string message;
};

struct ImportCounts {
  std::int64_t received = 0;  // lines that were not blank
  std::int64_t created = 0;
  std::int64_t updated = 0;
  std::int64_t failed = 0;
  [[nodiscard]] std::int64_t imported() const { return created + updated; }
};

// A bulk create-or-merge of users (POST /v1/users/import, `chopar users
// import`; docs/api.md "POST /v1/users/import"). Each line applies as PUT
// /v1/users/{id} applies its body, in input order; a bad line is counted
// and reported (ImportLineError) and the others go on. Lines are written a
// batch at a time: the lines without "addresses" or "tenants" by one
// set-based statement (queries/import_users.sql, which also refuses a data
// over its bound once merged) after, for the lines with "preferences", one
// read of what they merge into (the bounds PUT checks); the others — and a
// whole batch the database refused, a user being erased, one another
// caller created meanwhile — one by one through UserService::PutUser. A
// batch ends early at a user that is already in it, so a later line of a
// user applies after the earlier. A time zone changed calls `users`'
// Options::timezone_changed in the batch's transaction, as PutUser does.
// The audit log records each set-based batch once (resource user_import:
// the ids created and updated) for the constructing thread's
// db::ActorScope, instead of a row per user; the lines applied one by one
// are recorded as PUT's are. A batch is written on a thread and a
// connection of its own (with that actor) while the next is read and
// checked; two batches at most at once, a batch that shares a user with an
// earlier one only after it. The Add… calls and Finish() are for one thread; counts() may be
// read from it at any time. Database failures that end the work (lost
// connection) throw db::DbError from an Add… call or Finish(); what was
// written before stays.
class UserImport {
 public:
  struct Options {
    std::size_t batch = 2000;       // lines per set-based statement
    std::size_t max_errors = 1000;  // errors kept for errors(); more are only counted
    // Called for each refused line as it is refused (the CLI prints them).
    std::function<void(const ImportLineError&)> on_error;
  };
  UserImport(db::Pool& pool, UserService& users, Options options);
  // Waits for a batch still being written.
  ~UserImport();
  UserImport(const UserImport&) = delete;
  UserImport& operator=(const UserImport&) = delete;

  // One NDJSON line (without its newline) numbered `number`; a blank line
  // (spaces only) is skipped.
  void AddJsonLine(std::string_view text, std::int64_t number);
  // One line already read into JSON (a CSV row).
  void AddLine(nlohmann::json body, std::int64_t number);
  // A line refused before it became JSON (a CSV row that does not parse).
  void AddRefused(const core::RequestError& error, std::int64_t number);
  // Writes the lines still pending and waits for every write. Call at the
  // end; throws what a write threw (db::DbError that ended the work).
  void Finish();

  // So far; final after Finish().
  [[nodiscard]] ImportCounts counts() const;
  // After Finish(): the refused lines with the lowest numbers (at most
  // Options::max_errors), in line order.
  [[nodiscard]] const std::vector<ImportLineError>& errors() const { return errors_; }
  [[nodiscard]] bool errors_truncated() const {
    return counts().failed > static_cast<std::int64_t>(errors_.size());
  }

  // A parsed line waiting for its batch.
  struct Pending {
    std::int64_t number;
    ImportLine line;
  };

 private:
  void Received();
  void Refuse(std::int64_t number, const core::RequestError& error);
  // Hands the pending lines to a writing thread.
  void Flush();
  // Waits for the oldest batch being written; throws what its write threw.
  void WaitOldest();
  // A batch as the writing thread takes it: `params`, when given, are
  // import_users.sql's for `set_based`.
  struct Batch {
    std::vector<Pending> set_based;
    std::vector<Pending> one_by_one;
    std::optional<db::Params> params;
  };
  void Write(Batch batch);
  // Refuses and takes out of `lines` those whose merged preferences would
  // be over their bounds; leaves `lines` whole when it throws.
  void KeepWithinBounds(db::Transaction& tx, std::vector<Pending>& lines);
  void WriteSetBased(std::vector<Pending> lines, std::optional<db::Params> params);
  void WriteOneByOne(const std::vector<Pending>& lines);

  db::Pool& pool_;
  UserService& users_;
  Options options_;
  const std::string actor_;  // the constructing thread's, for the writes
  std::vector<Pending> pending_;
  std::set<std::int64_t> pending_ids_;
  // The batches being written, oldest first, with their users' ids.
  struct Writing {
    std::set<std::int64_t> ids;
    std::future<void> done;
  };
  static constexpr std::size_t kWriters = 2;  // batches written at once, at most
  std::deque<Writing> writing_;
  mutable std::mutex mutex_;  // guards counts_, errors_ and on_error calls
  ImportCounts counts_;
  std::vector<ImportLineError> errors_;  // a heap by line until Finish()
};

}  // namespace chopar::hub
