#include "core/request_error.hpp"
#include "hub/inbox_service.hpp"
#include "hub/validation.hpp"

namespace chopar::hub {

MarkReadRequest ParseMarkReadRequest(const nlohmann::json& body) {
  RequireObject(body);
  const auto all = body.find("all");
  const auto ids = body.find("ids");
  MarkReadRequest request;
  request.all = all != body.end() && all->is_boolean() && all->get<bool>();
  if (all != body.end() && !all->is_boolean()) {
    throw core::InvalidField("all", "all must be true or false");
  }
  if (request.all) return request;
  if (ids == body.end() || !ids->is_array()) {
    throw core::InvalidField("ids", "send {\"ids\": [1, 2]} or {\"all\": true}");
  }
  if (ids->size() > 1000) throw core::InvalidField("ids", "at most 1000 ids at once");
  for (const auto& id : *ids) {
    if (!id.is_number_integer()) throw core::InvalidField("ids", "ids must be integers");
    request.ids.push_back(id.get<std::int64_t>());
  }
  return request;
}

}  // namespace chopar::hub
