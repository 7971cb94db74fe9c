#pragma once

#include <string>

#include "core/clock.hpp"
#include "db/pool.hpp"
#include "http/router.hpp"

namespace chopar::http {

// POST /v1/sms/eskiz/callback/{secret}: Eskiz's delivery reports. The path
// secret is compared in constant time (404 when wrong, so the route does not
// reveal itself); the report is recorded idempotently on the delivery.
void RegisterSmsRoutes(Router& router, db::Pool& pool, const core::Clock& clock, std::string callback_secret);

}  // namespace chopar::http
