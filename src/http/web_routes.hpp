#pragma once

#include "http/router.hpp"

namespace chopar::http {

// Serves the files of web/, embedded in the binary at build time, without
// authentication: each at "/" + its path below web/ (the console's page also
// at "/", the API reference's at "/docs"), with its content type and
// `Cache-Control: no-cache`.
//   - /widget/* (the <chopar-bell> element, the headless client it is
//     built on, and its service worker) may be loaded by pages of any
//     origin: Access-Control-Allow-Origin: *, so a cross-origin
//     <script type="module"> can run it.
//   - /docs/* is the API reference: RapiDoc (web/docs) rendering
//     GET /openapi.yaml, under a Content-Security-Policy that lets the page
//     reach nothing but this server (no fonts, images or frames from
//     elsewhere), X-Frame-Options: DENY, nosniff.
//   - everything else is the console, same-origin only: a Content-Security-
//     Policy that allows only its own scripts (sink emails are shown in
//     sandboxed frames), X-Frame-Options: DENY, nosniff.
void RegisterWebRoutes(Router& router);

}  // namespace chopar::http
