#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace chopar::db {

// A position in PostgreSQL's write-ahead log, as a number (pg_lsn - '0/0').
using Lsn = std::uint64_t;

// "16/B374D848" (PostgreSQL's text form of a pg_lsn: two hexadecimal
// numbers of at most 8 digits) → the position; nullopt for anything else.
std::optional<Lsn> ParseLsn(std::string_view text);
// The position in PostgreSQL's text form ("16/B374D848", upper case).
std::string FormatLsn(Lsn lsn);

// Read-your-writes for what this thread does while the scope lives (one
// HTTP request, docs/api.md "Read-your-writes"):
//  - `read_after`: the LSN of the caller's last write it brought along; a
//    read routed by db::ReadRouter goes to a standby only once the standby
//    has replayed it;
//  - `capture`: every transaction that commits on this thread (Transaction's
//    ExecAndCommit and Commit) fetches pg_current_wal_insert_lsn() in the
//    round trip of its COMMIT, after it, and the largest is written().
//    Off, nothing is sent: a process without standbys pays nothing.
// Scopes nest; the innermost wins.
class ReadYourWritesScope {
 public:
  ReadYourWritesScope(std::optional<Lsn> read_after, bool capture);
  ReadYourWritesScope(const ReadYourWritesScope&) = delete;
  ReadYourWritesScope& operator=(const ReadYourWritesScope&) = delete;
  ~ReadYourWritesScope();

  // The LSN after this thread's last commit in the scope (none: nothing
  // committed, or capture is off).
  [[nodiscard]] std::optional<Lsn> written() const { return written_; }

 private:
  friend void RecordWriteLsn(Lsn lsn);
  friend bool CapturingWriteLsn();
  friend std::optional<Lsn> ReadAfterLsn();

  std::optional<Lsn> read_after_;
  bool capture_;
  std::optional<Lsn> written_;
  ReadYourWritesScope* outer_;
};

// Whether a commit on this thread should fetch its LSN (a capturing scope).
bool CapturingWriteLsn();
// A commit's LSN, for the innermost scope.
void RecordWriteLsn(Lsn lsn);
// The LSN a read on this thread must see (none: any standby's state will do).
std::optional<Lsn> ReadAfterLsn();

}  // namespace chopar::db
