#pragma once

#include "http/router.hpp"

namespace chopar::http {

// Serves the files of web/, embedded in the binary at build time, without
// authentication: each at "/" + its path below web/ (the console's page also
// at "/"), with its content type and `Cache-Control: no-cache`.
//   - /widget/* (the <chopar-bell> element and its service worker) may be
//     loaded by pages of any origin: Access-Control-Allow-Origin: *, so a
//     cross-origin <script type="module"> can run it.
//   - everything else is the console, same-origin only: a Content-Security-
//     Policy that allows only its own scripts (sink emails are shown in
//     sandboxed frames), X-Frame-Options: DENY, nosniff.
void RegisterWebRoutes(Router& router);

}  // namespace chopar::http
