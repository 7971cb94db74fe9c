#pragma once

#include <optional>
#include <string>

#include "core/request_error.hpp"
#include "http/message.hpp"
#include "hub/validation.hpp"

namespace chopar::http {

// The tenant the caller's key is confined to (Caller::tenant), or nullopt
// for a caller that sees every tenant (and for routes without a caller).
inline std::optional<std::string> ConfinedTenant(const Request& request) {
  if (!request.caller) return std::nullopt;
  return request.caller->tenant;
}

// The tenant a request acts in: `given` (a tenant key the request named,
// checked against the key grammar and reported as `field` when it is
// not one), else the caller's tenant when its key is confined to one. A
// confined key naming another tenant is core::RequestError kForbidden.
inline std::optional<std::string> ActingTenant(const Request& request,
                                               const std::optional<std::string>& given,
                                               const std::string& field) {
  if (given && !hub::IsValidTenantKey(*given)) {
    throw core::InvalidField(field, field + " must be a tenant key");
  }
  const auto confined = ConfinedTenant(request);
  if (confined && given && *given != *confined) {
    throw core::Forbidden("this key is confined to tenant " + *confined);
  }
  return confined ? confined : given;
}

// ActingTenant of the query parameter ?tenant=.
inline std::optional<std::string> QueryTenant(const Request& request) {
  return ActingTenant(request, request.query.Get("tenant"), "tenant");
}

}  // namespace chopar::http
