#pragma once

#include "http/api.hpp"

namespace chopar::http {

// The inbox state changes (docs/api.md "Inbox states"): for the subscriber
// token's user POST /v1/inbox/{seen,read,unread,archive,unarchive,snooze,
// unsnooze}, and for the application the same under
// POST /v1/users/{id}/notifications/. Each answers {"updated": n}.
void RegisterInboxStateRoutes(Router& router, const Dependencies& deps);

// The filters of a list or a count: ?category=a,b (at most 20), ?tag=,
// ?tenant= (QueryTenant). Throws core::RequestError kInvalidField naming
// the parameter for a bad value.
hub::InboxService::Filter InboxQueryFilter(const Request& request);

}  // namespace chopar::http
