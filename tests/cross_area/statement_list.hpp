#pragma once

// Every SQL statement chopar sends: the queries embedded from
// src/<area>/queries/*.sql (db::Query), each with the file it comes from,
// for the tests that check them all (statements_pgtest.cpp,
// statements_colocation_pgtest.cpp). Header-only, for tests.

#include <string>
#include <vector>

#include "all_queries.hpp"
#include "db/query.hpp"

namespace chopar::app {

struct ListedStatement {
  const db::Query* query;
  std::string file;  // "src/hub/queries/unread_count.sql"
};

// The query's source file, from its name "<area>.<file>" (an area's "/"
// written ".": "channels.telegram.telegram_poll_offset").
inline std::string StatementFile(const db::Query& query) {
  std::string name = query.name;
  const auto last = name.rfind('.');
  std::string area = name.substr(0, last);
  for (char& c : area) c = c == '.' ? '/' : c;
  return "src/" + area + "/queries/" + name.substr(last + 1) + ".sql";
}

inline std::vector<ListedStatement> AllStatements() {
  std::vector<ListedStatement> all;
  for (const auto& area : kAllQueries) {
    for (const db::Query& query : area) all.push_back({&query, StatementFile(query)});
  }
  return all;
}

}  // namespace chopar::app
