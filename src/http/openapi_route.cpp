#include "http/openapi_route.hpp"

#include "http/message.hpp"
#include "http/openapi_document.hpp"

namespace chopar::http {

void RegisterOpenApiRoute(Router& router) {
  router.Add("GET", "/openapi.yaml", Auth::kNone, [](const Request&) {
    Response response;
    response.content_type = "application/yaml";
    response.body = std::string(kOpenApiDocument);
    // Tools fetch it from other origins (editors, API consoles).
    response.headers.emplace_back("Access-Control-Allow-Origin", "*");
    return response;
  });
}

}  // namespace chopar::http
