#include "http/inbox_listener.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <utility>

#include "db/notify_channels.hpp"

namespace chopar::http {

namespace {

std::optional<std::int64_t> PositiveId(std::string_view text) {
  std::int64_t id = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || ptr != text.data() + text.size() || id <= 0) return std::nullopt;
  return id;
}

}  // namespace

InboxWake ParseInboxPayload(std::string_view payload) {
  InboxWake wake;
  while (!payload.empty()) {
    const auto comma = payload.find(',');
    std::string_view piece = payload.substr(0, comma);
    payload = comma == std::string_view::npos ? std::string_view() : payload.substr(comma + 1);
    while (!piece.empty() && piece.front() == ' ') piece.remove_prefix(1);
    while (!piece.empty() && piece.back() == ' ') piece.remove_suffix(1);
    if (piece == "*") {
      wake.all = true;
      continue;
    }
    if (const auto dash = piece.find('-'); dash != std::string_view::npos && dash > 0) {
      const auto low = PositiveId(piece.substr(0, dash));
      const auto high = PositiveId(piece.substr(dash + 1));
      if (low && high && *low <= *high) wake.ranges.emplace_back(*low, *high);
      continue;
    }
    if (const auto user_id = PositiveId(piece)) wake.user_ids.push_back(*user_id);
  }
  return wake;
}

std::optional<InboxStateWake> ParseInboxStatePayload(std::string_view payload) {
  if (payload.empty() || payload.front() != '{') return std::nullopt;
  auto parsed = nlohmann::json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) return std::nullopt;
  const auto user_id = parsed.find("user_id");
  const auto state = parsed.find("state");
  if (user_id == parsed.end() || !user_id->is_number_integer() ||
      user_id->get<std::int64_t>() <= 0 || state == parsed.end() || !state->is_object() ||
      !state->contains("change") || !(*state)["change"].is_string()) {
    return std::nullopt;
  }
  return InboxStateWake{user_id->get<std::int64_t>(),
                        std::make_shared<const nlohmann::json>(std::move(*state))};
}

namespace {

// The first wait before reconnecting, doubling (with jitter) up to
// Options::retry_delay.
constexpr std::chrono::milliseconds kFirstRetryDelay{100};

db::ListenerSettings ListenerSettings(std::string conninfo, const InboxListener::Options& options) {
  db::ListenerSettings settings;
  settings.conninfo = std::move(conninfo);
  settings.channel = db::kInboxChannel;
  settings.name = "inbox listener";
  settings.stop_check = options.poll_interval;
  settings.reconnect_backoff = {std::min(kFirstRetryDelay, options.retry_delay),
                                options.retry_delay};
  return settings;
}

}  // namespace

InboxListener::InboxListener(std::string conninfo, StreamHub& hub, Options options)
    : hub_(hub),
      listener_(
          ListenerSettings(std::move(conninfo), options),
          // Counted (connections()) after this returns: a caller that sees
          // the count knows every stream registered before it has been woken.
          [this] { hub_.WakeAll(); },
          [this](const std::vector<db::Notification>& notifications) { FanOut(notifications); }) {}

InboxListener::~InboxListener() { Stop(); }

void InboxListener::Start() { listener_.Start(); }

void InboxListener::Stop() { listener_.Stop(); }

void InboxListener::FanOut(const std::vector<db::Notification>& notifications) {
  for (const auto& note : notifications) {
    if (note.payload.starts_with('{')) {
      if (const auto state = ParseInboxStatePayload(note.payload)) {
        hub_.DeliverState(state->user_id, state->state);
      }
      continue;
    }
    const auto wake = ParseInboxPayload(note.payload);
    if (wake.all) {
      hub_.WakeAll();
      continue;
    }
    if (!wake.user_ids.empty()) hub_.WakeUsers(wake.user_ids);
    for (const auto& [low, high] : wake.ranges) hub_.WakeRange(low, high);
  }
}

}  // namespace chopar::http
