#include "http/message.hpp"

#include <stdexcept>

#include "core/json.hpp"
#include "core/request_error.hpp"

namespace chopar::http {

std::optional<std::string_view> Request::Header(std::string_view lower_name) const {
  const auto it = headers.find(std::string(lower_name));
  if (it == headers.end()) return std::nullopt;
  return it->second;
}

std::int64_t Request::Id(std::string_view name) const {
  const auto it = ids.find(name);
  if (it == ids.end()) throw std::out_of_range("no path parameter " + std::string(name));
  return it->second;
}

const std::string& Request::String(std::string_view name) const {
  const auto it = strings.find(name);
  if (it == strings.end()) throw std::out_of_range("no path parameter " + std::string(name));
  return it->second;
}

std::string DumpJson(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Response JsonResponse(int status, const nlohmann::json& body) {
  Response response;
  response.status = status;
  response.body = DumpJson(body);
  return response;
}

Response NoContentResponse() {
  Response response;
  response.status = 204;
  response.content_type.clear();
  return response;
}

nlohmann::json ParseJsonObject(const Request& request) {
  if (request.body.empty()) {
    throw core::InvalidJson("the request body is empty; a JSON object is expected");
  }
  auto body = core::ParseJson(request.body);
  if (!body.is_object()) {
    throw core::InvalidJson("the request body must be a JSON object");
  }
  return body;
}

}  // namespace chopar::http
