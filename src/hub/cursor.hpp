#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace chopar::hub {

// The keyset cursors of the list endpoints (docs/api.md: "next_cursor").
// Opaque to clients (unpadded base64url of decimal text) and checked here on
// the way back in, so a forged one is a 400 naming "cursor", never a value
// the database refuses (a timestamp out of its range) or a 500. Pure;
// thread-safe.

// Where an inbox page ended: the last item's creation time (microseconds
// since the Unix epoch) and id.
struct InboxCursor {
  std::int64_t created_micros = 0;
  std::int64_t id = 0;
};

// base64url("<created_micros>:<id>").
std::string EncodeInboxCursor(const InboxCursor& cursor);
// Throws core::RequestError kInvalidField (field "cursor") unless `text` is
// what EncodeInboxCursor makes of a row: created_micros >= 0 (no notification
// predates 1970) and id > 0.
InboxCursor DecodeInboxCursor(std::string_view text);

// base64url("<id>") of the last item of a list ordered by id.
std::string EncodeIdCursor(std::int64_t id);
// Throws core::RequestError kInvalidField (field "cursor") unless `text`
// encodes an id > 0.
std::int64_t DecodeIdCursor(std::string_view text);

}  // namespace chopar::hub
