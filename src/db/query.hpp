#pragma once

namespace chopar::db {

// How PostgreSQL plans a prepared query on each execution.
enum class Plan {
  // PostgreSQL's own choice (plan_cache_mode = auto): a custom plan for the
  // parameters of each execution until a generic one looks as cheap.
  kAuto,
  // Always the generic plan, made once per connection, by index: sequential
  // and bitmap scans are off while it runs (and so while it is planned).
  // For the hot path's statements, which reach a handful of rows by key in
  // the partitioned tables:
  //  - a custom plan costs more to make than to run (it is made over every
  //    partition's indexes), and one made for the exact length of each array
  //    parameter always looks cheaper than the generic plan, so PostgreSQL
  //    never stops making them (a third of a single notification's database
  //    time went to planning);
  //  - a generic plan made while a table or its newest partition was
  //    (nearly) empty would read it sequentially, and is kept until the
  //    table is analyzed again — through a broadcast that fills it;
  //  - a generic plan cannot tell that a bound on created_at (the hourly
  //    count's split at the week) holds for every row of the week's
  //    partition, and intersected each (user, channel) probe with a bitmap
  //    of the week's created_at index: 17 ms a count on 20 million rows of
  //    history instead of 1.9 ms.
  // A query's SQL file asks for it with a line `-- plan: generic`.
  kGeneric,
  // A custom plan for every execution (`-- plan: custom`): for a statement
  // that joins array parameters of a few hundred elements to rows, where the
  // generic plan, not knowing their length, joins by a nested loop (3× the
  // hash join of a custom plan on a batch of 500) and PostgreSQL still
  // prefers it once five custom plans looked dearer. Worth it only when the
  // plan is cheap to make: over one partition, say. Nested loops and bitmap
  // scans are off while it runs: statistics that do not know a partition's
  // newest rows yet (a busy week's, analyzed a while ago) estimated one row
  // for them, and the plan then rescanned the whole array for each row it
  // found (500 × 500 comparisons, 50–70 ms instead of ~13 ms on 20 million
  // rows of history) after reading them through the created_at BRIN index.
  kCustom,
  // No plan to choose (COMMIT, a set_config): runs under whatever mode the
  // session has, never switching it (`-- plan: any`).
  kAny,
};

// A named SQL statement. The name is the prepared statement's name on every
// connection and the label in logs; queries live in src/<area>/queries/*.sql
// and are embedded at build time as constants of this type.
struct Query {
  const char* name;
  const char* sql;
  Plan plan = Plan::kAuto;
};

}  // namespace chopar::db
