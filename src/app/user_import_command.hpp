#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>

#include "app/config.hpp"

namespace chopar::app {

struct UserImportFlags {
  std::string file;          // a path, or "-" for stdin
  std::string format;        // "csv" or "ndjson"; empty: from the file's extension
  std::size_t batch = 10000;  // lines per set-based statement
};

// `chopar users import FILE`: creates or merges the users of a CSV (a
// header row naming the columns, hub::UserCsvColumns) or NDJSON file (a PUT
// /v1/users/{id} body with "id" a line) on the configured database, through
// the batches of POST /v1/users/import (hub::UserImport). Reads the file a
// record at a time, never whole. Prints progress on `err` at most once a
// second (lines read, imported, failed, lines a second), each refused line
// with its number on `err`, and the totals on `out`. Returns 0 when every
// line was imported, 1 when some failed, 2 for a file that cannot be read, a
// format it cannot tell or a CSV header it does not take (nothing written).
int RunUserImport(const Config& config, const UserImportFlags& flags, std::istream& in,
                  std::ostream& out, std::ostream& err);

}  // namespace chopar::app
