// POST /v1/users/import (docs/api.md "Bulk import"): NDJSON, a PUT
// /v1/users/{id} body with its "id" a line.
#include <string_view>

#include "core/request_error.hpp"
#include "http/api.hpp"
#include "hub/user_import.hpp"

namespace chopar::http {
namespace {

// The errors an answer lists at most; `errors_truncated` says more failed.
constexpr std::size_t kMaxListedErrors = 1000;

// "application/x-ndjson", parameters (a charset) allowed.
bool IsNdjson(std::string_view content_type) {
  const std::string_view media = content_type.substr(0, content_type.find(';'));
  const std::size_t end = media.find_last_not_of(' ');
  return end != std::string_view::npos && media.substr(0, end + 1) == "application/x-ndjson";
}

nlohmann::json ErrorView(const hub::ImportLineError& e) {
  nlohmann::json view = {{"line", e.line}, {"code", core::ErrorCodeName(e.code)}};
  if (e.field) view["field"] = *e.field;
  view["message"] = e.message;
  return view;
}

struct ImportUsers {
  db::Pool& pool;
  hub::UserService& users;
  Response operator()(const Request& request) const {
    if (!IsNdjson(request.Header("content-type").value_or(""))) {
      throw core::RequestError(core::ErrorCode::kBadRequest,
                               "Content-Type must be application/x-ndjson: one JSON object a line");
    }
    hub::UserImport import(pool, users,
                           {.batch = 2000, .max_errors = kMaxListedErrors, .on_error = {}});
    const std::string_view body = request.body;
    std::int64_t number = 0;
    for (std::size_t start = 0; start < body.size();) {
      const std::size_t end = std::min(body.find('\n', start), body.size());
      import.AddJsonLine(body.substr(start, end - start), ++number);
      start = end + 1;
    }
    import.Finish();
    const hub::ImportCounts counts = import.counts();
    nlohmann::json errors = nlohmann::json::array();
    for (const auto& e : import.errors()) errors.push_back(ErrorView(e));
    return JsonResponse(200, {{"received", counts.received},
                              {"imported", counts.imported()},
                              {"created", counts.created},
                              {"updated", counts.updated},
                              {"failed", counts.failed},
                              {"errors", std::move(errors)},
                              {"errors_truncated", import.errors_truncated()}});
  }
};

}  // namespace

void RegisterUserImportRoutes(Router& router, const Dependencies& deps,
                              std::size_t import_body_limit) {
  router.Add("POST", "/v1/users/import", Auth::kServerKey, ImportUsers{deps.pool, deps.users},
             import_body_limit);
}

}  // namespace chopar::http
