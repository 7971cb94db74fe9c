#pragma once

#include "db/pool.hpp"
#include "http/router.hpp"

namespace chopar::http {

// docs/api.md "Suppressions" (API key):
//   GET    /v1/suppressions?channel=&address=&limit=&cursor=   newest first
//   DELETE /v1/suppressions/{channel}/{address}                 204 / 404
void RegisterSuppressionRoutes(Router& router, db::Pool& pool);

}  // namespace chopar::http
