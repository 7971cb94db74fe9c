#pragma once

namespace chopar::db {

// A named SQL statement. The name is the prepared statement's name on every
// connection and the label in logs; queries live in src/<area>/queries/*.sql
// and are embedded at build time as constants of this type.
struct Query {
  const char* name;
  const char* sql;
};

}  // namespace chopar::db
