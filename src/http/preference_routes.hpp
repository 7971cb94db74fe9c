#pragma once

#include <string>

#include "http/router.hpp"
#include "hub/user_service.hpp"
#include "templates/template_store.hpp"

namespace chopar::http {

// docs/api.md "Preferences by category and type":
//   GET/PUT /v1/inbox/preferences (subscriber token): the token's user's own
//     preferences, the JSON of `preferences` on a user;
//   GET/POST /v1/unsubscribe?user=&category=|type=&channel=&sig= (no
//     credentials; the signature of channels/unsubscribe.hpp made with
//     `inbox_secret`): GET shows a small page (Uzbek or English, by the
//     user's locale) with a button that POSTs back; POST — also RFC 8058's
//     one-click "List-Unsubscribe=One-Click" from a mail client — turns that
//     scope off on that channel at once. Both pages link to
//   GET/POST /v1/unsubscribe/preferences?user=&sig= (signed for the scope
//     "preferences:all"): the user's settings by category (the templates'
//     categories and the user's own) and channel as checkboxes, saved by
//     POSTing the form (fields "<category>.<channel>" checked, "shown" per
//     row; only the rows shown change).
// A link whose signature does not match gets 403 and changes nothing.
// `users` and `templates` must outlive the router.
void RegisterPreferenceRoutes(Router& router, hub::UserService& users,
                              const templates::TemplateStore& templates, std::string inbox_secret);

}  // namespace chopar::http
