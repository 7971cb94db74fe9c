#include "delivery/claim.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "core/rate_limit.hpp"
#include "core/time_format.hpp"
#include "delivery/claim_plan.hpp"
#include "delivery/queries.hpp"

namespace chopar::delivery {
namespace {

struct Row {
  Candidate candidate;
  channels::Message message;
  core::TimePoint created_at;
};

nlohmann::json ParseJsonOr(const std::optional<std::string>& text, nlohmann::json fallback) {
  if (!text) return fallback;
  auto parsed = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  return parsed.is_discarded() ? fallback : parsed;
}

Row ReadRow(const db::Result& r, int i) {
  Row row;
  const std::string channel_name = r.String(i, "channel");
  const auto channel = core::ParseChannel(channel_name);
  if (!channel) throw std::runtime_error("delivery has unknown channel " + channel_name);

  Candidate& c = row.candidate;
  c.id = r.Int(i, "id");
  c.user_id = r.Int(i, "user_id");
  c.channel = *channel;
  c.attempts = static_cast<int>(r.Int(i, "attempts"));
  c.reclaimed = r.Bool(i, "reclaimed");
  c.send_started = r.Bool(i, "send_started");
  c.critical = r.Bool(i, "critical");
  c.type = r.String(i, "type");
  c.unless_read = r.Bool(i, "unless_read");
  if (auto read_at = r.OptString(i, "read_at")) c.read_at = core::ParsePgTimestamp(*read_at);
  c.timezone = r.String(i, "timezone");
  if (auto start = r.OptString(i, "quiet_start")) c.quiet_start = core::ParseTimeOfDay(*start);
  if (auto end = r.OptString(i, "quiet_end")) c.quiet_end = core::ParseTimeOfDay(*end);

  channels::Message& m = row.message;
  m.delivery_id = c.id;
  m.notification_id = r.Int(i, "notification_id");
  m.user_id = c.user_id;
  m.channel = c.channel;
  m.type = c.type;
  m.title = r.String(i, "title");
  m.body = r.String(i, "body");
  m.link = r.OptString(i, "link");
  m.data = ParseJsonOr(r.OptString(i, "data"), nlohmann::json::object());
  m.locale = r.String(i, "locale");
  m.critical = c.critical;
  m.category = r.OptString(i, "category");
  channels::ApplyChannelTexts(m, ParseJsonOr(r.OptString(i, "channel_texts"), nullptr));
  switch (core::StoreOf(core::InfoOf(c.channel))) {
    case core::AddressStore::kEmail:
      m.email = r.OptString(i, "email");
      break;
    case core::AddressStore::kPhone:
      m.phone = r.OptString(i, "phone");
      break;
    case core::AddressStore::kTelegramChat:
      m.telegram_chat_id = r.OptInt(i, "telegram_chat_id");
      break;
    case core::AddressStore::kPushSubscription:
      for (const auto& t : ParseJsonOr(r.OptString(i, "push_targets"), nlohmann::json::array())) {
        m.push_targets.push_back({t.value("id", std::int64_t{0}), t.value("endpoint", ""),
                                  t.value("p256dh", ""), t.value("auth", "")});
      }
      break;
    case core::AddressStore::kDevice:
      for (const auto& t : ParseJsonOr(r.OptString(i, "device_targets"), nlohmann::json::array())) {
        m.device_targets.push_back({t.value("id", std::int64_t{0}), t.value("platform", ""),
                                    t.value("token", ""), t.value("app", "")});
      }
      m.dedup_key = r.OptString(i, "dedup_key");
      break;
    case core::AddressStore::kUser:
      m.address = r.OptString(i, "address");
      break;
  }
  row.created_at = core::ParsePgTimestamp(r.Text(i, "created_at"));
  return row;
}

// The stored layout each email names (channels::Message::layout_key), as
// this process's cache has it at the claim: a layout changed a moment ago
// is in the next email sent. None found (deleted since): the built-in one.
void AttachLayouts(std::vector<Row>& rows, const templates::TemplateLookup* templates) {
  if (templates == nullptr) return;
  for (Row& row : rows) {
    channels::Message& m = row.message;
    if (!m.layout_key) continue;
    templates::BoundLayout bound{nullptr, templates->Library(m.layout_tenant)};
    bound.layout = bound.library.FindLayout(*m.layout_key);
    if (!bound.layout) {
      spdlog::warn("delivery {}: layout {} not found; the built-in one instead", m.delivery_id,
                   *m.layout_key);
      continue;
    }
    m.layout =
        channels::EmailLayout{[bound](const nlohmann::json& values) { return bound.Html(values); },
                              [bound](const nlohmann::json& values) { return bound.Text(values); }};
  }
}

std::string_view ActionName(ClaimAction action) {
  switch (action) {
    case ClaimAction::kSend:
      return "send";
    case ClaimAction::kDefer:
      return "defer";
    case ClaimAction::kSkip:
      return "skip";
    case ClaimAction::kFail:
      return "fail";
    case ClaimAction::kCancel:
      return "cancel";
  }
  return "";
}

std::vector<std::int64_t> ReclaimedIds(const std::vector<Row>& rows) {
  std::vector<std::int64_t> reclaimed;
  for (const Row& row : rows) {
    if (row.candidate.reclaimed) reclaimed.push_back(row.candidate.id);
  }
  return reclaimed;
}

// The throttles of the types among `rows`, from their templates' settings
// (parsed when the template was: nothing here can fail).
std::map<std::string, workflow::ThrottleSettings, std::less<>> ThrottlesOf(
    const std::vector<Row>& rows, const templates::TemplateLookup* templates) {
  std::map<std::string, workflow::ThrottleSettings, std::less<>> by_type;
  if (templates == nullptr) return by_type;
  std::set<std::string_view> seen;
  for (const Row& row : rows) {
    if (!seen.insert(row.candidate.type).second) continue;
    const auto tmpl = templates->Find(row.candidate.type);
    if (tmpl != nullptr && tmpl->workflows.throttle) {
      by_type.emplace(row.candidate.type, *tmpl->workflows.throttle);
    }
  }
  return by_type;
}

// What each (user, type) of `keys` holds in its throttle window, counted
// under the keys' advisory locks.
std::map<ThrottleKey, int> CountThrottleWindows(db::Transaction& tx, const std::vector<Row>& rows,
                                                const std::vector<ThrottleKey>& keys,
                                                const Throttles& throttles, core::TimePoint now) {
  std::vector<std::int64_t> users;
  std::vector<std::string> types, since;
  for (const ThrottleKey& key : keys) {
    users.push_back(key.user_id);
    types.push_back(key.type);
    since.push_back(db::SqlTime(now - throttles.by_type.find(key.type)->second.window));
  }
  const std::string user_array = db::ArrayLiteral(users), type_array = db::ArrayLiteral(types);
  tx.Defer(queries::kLockClaimKeys, user_array, type_array, "chopar.throttle");
  const auto counts = tx.Exec(queries::kCountThrottleWindow,
                              db::Params(user_array, type_array, db::ArrayLiteral(since),
                                         db::ArrayLiteral(ReclaimedIds(rows))));
  std::map<ThrottleKey, int> in_window;
  for (int i = 0; i < counts.Rows(); ++i) {
    in_window[{counts.Int(i, "user_id"), counts.String(i, "type")}] =
        static_cast<int>(counts.Int(i, "in_window"));
  }
  return in_window;
}

RateCounts CountWindow(db::Transaction& tx, const std::vector<Row>& rows,
                       const std::vector<RateKey>& keys, core::TimePoint now) {
  std::vector<std::int64_t> users;
  std::vector<std::string> channels;
  for (const RateKey& key : keys) {
    users.push_back(key.user_id);
    channels.emplace_back(core::ChannelName(key.channel));
  }
  const std::vector<std::int64_t> reclaimed = ReclaimedIds(rows);
  const std::string user_array = db::ArrayLiteral(users),
                    channel_array = db::ArrayLiteral(channels);
  tx.Defer(queries::kLockClaimKeys, user_array, channel_array, "chopar.delivery_rate");
  // A separate statement (sent in the same round trip): its snapshot is
  // taken after the locks were granted.
  const auto counts =
      tx.Exec(queries::kCountRateWindow,
              db::Params(user_array, channel_array, db::SqlTime(now - core::kRateWindow),
                         db::ArrayLiteral(reclaimed)));
  RateCounts in_window;
  for (int i = 0; i < counts.Rows(); ++i) {
    const auto channel = core::ParseChannel(counts.Text(i, "channel"));
    if (channel)
      in_window[{counts.Int(i, "user_id"), *channel}] =
          static_cast<int>(counts.Int(i, "in_window"));
  }
  return in_window;
}

// Hands the messages the claim decided to send to the channels that send in
// claims, inside this transaction; true for each row handed over. A message
// with no address stays on the normal path, which fails it.
std::vector<bool> SendInClaim(db::Transaction& tx, const ChannelSet& channels,
                              std::vector<Row>& rows, const std::vector<ClaimDecision>& decisions) {
  std::vector<bool> sent_here(rows.size(), false);
  for (core::ChannelKind kind : core::AllChannels()) {
    channels::Channel& channel = channels.For(kind);
    if (!channel.SendsInClaim()) continue;
    std::vector<channels::Message> batch;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      channels::Message& m = rows[i].message;
      if (m.channel != kind || decisions[i].action != ClaimAction::kSend ||
          channels::MissingAddress(m))
        continue;
      m.attempt = rows[i].candidate.attempts + 1;
      batch.push_back(std::move(m));  // a row sent here needs no message afterwards
      sent_here[i] = true;
    }
    if (!batch.empty()) channel.SendInClaim(tx, batch);
  }
  return sent_here;
}

// The claim's update for `rows` rows: generic for the few of most claims,
// planned each time for many (queries/apply_claim.sql says why).
const db::Query& ApplyClaimFor(std::size_t rows) {
  static constexpr std::size_t kPlannedEachTimeFrom = 64;
  static constexpr db::Query kPlannedEachTime{"delivery.apply_claim_planned_each_time",
                                              queries::kApplyClaim.sql, db::Plan::kCustom};
  return rows >= kPlannedEachTimeFrom ? kPlannedEachTime : queries::kApplyClaim;
}

// Keeps what `result`'s first row read of the horizon; true when it is lower
// than `bound`, the one the claim was bound by.
bool LearnHorizon(ActiveHorizon* horizon, ActiveHorizon::Micros bound, const db::Result& result) {
  return horizon != nullptr && horizon->Learn(bound, result.Text(0, "horizon"));
}

std::optional<double> ReadNextDue(const db::Result& result) {
  const auto wait = result.OptString(0, "wait_ms");
  if (!wait) return std::nullopt;
  return std::stod(*wait);
}

}  // namespace

std::vector<ClaimKey> KeysOf(std::span<const ClaimedDelivery> claimed) {
  std::vector<ClaimKey> keys;
  keys.reserve(claimed.size());
  for (const ClaimedDelivery& c : claimed) keys.push_back({c.message.delivery_id, c.claim_token});
  return keys;
}

ClaimResult ClaimBatch(db::Pool& pool, std::optional<core::TimePoint> sql_now,
                       const WorkerSettings& settings, const ChannelSet& channels,
                       const templates::TemplateLookup* templates, ActiveHorizon* horizon) {
  ClaimResult result;
  const ActiveHorizon::Micros bound =
      horizon != nullptr ? horizon->Current() : ActiveHorizon::kMinusInfinity;
  const std::string bound_sql = ActiveHorizon::Sql(bound);
  auto tx = pool.Begin("claim_deliveries");
  const auto locked =
      tx.Exec(queries::kClaimCandidates, db::SqlNowParam(sql_now), settings.batch,
              std::chrono::duration_cast<std::chrono::milliseconds>(settings.lease).count(),
              db::ArrayLiteral(core::ChannelsKeptIn(core::AddressStore::kTelegramChat)),
              db::ArrayLiteral(core::ChannelsKeptIn(core::AddressStore::kPushSubscription)),
              db::ArrayLiteral(core::ChannelsKeptIn(core::AddressStore::kUser)),
              db::ArrayLiteral(core::ChannelsKeptIn(core::AddressStore::kDevice)), bound_sql);
  if (locked.Empty()) {
    const auto next =
        tx.ExecAndCommit(queries::kNextWakeup, db::Params(db::SqlNowParam(sql_now), bound_sql));
    result.next_due_ms = ReadNextDue(next);
    result.horizon_lowered = LearnHorizon(horizon, bound, next);
    return result;
  }
  result.horizon_lowered = LearnHorizon(horizon, bound, locked);
  // The one instant of this claim: the database's, as its first statement saw it.
  const core::TimePoint now = core::ParsePgTimestamp(locked.Text(0, "now"));
  std::vector<Row> rows;
  rows.reserve(static_cast<std::size_t>(locked.Rows()));
  for (int i = 0; i < locked.Rows(); ++i) rows.push_back(ReadRow(locked, i));
  AttachLayouts(rows, templates);
  std::vector<Candidate> candidates;
  candidates.reserve(rows.size());
  for (Row& row : rows) {
    row.candidate.repeat_guarded = channels.For(row.candidate.channel).GuardsRepeats();
    candidates.push_back(row.candidate);
  }

  // Throttle locks are taken before the hourly limit's, by every claim:
  // one global order, so claims never deadlock on each other.
  Throttles throttles{.by_type = ThrottlesOf(rows, templates), .in_window = {}};
  if (const auto throttle_keys = ThrottleKeysToCheck(candidates, now, settings, throttles);
      !throttle_keys.empty())
    throttles.in_window = CountThrottleWindows(tx, rows, throttle_keys, throttles, now);
  const auto keys = RateKeysToCheck(candidates, now, settings);
  const RateCounts in_window = keys.empty() ? RateCounts{} : CountWindow(tx, rows, keys, now);
  const auto decisions = PlanClaim(candidates, now, settings, in_window, throttles);
  const std::vector<bool> sent_here = SendInClaim(tx, channels, rows, decisions);

  std::vector<std::int64_t> ids;
  core::TimePoint created_from = rows.front().created_at, created_to = created_from;
  std::vector<std::string_view> actions;
  std::vector<std::optional<std::string>> until, reasons;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ClaimDecision& d = decisions[i];
    ids.push_back(rows[i].candidate.id);
    created_from = std::min(created_from, rows[i].created_at);
    created_to = std::max(created_to, rows[i].created_at);
    actions.push_back(sent_here[i] ? "sent" : ActionName(d.action));
    until.push_back(d.until ? std::optional(db::SqlTime(*d.until)) : std::nullopt);
    reasons.push_back(d.reason);
  }
  std::vector<db::Statement> last{
      {ApplyClaimFor(rows.size()),
       db::Params(db::ArrayLiteral(ids), db::ArrayLiteral(actions), db::ArrayLiteral(until),
                  db::ArrayLiteral(reasons), db::SqlTime(now), db::SqlTime(now + settings.lease),
                  db::SqlTime(created_from), db::SqlTime(created_to))}};
  const bool took_all = static_cast<int>(rows.size()) < settings.batch;
  if (took_all)
    last.push_back({queries::kNextWakeup, db::Params(db::SqlNowParam(sql_now), bound_sql)});
  auto results = tx.ExecAndCommit(last);
  const db::Result& applied = results.front();
  if (took_all) {
    result.next_due_ms = ReadNextDue(results.back());
    result.horizon_lowered |= LearnHorizon(horizon, bound, results.back());
  }

  std::unordered_map<std::int64_t, int> sending;  // id → row of `applied`
  for (int i = 0; i < applied.Rows(); ++i) {
    if (applied.Text(i, "status") == "sending") sending[applied.Int(i, "id")] = i;
  }
  result.locked = static_cast<int>(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const core::ChannelKind channel = rows[i].candidate.channel;
    switch (decisions[i].action) {
      case ClaimAction::kDefer:
        ++result.deferred;
        break;
      case ClaimAction::kSkip:
        ++result.skipped[channel];
        break;
      case ClaimAction::kFail:
        ++result.failed[channel];
        break;
      case ClaimAction::kCancel:
        ++result.canceled[channel];
        break;
      case ClaimAction::kSend: {
        if (sent_here[i]) {
          ++result.sent[channel];
          result.sent_latency.emplace_back(
              rows[i].candidate.channel,
              std::chrono::duration<double>(now - rows[i].created_at).count());
          break;
        }
        const auto found = sending.find(rows[i].candidate.id);
        if (found == sending.end()) break;  // cannot happen: the row was locked
        ClaimedDelivery claimed{std::move(rows[i].message),
                                applied.String(found->second, "claim_token"), rows[i].created_at};
        claimed.message.attempt = static_cast<int>(applied.Int(found->second, "attempts"));
        result.to_send.push_back(std::move(claimed));
        break;
      }
    }
  }
  return result;
}

}  // namespace chopar::delivery
