// The console, the bell widget and the API reference, from the files of web/
// embedded at build time (src/http/CMakeLists.txt, cmake/embed_web.cmake).
#include "http/web_routes.hpp"

#include "http/message.hpp"
#include "http/web_assets.hpp"

namespace chopar::http {
namespace {

constexpr std::string_view kConsolePage = "/console/index.html";
constexpr std::string_view kDocsPage = "/docs/index.html";
constexpr std::string_view kWidgetPrefix = "/widget/";
constexpr std::string_view kDocsPrefix = "/docs/";

// Sink emails are rendered in <iframe sandbox srcdoc>: no scripts run there,
// and the frame inherits this policy.
constexpr const char* kConsolePolicy =
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: https:; connect-src 'self'; frame-src 'self' about:; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

// RapiDoc (web/docs/README.md) reads /openapi.yaml and nothing else: no
// images, fonts or frames from elsewhere, even where the document's
// descriptions name them. It needs inline styles, and draws icons as data:
// images.
constexpr const char* kDocsPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

struct ServeAsset {
  const web::Asset& asset;
  Response operator()(const Request&) const {
    Response response;
    response.content_type = std::string(asset.content_type);
    response.body = std::string(asset.body);
    response.headers.emplace_back("Cache-Control", "no-cache");
    response.headers.emplace_back("X-Content-Type-Options", "nosniff");
    if (asset.path.starts_with(kWidgetPrefix)) {
      response.headers.emplace_back("Access-Control-Allow-Origin", "*");
      response.headers.emplace_back("Cross-Origin-Resource-Policy", "cross-origin");
      return response;
    }
    const bool docs = asset.path.starts_with(kDocsPrefix);
    response.headers.emplace_back("Content-Security-Policy", docs ? kDocsPolicy : kConsolePolicy);
    response.headers.emplace_back("X-Frame-Options", "DENY");
    response.headers.emplace_back("Referrer-Policy", "no-referrer");
    return response;
  }
};

}  // namespace

void RegisterWebRoutes(Router& router) {
  for (const web::Asset& asset : web::kAssets) {
    router.Add("GET", std::string(asset.path), Auth::kNone, ServeAsset{asset});
    if (asset.path == kConsolePage) router.Add("GET", "/", Auth::kNone, ServeAsset{asset});
    if (asset.path == kDocsPage) router.Add("GET", "/docs", Auth::kNone, ServeAsset{asset});
  }
}

}  // namespace chopar::http
