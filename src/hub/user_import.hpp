#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/request_error.hpp"
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
ImportLine ParseImportLine(const nlohmann::json& body);

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
// import`; docs/api.md "Bulk import"). Each line applies as PUT
// /v1/users/{id} applies its body, in input order; a bad line is counted
// and reported (ImportLineError) and the others go on. Lines are written a
// batch at a time: the lines without "addresses" or "tenants" by one
// set-based statement (queries/import_users.sql) after one read of what
// their preferences and data merge into (the bounds PUT checks), the others
// — and a whole batch the database refused, a user being erased, one
// another caller created meanwhile — one by one through
// UserService::PutUser. A time zone changed calls `users`'
// Options::timezone_changed in the batch's transaction, as PutUser does. A batch ends early at a
// user that is already in it, so a later line of a user applies after the earlier. Not thread-safe;
// one import per object. Database failures that end the work (lost
// connection) throw db::DbError; what was written before stays.
class UserImport {
 public:
  struct Options {
    std::size_t batch = 2000;       // lines per set-based statement
    std::size_t max_errors = 1000;  // errors kept for errors(); more are only counted
    // Called for each refused line as it is refused (the CLI prints them).
    std::function<void(const ImportLineError&)> on_error;
  };
  UserImport(db::Pool& pool, UserService& users, Options options);

  // One NDJSON line (without its newline) numbered `number`; a blank line
  // (spaces only) is skipped.
  void AddJsonLine(std::string_view text, std::int64_t number);
  // One line already read into JSON (a CSV row).
  void AddLine(const nlohmann::json& body, std::int64_t number);
  // A line refused before it became JSON (a CSV row that does not parse).
  void AddRefused(const core::RequestError& error, std::int64_t number);
  // Writes the lines still pending. Call at the end.
  void Finish();

  [[nodiscard]] const ImportCounts& counts() const { return counts_; }
  [[nodiscard]] const std::vector<ImportLineError>& errors() const { return errors_; }
  [[nodiscard]] bool errors_truncated() const {
    return counts_.failed > static_cast<std::int64_t>(errors_.size());
  }

  // A parsed line waiting for its batch.
  struct Pending {
    std::int64_t number;
    ImportLine line;
  };

 private:
  void Refuse(std::int64_t number, const core::RequestError& error);
  void Flush();
  // The lines of `lines` that pass the bounds of their merged preferences
  // and data; the others are refused.
  std::vector<Pending> WithinBounds(db::Transaction& tx, std::vector<Pending> lines);
  void WriteSetBased(std::vector<Pending> lines);
  void WriteOneByOne(const std::vector<Pending>& lines);

  db::Pool& pool_;
  UserService& users_;
  Options options_;
  std::vector<Pending> pending_;
  std::set<std::int64_t> pending_ids_;
  ImportCounts counts_;
  std::vector<ImportLineError> errors_;
};

}  // namespace chopar::hub
