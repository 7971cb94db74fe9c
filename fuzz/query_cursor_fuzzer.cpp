// Query strings and the opaque cursors of the list endpoints: any text
// parses or is refused with core::RequestError, never anything else; an
// accepted cursor holds only what the server could have made and encodes
// back to a cursor that decodes the same.
#include <limits>

#include "core/request_error.hpp"
#include "fuzz_support.hpp"
#include "http/query_string.hpp"
#include "hub/cursor.hpp"

using namespace chopar;

namespace {

void Query(std::string_view text) {
  http::QueryParams query;
  try {
    query = http::QueryParams::Parse(text);
  } catch (const core::RequestError&) {
    return;
  }
  for (const auto& [name, value] : query.items()) {
    fuzz::Require(name.find('\0') == std::string::npos && value.find('\0') == std::string::npos,
                  "no NUL reaches a handler");
    fuzz::Require(query.Get(name).has_value(), "every parsed name is found");
    try {
      const auto number = query.GetInt(name, 1, 100);
      fuzz::Require(number && *number >= 1 && *number <= 100, "GetInt stays in range");
    } catch (const core::RequestError&) {
    }
    try {
      (void)query.GetBool(name);
    } catch (const core::RequestError&) {
    }
  }
}

void Cursors(std::string_view text) {
  try {
    const hub::InboxCursor cursor = hub::DecodeInboxCursor(text);
    fuzz::Require(cursor.created_micros >= 0 && cursor.id > 0, "inbox cursor in range");
    const hub::InboxCursor again = hub::DecodeInboxCursor(hub::EncodeInboxCursor(cursor));
    fuzz::Require(again.created_micros == cursor.created_micros && again.id == cursor.id,
                  "inbox cursor round trip");
  } catch (const core::RequestError& e) {
    fuzz::Require(e.field() == "cursor", "refusal names the cursor");
  }
  try {
    const std::int64_t id = hub::DecodeIdCursor(text);
    fuzz::Require(id > 0, "id cursor positive");
    fuzz::Require(hub::DecodeIdCursor(hub::EncodeIdCursor(id)) == id, "id cursor round trip");
  } catch (const core::RequestError& e) {
    fuzz::Require(e.field() == "cursor", "refusal names the cursor");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::AsText(data, size);
  Query(text);
  Cursors(text);
  return 0;
}
