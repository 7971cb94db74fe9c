#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
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
//
// Ids are drawn before a transaction commits, so a notification can become
// visible after one with a larger id was sent: a scheduler's firing is
// written up to [scheduler] prepare_seconds ahead of its instant, and a
// broadcast's batch is one transaction. The stream therefore also looks at
// what was created within the last kLateWindow (never before the stream
// opened) with a smaller id, and sends what it has not sent.
class InboxStream {
 public:
  // Notifications read per fetch; a full batch asks for another at once.
  static constexpr int kBatch = 100;
  // How long a notification's transaction may take from its created_at to
  // its commit and still reach an open stream: three times the longest
  // prepare_seconds (30), room for a long batch too.
  static constexpr std::chrono::seconds kLateWindow{90};
  // The ids sent within kLateWindow that a stream keeps; beyond them the
  // window starts at the oldest kept, so nothing is sent twice.
  static constexpr std::size_t kMaxRemembered = 2000;

  // What one fetch read; `ok` is false when the read failed (logged), and
  // the stream tries again at its next heartbeat tick.
  struct Fetched {
    bool ok = false;
    std::vector<hub::Notification> items;
    std::int64_t unread_count = 0;
    std::int64_t unseen_count = 0;
    // The `state` events' data, in the order they came, with the items an
    // `unsnoozed` change brings back as its "notifications".
    std::vector<nlohmann::json> states;
  };
  // State changes a stream holds for its next fetch; beyond them it drops
  // the oldest (the counts that follow are right all the same).
  static constexpr std::size_t kMaxPendingStates = 200;

  // `inbox` must outlive the stream. The stream starts after notification
  // `last_id` with `unread_count` already known (both read when the stream
  // was opened). With `tenant`, it sends only the notifications in that
  // tenant and counts only theirs.
  InboxStream(hub::InboxService& inbox, std::int64_t user_id, std::int64_t last_id,
              std::int64_t unread_count, std::optional<std::string> tenant = std::nullopt,
              std::int64_t unseen_count = 0)
      : inbox_(inbox),
        user_id_(user_id),
        tenant_(std::move(tenant)),
        opened_(std::chrono::system_clock::now()),
        last_id_(last_id),
        last_count_(unread_count),
        last_unseen_(unseen_count) {}

  // The first events of every stream: the unread count it starts from
  // ("unread_count"), then both counts ("counts").
  [[nodiscard]] std::string Opening() const;

  // Reads what is new since the last notification sent, the counts, and the
  // items the `unsnoozed` changes among `states` bring back, from the
  // primary. Blocking; never throws. `request_id` tags its log lines.
  [[nodiscard]] Fetched Fetch(const std::string& request_id,
                              std::vector<nlohmann::json> states = {}) const;

  // The events for `fetched` ("notification" per item, with the largest id
  // sent so far as its `id:` — where a reconnection resumes; "state" per
  // change; then "unread_count" if the unread count changed and "counts"
  // if either count did), moving the stream past them; "" when nothing
  // changed. `more` is set when a full batch came.
  std::string Advance(const Fetched& fetched, bool& more);

  [[nodiscard]] std::int64_t user_id() const { return user_id_; }

 private:
  struct Sent {
    std::int64_t id;
    core::TimePoint created_at;
  };
  // What a fetch asks for at `now`.
  [[nodiscard]] hub::InboxService::Unsent Unsent(core::TimePoint now) const;

  hub::InboxService& inbox_;
  const std::int64_t user_id_;
  const std::optional<std::string> tenant_;
  const core::TimePoint opened_;
  std::int64_t last_id_;
  // Sent within kLateWindow, oldest created first (at most kMaxRemembered).
  std::deque<Sent> remembered_;
  std::int64_t last_count_;
  std::int64_t last_unseen_;
};

// One Server-Sent Event: "event: <name>", "id: <id>" when given, "data: …".
std::string FormatSseEvent(std::string_view name, const std::string& data,
                           std::optional<std::int64_t> id = std::nullopt);

}  // namespace chopar::http
