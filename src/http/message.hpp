#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/caller.hpp"
#include "http/query_string.hpp"

namespace chopar::http {

// One HTTP request as handlers see it: parsed, size-checked, independent of
// the transport. Handlers get it const; the dispatcher fills `query`, the
// path parameters and `subscriber` before calling them.
struct Request {
  std::string method;                          // as sent, e.g. "GET"
  std::string path;                            // the target without the query string, not decoded
  std::string raw_query;                       // after '?', not decoded
  QueryParams query;                           // raw_query parsed by the dispatcher
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
  std::chrono::steady_clock::time_point received_at = std::chrono::steady_clock::now();
  std::string id;  // X-Request-Id (http/request_id.hpp), set by the connection
  // The peer address of the connection (the rate limits' key): an IPv4
  // address (also when it came as IPv4-mapped IPv6), or an IPv6 address's
  // /64 prefix ("2001:db8:1:2::/64"); set by the connection.
  std::string client_address;

  // Path parameters of the matched route: `{id}` as a positive int64 in
  // `ids`, `{name:str}` decoded in `strings`.
  std::map<std::string, std::int64_t, std::less<>> ids;
  std::map<std::string, std::string, std::less<>> strings;
  // The user of a valid subscriber token (inbox routes only).
  std::optional<std::int64_t> subscriber;
  // Who called a route that needs the server's credentials: the bootstrap
  // key, an API key or a console session (set by the dispatcher).
  std::optional<Caller> caller;

  // A header by lower-case name.
  [[nodiscard]] std::optional<std::string_view> Header(std::string_view lower_name) const;
  // A path parameter; throws std::out_of_range if the route has no such
  // parameter (a programming error, reported as 500).
  [[nodiscard]] std::int64_t Id(std::string_view name) const;
  [[nodiscard]] const std::string& String(std::string_view name) const;
};

// What a Server-Sent Events route asks the connection to become instead of
// an ordinary response (GET /v1/inbox/stream).
struct StreamStart {
  std::int64_t user_id = 0;
  std::int64_t last_id = 0;       // notifications up to this id are not sent
  std::int64_t unread_count = 0;  // sent as the first event
  std::int64_t unseen_count = 0;  // sent in the first `counts` event
  bool catch_up = false;          // fetch after last_id at once (Last-Event-ID)
  // ?tenant=: only the notifications in that tenant, and their unread count.
  std::optional<std::string> tenant;
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers
  std::optional<StreamStart> stream;                         // set: switch to text/event-stream
};

// JSON serialisation used for every response body: compact, invalid UTF-8
// replaced rather than thrown on.
std::string DumpJson(const nlohmann::json& value);

// A JSON response with `status`.
Response JsonResponse(int status, const nlohmann::json& body);
// 204 with no body.
Response NoContentResponse();

// The request body as a JSON object (core::ParseJson: nested at most
// core::kMaxJsonDepth deep). Throws core::RequestError kInvalidJson for an
// empty body, malformed JSON, nesting too deep or a value that is not an
// object.
nlohmann::json ParseJsonObject(const Request& request);

}  // namespace chopar::http
