// A POST /v1/notifications body through the same path as the server: the
// depth-limited JSON parser, then the request's validation. Only
// core::RequestError may come out, and what is accepted keeps every rule of
// docs/api.md (type grammar, internal link, no NUL anywhere).
#include "core/json.hpp"
#include "core/request_error.hpp"
#include "fuzz_support.hpp"
#include "hub/notify_service.hpp"
#include "hub/validation.hpp"

using namespace chopar;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  hub::NotificationRequest request;
  try {
    const nlohmann::json body = core::ParseJson(fuzz::AsText(data, size));
    // The batch route validates each item the same way.
    request = hub::ParseNotificationRequest(body);
  } catch (const core::RequestError&) {
    return 0;
  }
  fuzz::Require(request.user_id > 0, "user_id positive");
  fuzz::Require(hub::IsValidType(request.type), "type matches the grammar");
  // An absent title is empty: the type's template supplies it (or the
  // notification is refused when composed); a given one is 1-500 characters.
  fuzz::Require(request.title.size() <= 500 * 4, "title within its limit");
  fuzz::Require(!request.link || hub::IsInternalLink(*request.link), "link internal");
  fuzz::Require(request.data.is_object() || request.data.is_null(), "data an object");
  fuzz::Require(!core::ContainsNul(request.data), "no NUL in data");
  for (const std::string* text : {&request.type, &request.title, &request.body}) {
    fuzz::Require(text->find('\0') == std::string::npos, "no NUL in text fields");
  }
  // What is stored is dumped again for the API: that must not throw.
  (void)request.data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return 0;
}
