#pragma once

namespace chopar::db {

// One numbered file of sql/migrations, embedded in the binary.
struct Migration {
  int version;
  const char* name;
  const char* sql;
};

}  // namespace chopar::db
