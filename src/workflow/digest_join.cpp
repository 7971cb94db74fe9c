#include "workflow/digest_join.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>

#include "core/time_format.hpp"
#include "db/errors.hpp"
#include "workflow/queries.hpp"

namespace chopar::workflow {
namespace {

using WindowKey = std::tuple<std::int64_t, std::string, std::string>;  // user, type, key

// A window as the items of this call leave it.
struct Window {
  std::optional<std::int64_t> id;  // nullopt: opened by this call
  int slot = -1;                   // this call's new windows, numbered
  OpenWindow state;
  WindowKey key;
};

std::string Names(const std::vector<core::ChannelKind>& channels) {
  std::string names;
  for (core::ChannelKind kind : channels) {
    if (!names.empty()) names += ',';
    names += core::ChannelName(kind);
  }
  return names;
}

}  // namespace

void JoinDigests(db::Transaction& tx, const std::vector<DigestItem>& items,
                 std::optional<core::TimePoint> simulated_now, bool for_workflow_runs) {
  if (items.empty()) return;
  std::vector<std::int64_t> users;
  std::vector<std::string> types, keys;
  for (const DigestItem& item : items) {
    users.push_back(item.user_id);
    types.push_back(item.type);
    keys.push_back(item.key);
  }
  const std::string user_array = db::ArrayLiteral(users), type_array = db::ArrayLiteral(types),
                    key_array = db::ArrayLiteral(keys);
  tx.Defer(queries::kLockDigestKeys, user_array, type_array, key_array);
  const auto open =
      tx.Exec(queries::kOpenDigests, user_array, type_array, key_array, for_workflow_runs);
  // Read under the locks: any notifier of these keys before this one
  // decided at an earlier time (a clock read before waiting for the locks
  // could be older than the window another notifier just opened).
  const core::TimePoint now =
      simulated_now ? *simulated_now : core::ParsePgTimestamp(open.Text(0, "now"));

  // The window each key would be joined to now: the latest-closing open one.
  std::map<WindowKey, Window> current;
  for (int i = 0; i < open.Rows(); ++i) {
    if (open.IsNull(i, "id")) continue;  // no window open: the row carries only `now`
    const WindowKey key{open.Int(i, "user_id"), open.String(i, "type"), open.String(i, "key")};
    // Rows come by closes_at: the last one of a key is its latest-closing.
    current[key] = Window{open.Int(i, "id"), -1,
                          OpenWindow{core::ParsePgTimestamp(open.Text(i, "opened_at")),
                                     core::ParsePgTimestamp(open.Text(i, "closes_at")),
                                     static_cast<int>(open.Int(i, "item_count"))},
                          key};
  }

  std::vector<Window> fresh;  // by slot
  std::vector<std::optional<std::int64_t>> item_digest;
  std::vector<std::optional<std::int64_t>> item_slot;
  std::vector<std::int64_t> item_notification;
  std::vector<std::string> item_channels;
  std::map<std::int64_t, Window> joined;  // existing windows changed, by id
  for (const DigestItem& item : items) {
    const WindowKey key{item.user_id, item.type, item.key};
    const auto found = current.find(key);
    const std::optional<OpenWindow> state =
        found == current.end() ? std::nullopt : std::optional(found->second.state);
    const WindowDecision decision = DecideDigestWindow(state, now, item.settings);
    if (decision.kind == WindowDecision::Kind::kOpen) {
      Window window{std::nullopt, static_cast<int>(fresh.size()),
                    OpenWindow{now, decision.closes_at, 0}, key};
      fresh.push_back(window);
      current[key] = window;
    }
    Window& window = current[key];
    window.state.item_count += 1;
    window.state.closes_at = decision.closes_at;
    if (window.id) {
      joined[*window.id] = window;
      item_digest.push_back(window.id);
      item_slot.emplace_back(std::nullopt);
    } else {
      fresh[static_cast<std::size_t>(window.slot)] = window;
      item_digest.emplace_back(std::nullopt);
      item_slot.emplace_back(window.slot);
    }
    item_notification.push_back(item.notification_id);
    item_channels.push_back(Names(item.channels));
  }

  std::vector<std::int64_t> slots, fresh_users, fresh_counts, joined_ids, joined_counts;
  std::vector<std::string> fresh_types, fresh_keys, fresh_closes, joined_closes;
  for (const Window& window : fresh) {
    slots.push_back(window.slot);
    fresh_users.push_back(std::get<0>(window.key));
    fresh_types.push_back(std::get<1>(window.key));
    fresh_keys.push_back(std::get<2>(window.key));
    fresh_closes.push_back(core::FormatRfc3339Micros(window.state.closes_at));
    fresh_counts.push_back(window.state.item_count);
  }
  for (const auto& [id, window] : joined) {
    joined_ids.push_back(id);
    joined_counts.push_back(window.state.item_count);
    joined_closes.push_back(core::FormatRfc3339Micros(window.state.closes_at));
  }
  using db::ArrayLiteral;
  try {
    tx.Exec(queries::kWriteDigests,
            db::Params(
                ArrayLiteral(slots), ArrayLiteral(fresh_users), ArrayLiteral(fresh_types),
                ArrayLiteral(fresh_keys), ArrayLiteral(fresh_closes), ArrayLiteral(fresh_counts),
                ArrayLiteral(joined_ids), ArrayLiteral(joined_counts), ArrayLiteral(joined_closes),
                ArrayLiteral(item_digest), ArrayLiteral(item_slot), ArrayLiteral(item_notification),
                ArrayLiteral(item_channels), core::FormatRfc3339Micros(now), for_workflow_runs));
  } catch (const db::CheckViolation& e) {
    // Every value written was computed here (keys are bounded when
    // rendered, types validated): a refusal is this code's defect.
    throw std::logic_error(std::string("digest windows broke their invariants: ") + e.what());
  }
}

}  // namespace chopar::workflow
