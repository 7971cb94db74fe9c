#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/api_error.hpp"
#include "core/channel_kind.hpp"
#include "core/clock.hpp"
#include "db/pool.hpp"

namespace chopar::hub {

// A validated notification to create (API.md POST /v1/notifications).
struct NotificationRequest {
  std::int64_t user_id = 0;
  std::string type;
  std::string title;
  std::string body;
  std::optional<std::string> link;
  nlohmann::json data = nlohmann::json::object();
  std::optional<std::string> dedup_key;
  std::vector<core::ChannelKind> channels{core::kAllChannels.begin(), core::kAllChannels.end()};
  bool critical = false;
};

// Parses and validates one request body. Throws core::ApiError (400) naming
// the field: wrong types, missing user_id/type/title, a type that does not
// match ^[a-z]+(\.[a-z_]+)*$, an external link, unknown channels, lengths.
NotificationRequest ParseNotificationRequest(const nlohmann::json& body);

struct NotifyResult {
  std::int64_t id = 0;
  bool created = false;
  std::vector<core::ChannelKind> channels;  // empty when not created
  [[nodiscard]] nlohmann::json ToJson() const;
};

using BatchItemResult = std::variant<NotifyResult, core::ApiError>;

// Creates notifications: the in-app row, one delivery per chosen channel and
// one NOTIFY to wake workers and inbox streams, all in one statement.
// Thread-safe (each call borrows its own connection).
class NotifyService {
 public:
  NotifyService(db::Pool& pool, const core::Clock& clock) : pool_(pool), clock_(clock) {}

  // One notification. Throws core::ApiError (404 user_not_found, 400).
  NotifyResult Notify(const NotificationRequest& request);

  // Many notifications in one statement of set-based SQL. Each item is
  // accepted or rejected on its own (unknown user → its own error); results
  // are in input order.
  std::vector<BatchItemResult> NotifyBatch(const std::vector<NotificationRequest>& requests);

  // The same inside a transaction the caller owns (the scheduler and the
  // relay create notifications atomically with their own bookkeeping). The
  // caller commits; the NOTIFY is sent at that commit.
  static std::vector<BatchItemResult> NotifyIn(db::Transaction& tx,
                                               const std::vector<NotificationRequest>& requests,
                                               core::TimePoint now);

 private:
  static std::vector<BatchItemResult> NotifyOn(db::Connection& conn,
                                               const std::vector<NotificationRequest>& requests,
                                               core::TimePoint now);

  db::Pool& pool_;
  const core::Clock& clock_;
};

}  // namespace chopar::hub
