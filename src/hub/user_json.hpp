#pragma once

#include <nlohmann/json.hpp>

#include "db/result.hpp"

namespace chopar::hub {

// The API's user object from a row of queries/get_users.sql.
nlohmann::json UserJson(const db::Result& rows, int row);

// A timestamptz column as RFC 3339 UTC text, or null.
nlohmann::json TimestampJson(const db::Result& rows, int row, const char* column);

}  // namespace chopar::hub
