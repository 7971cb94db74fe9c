#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "db/pool.hpp"

namespace chopar::outbox {

// The outbox write and the inbox check for C++ code, in the caller's own
// transaction — never a pool's connection of its own — so the event is
// committed with the change it describes, or rolled back with it (the
// source document's hodisaYoz). Any other language calls the same SQL:
// `SELECT chopar.emit($1, $2, $3)` and `INSERT INTO chopar.inbox (event_id)
// VALUES ($1) ON CONFLICT DO NOTHING` (docs/outbox.md).

// Writes one event (chopar.emit: type, user id or nullopt, a JSON payload)
// and returns its event id (a uuid). Throws db::CheckViolation for a type
// that is not dot-separated tokens of letters, digits, '_' and '-', and
// db::DbError for anything else the database refuses (the transaction is
// then aborted, as any failed statement aborts it).
std::string Emit(db::Transaction& tx, std::string_view type, std::optional<std::int64_t> user_id,
                 const nlohmann::json& payload);
// The same on a libpq connection of the application's that is inside a
// transaction block (after BEGIN). Throws std::logic_error when it is not,
// so an event can never be committed on its own by mistake.
std::string Emit(PGconn* conn, std::string_view type, std::optional<std::int64_t> user_id,
                 const nlohmann::json& payload);

// The consumer side: records that `event_id` is being acted on and says
// whether to act. True the first time; false when this event was acted on
// already (a repeated delivery), or is being acted on by a transaction that
// then commits. Call it in the transaction that makes the effect: if that
// rolls back, so does the record, and the next delivery acts. Throws
// db::DbError (an id that is not a uuid included).
bool ConsumeOnce(db::Transaction& tx, std::string_view event_id);
// The same on a libpq connection inside a transaction block; throws
// std::logic_error when it is not in one.
bool ConsumeOnce(PGconn* conn, std::string_view event_id);

}  // namespace chopar::outbox
