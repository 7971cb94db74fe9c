#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "hub/notify_service.hpp"

namespace chopar::hub {

// A notification request kept for later — a delayed notification until it
// is due, a broadcast's notification until the fan-out reaches each
// recipient — is stored in a versioned form of its own, never re-read with
// the API's validator: the API may tighten its rules, and work accepted
// under the old ones must still be released. The version is stored beside
// the form (delayed_notifications.request_version,
// broadcasts.notification_version); each version ever written keeps its
// decoder here, which reads the fields by their types only (the request was
// validated when it was accepted) and never refuses a value for a rule.
//
// Version 1 (every release so far): the request's fields under the API's
// names, each optional with the API's default — user_id (0), type, title
// (""), body (""), category, link, data ({}), channels (names; absent: every
// channel), critical (false), dedup_key, cancellation_key, send_at (RFC
// 3339) and delay_seconds. A delayed notification's request and a
// broadcast's notification (the API's body as accepted, before this form
// was written for it) are both of this form.
//
// Version 2: version 1 and `tenant` (a tenant key, absent: none). Written
// only for a request in a tenant, so that a request without one stays
// readable by a release that knows version 1 only; a release that knows
// version 1 only refuses a version 2 form rather than dropping its tenant.
//
// Version 3: version 2 and `actions` ([{"label", "url" | "event"}], as
// hub::ActionsJson writes them) and `tags` (an array of strings), each
// absent for none. Written only for a request that has either, for the
// same reason.
inline constexpr int kStoredRequestVersion = 3;

// The version EncodeStoredRequest(request) writes: 3 for a request with
// actions or tags, else 2 for a request in a tenant, else 1. Pure.
int StoredRequestVersionOf(const NotificationRequest& request);

// A stored form that cannot be decoded: a version this binary does not
// know (written by a newer one), or a field of the wrong type (edited by
// hand).
class StoredRequestError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `request` in the form of StoredRequestVersionOf(request). Pure.
nlohmann::json EncodeStoredRequest(const NotificationRequest& request);

// The request a form of `version` holds. Throws StoredRequestError. Pure.
NotificationRequest DecodeStoredRequest(int version, const nlohmann::json& stored);

}  // namespace chopar::hub
