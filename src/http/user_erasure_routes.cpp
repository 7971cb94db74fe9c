// Erasing a user (docs/api.md "Erasing a user").
#include <set>
#include <vector>

#include "core/request_error.hpp"
#include "core/time_format.hpp"
#include "http/api.hpp"
#include "http/tenancy.hpp"
#include "hub/user_erasure.hpp"

namespace chopar::http {
namespace {

nlohmann::json ErasureView(const hub::Erasure& erasure) {
  return {{"user_id", erasure.user_id},
          {"status", erasure.completed_at ? "completed" : "pending"},
          {"requested_at", core::FormatRfc3339(erasure.requested_at)},
          {"completed_at", erasure.completed_at
                               ? nlohmann::json(core::FormatRfc3339(*erasure.completed_at))
                               : nlohmann::json(nullptr)}};
}

// The "ids" of POST /v1/users/erase: 1..kMaxErasureIds positive integers.
std::vector<std::int64_t> ParseErasureIds(const nlohmann::json& body) {
  const auto it = body.find("ids");
  if (it == body.end() || !it->is_array() || it->empty() || it->size() > hub::kMaxErasureIds) {
    throw core::InvalidField(
        "ids", "ids must be an array of 1 to " + std::to_string(hub::kMaxErasureIds) + " user ids");
  }
  std::vector<std::int64_t> ids;
  for (std::size_t i = 0; i < it->size(); ++i) {
    const auto& id = (*it)[i];
    if (!id.is_number_integer() || id.get<std::int64_t>() < 1) {
      const std::string field = "ids[" + std::to_string(i) + "]";
      throw core::InvalidField(field, field + " must be a positive integer");
    }
    ids.push_back(id.get<std::int64_t>());
  }
  return ids;
}

struct DeleteUser {
  hub::UserErasures erasures;
  Response operator()(const Request& request) const {
    const std::int64_t user_id = request.Id("id");
    const auto found = erasures.Request(std::span(&user_id, 1), ConfinedTenant(request));
    if (found.empty()) throw core::UserNotFound(user_id);
    return JsonResponse(202, ErasureView(found.front()));
  }
};

struct EraseUsers {
  hub::UserErasures erasures;
  Response operator()(const Request& request) const {
    const auto ids = ParseErasureIds(ParseJsonObject(request));
    const auto found = erasures.Request(ids, ConfinedTenant(request));
    std::set<std::int64_t> missing(ids.begin(), ids.end());
    nlohmann::json listed = nlohmann::json::array();
    for (const hub::Erasure& erasure : found) {
      listed.push_back(ErasureView(erasure));
      missing.erase(erasure.user_id);
    }
    return JsonResponse(202,
                        {{"erasures", std::move(listed)},
                         {"not_found", std::vector<std::int64_t>(missing.begin(), missing.end())}});
  }
};

struct GetErasure {
  hub::UserErasures erasures;
  Response operator()(const Request& request) const {
    const std::int64_t user_id = request.Id("id");
    const auto found = erasures.Find(std::span(&user_id, 1), ConfinedTenant(request));
    if (found.empty()) {
      throw core::NotFound("no erasure of user " + std::to_string(user_id) + " was asked for");
    }
    return JsonResponse(200, ErasureView(found.front()));
  }
};

}  // namespace

void RegisterUserErasureRoutes(Router& router, const Dependencies& deps) {
  const hub::UserErasures erasures(deps.pool);
  router.Add("DELETE", "/v1/users/{id}", Auth::kServerKey, DeleteUser{erasures});
  router.Add("POST", "/v1/users/erase", Auth::kServerKey, EraseUsers{erasures});
  router.Add("GET", "/v1/users/{id}/erasure", Auth::kServerKey, GetErasure{erasures});
}

}  // namespace chopar::http
