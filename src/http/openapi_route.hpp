#pragma once

#include "http/router.hpp"

namespace chopar::http {

// GET /openapi.yaml, no authentication: docs/openapi.yaml as it was when the
// binary was built (embedded by src/http/CMakeLists.txt), as
// application/yaml. Cannot fail.
void RegisterOpenApiRoute(Router& router);

}  // namespace chopar::http
