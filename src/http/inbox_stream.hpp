#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hub/inbox_service.hpp"

namespace chopar::http {

// The events of one user's inbox stream (GET /v1/inbox/stream), apart from
// the connection that writes them (http::Session): Server-Sent Events text
// built from the inbox, the position the stream has reached (the last
// notification id sent, the unread count last sent). One stream's session
// drives it, one call at a time: Fetch() on the handler pool (it reads the
// database), the rest on the connection's strand.
class InboxStream {
 public:
  // Notifications read per fetch; a full batch asks for another at once.
  static constexpr int kBatch = 100;

  // What one fetch read; `ok` is false when the read failed (logged), and
  // the stream tries again at its next heartbeat tick.
  struct Fetched {
    bool ok = false;
    std::vector<hub::Notification> items;
    std::int64_t unread_count = 0;
  };

  // `inbox` must outlive the stream. The stream starts after notification
  // `last_id` with `unread_count` already known (both read when the stream
  // was opened).
  InboxStream(hub::InboxService& inbox, std::int64_t user_id, std::int64_t last_id,
              std::int64_t unread_count)
      : inbox_(inbox), user_id_(user_id), last_id_(last_id), last_count_(unread_count) {}

  // The first event of every stream: the unread count it starts from.
  [[nodiscard]] std::string Opening() const;

  // Reads what is new since the last notification sent, and the unread
  // count, from the primary. Blocking; never throws. `request_id` tags its
  // log lines.
  [[nodiscard]] Fetched Fetch(const std::string& request_id) const;

  // The events for `fetched` ("notification" per item, with its id; then
  // "unread_count" if it changed), moving the stream past them; "" when
  // nothing changed. `more` is set when a full batch came.
  std::string Advance(const Fetched& fetched, bool& more);

  [[nodiscard]] std::int64_t user_id() const { return user_id_; }

 private:
  hub::InboxService& inbox_;
  const std::int64_t user_id_;
  std::int64_t last_id_;
  std::int64_t last_count_;
};

// One Server-Sent Event: "event: <name>", "id: <id>" when given, "data: …".
std::string FormatSseEvent(std::string_view name, const std::string& data,
                           std::optional<std::int64_t> id = std::nullopt);

}  // namespace chopar::http
