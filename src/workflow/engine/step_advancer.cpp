#include "workflow/engine/step_advancer.hpp"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/time_format.hpp"
#include "db/notify_channels.hpp"
#include "db/params.hpp"
#include "db/statement_time.hpp"
#include "hub/channel_choice.hpp"
#include "hub/preferences.hpp"
#include "hub/queries.hpp"
#include "hub/recipient_row.hpp"
#include "workflow/digest_join.hpp"
#include "workflow/engine/queries.hpp"
#include "workflow/step_metrics.hpp"
#include "workflow/step_progress.hpp"

namespace chopar::workflow::engine {
namespace {

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> items;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    items.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

std::string JoinCommas(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) (text.empty() ? text : text += ",") += item;
  return text;
}

// What the claimed runs' users are: users_for_notify.sql's row per user.
struct UserFacts {
  nlohmann::json preferences;
  hub::Addressable addressable{};
  std::string locale, timezone;
  nlohmann::json data;
};

// The apply_workflow_steps parameters: one element per run, and one per
// delivery to create.
struct Writes {
  std::vector<std::int64_t> id, step;
  std::vector<std::string> status, tried, outcomes;
  std::vector<std::optional<std::string>> waits_on;
  std::vector<std::optional<std::string>> due_at;
  std::vector<bool> passed_throttle;
  std::vector<std::int64_t> send_id, send_step;
  std::vector<std::string> send_channel;
  std::vector<bool> send_waited;

  void Add(std::int64_t notification_id, const RunAdvance& advance) {
    id.push_back(notification_id);
    step.push_back(advance.step);
    status.emplace_back(RunStatusName(advance.status));
    waits_on.push_back(advance.status != RunStatus::kWaiting ? std::nullopt
                       : advance.waits_on_digest             ? std::optional<std::string>("digest")
                                                 : std::optional<std::string>("delivery"));
    tried.push_back(JoinCommas(advance.tried));
    outcomes.push_back(advance.outcomes.dump());
    due_at.push_back(advance.status == RunStatus::kActive && advance.due_at
                         ? std::optional(core::FormatRfc3339Micros(*advance.due_at))
                         : std::nullopt);
    passed_throttle.push_back(advance.passed_throttle);
    for (const RunAdvance::Send& send : advance.sends) {
      send_id.push_back(notification_id);
      send_step.push_back(send.step);
      send_channel.emplace_back(core::ChannelName(send.channel));
      send_waited.push_back(send.waited);
    }
  }
};

// How long a run waits for its type's template to reach this process's
// cache before it ends for want of steps, and how often it looks again.
constexpr std::chrono::seconds kTemplateGrace{60};
constexpr std::chrono::seconds kTemplateRecheck{2};

// A run that cannot go on (its notification or user is gone, its type has
// no steps any more): done, with why as its last outcome.
RunAdvance Ended(const RunState& state, std::string_view why, core::TimePoint now) {
  RunAdvance advance;
  advance.status = RunStatus::kDone;
  advance.step = state.step;
  advance.outcomes = state.outcomes;
  advance.outcomes.push_back({{"index", state.step},
                              {"type", nullptr},
                              {"outcome", "ended"},
                              {"channel", nullptr},
                              {"delivery_id", nullptr},
                              {"at", core::FormatRfc3339(now)},
                              {"until", nullptr},
                              {"detail", why}});
  return advance;
}

}  // namespace

StepAdvancer::StepAdvancer(db::Pool& pool, const core::Clock& clock,
                           const templates::TemplateLookup& templates,
                           core::MetricsRegistry& metrics, StepAdvancerSettings settings)
    : pool_(pool),
      clock_(clock),
      templates_(templates),
      settings_(settings),
      metrics_(metrics),
      advanced_(metrics.GetCounter("chopar_workflow_runs_advanced_total",
                                   "Workflow runs advanced (claimed when due and moved on)")),
      loop_(pool, "workflow", db::kWorkflowsChannel, clock, settings_.max_sleep,
            {[this](bool& full) { return AdvanceBatch(full); }, [this] { return NextDue(); }},
            metrics) {}

StepAdvancer::~StepAdvancer() { Stop(); }

int StepAdvancer::AdvanceBatch(bool& full) {
  auto tx = pool_.Begin("advance_workflows");
  // Locked by one statement, read by the next (lock_workflow_runs.sql says
  // why): read in the statement that locks them, a run another advancer
  // just moved on could be seen at its old step and the step done again.
  const auto locked = tx.Exec(queries::kLockWorkflowRuns, db::SqlNowParam(clock_), settings_.batch);
  full = locked.Rows() >= settings_.batch;
  if (locked.Rows() == 0) {
    tx.Commit();
    return 0;
  }
  std::vector<std::int64_t> locked_ids;
  for (int i = 0; i < locked.Rows(); ++i) locked_ids.push_back(locked.Int(i, "notification_id"));
  const auto runs =
      tx.Exec(queries::kClaimWorkflowRuns, db::SqlNowParam(clock_), db::ArrayLiteral(locked_ids));
  const core::TimePoint now = core::ParsePgTimestamp(runs.Text(0, "now"));

  std::set<std::int64_t> user_ids;
  std::set<std::string> tenant_keys;
  for (int i = 0; i < runs.Rows(); ++i) {
    user_ids.insert(runs.Int(i, "user_id"));
    if (const auto tenant = runs.OptString(i, "tenant")) tenant_keys.insert(*tenant);
  }
  const std::vector<std::int64_t> user_list(user_ids.begin(), user_ids.end());
  std::map<std::int64_t, UserFacts> users;
  const auto user_rows = tx.Exec(hub::queries::kUsersForNotify, db::ArrayLiteral(user_list), 0);
  for (int i = 0; i < user_rows.Rows(); ++i) {
    UserFacts& user = users[user_rows.Int(i, "id")];
    user.preferences = nlohmann::json::parse(user_rows.Text(i, "preferences"));
    user.addressable = hub::ReadAddressable(user_rows, i);
    user.locale = user_rows.String(i, "locale");
    user.timezone = user_rows.String(i, "timezone");
    user.data = nlohmann::json::parse(user_rows.Text(i, "data"));
  }
  // The tenants' default preferences, and which users belong to each.
  std::map<std::string, nlohmann::json, std::less<>> tenant_defaults;
  std::set<std::pair<std::string, std::int64_t>> members;
  if (!tenant_keys.empty()) {
    const auto tenant_rows =
        tx.Exec(hub::queries::kTenantsForNotify, db::ArrayLiteral(user_list),
                db::ArrayLiteral(std::vector<std::string>(tenant_keys.begin(), tenant_keys.end())));
    for (int i = 0; i < tenant_rows.Rows(); ++i) {
      const std::string key = tenant_rows.String(i, "key");
      tenant_defaults[key] = nlohmann::json::parse(tenant_rows.Text(i, "preferences"));
      for (const auto& id : SplitCommas(tenant_rows.OptString(i, "members").value_or("")))
        members.emplace(key, std::stoll(id));
    }
  }

  // Throttle steps passed in this batch, not yet written: counted on top of
  // what the database holds.
  std::map<std::pair<std::int64_t, std::string>, int> passed_here;
  Writes writes;
  for (int i = 0; i < runs.Rows(); ++i) {
    const std::int64_t notification_id = runs.Int(i, "notification_id");
    const std::int64_t user_id = runs.Int(i, "user_id");
    const std::string type = runs.String(i, "type");
    const auto tenant = runs.OptString(i, "tenant");
    RunState state;
    state.step = static_cast<int>(runs.Int(i, "step"));
    state.tried = SplitCommas(runs.OptString(i, "tried").value_or(""));
    state.outcomes = nlohmann::json::parse(runs.Text(i, "outcomes"));
    if (const auto status = runs.OptString(i, "delivery_status");
        status && *status != "queued" && *status != "sending") {
      state.ended = DeliveryEnd{runs.Int(i, "delivery_id"),
                                core::ParseChannel(runs.String(i, "delivery_channel"))
                                    .value_or(core::ChannelKind::kEmail),
                                *status, runs.OptString(i, "delivery_error")};
    }
    if (const auto digest_id = runs.OptInt(i, "digest_id")) {
      state.digest = DigestClosed{*digest_id, runs.Bool(i, "digest_carrier"),
                                  runs.OptInt(i, "digest_count").value_or(0)};
    }
    const auto user = users.find(user_id);
    const auto tmpl = templates_.FindFor(type, tenant);
    if (!runs.Bool(i, "found")) {
      writes.Add(notification_id, Ended(state, "the notification is gone", now));
      continue;
    }
    if (user == users.end()) {
      writes.Add(notification_id, Ended(state, "the user is gone", now));
      continue;
    }
    if (tmpl == nullptr || !tmpl->workflows.steps) {
      // This process may not have heard yet of the template another one
      // stored a moment ago (its NOTIFY on the way): a young run is asked
      // again shortly; one whose type has had no steps for a while ends.
      if (now - core::ParsePgTimestamp(runs.Text(i, "created_at")) < kTemplateGrace) {
        RunAdvance later;
        later.status = RunStatus::kActive;
        later.step = state.step;
        later.tried = state.tried;
        later.outcomes = state.outcomes;
        later.due_at = now + kTemplateRecheck;
        writes.Add(notification_id, later);
      } else {
        writes.Add(notification_id, Ended(state, "the type's template has no steps", now));
      }
      continue;
    }
    const auto category = tmpl->category ? tmpl->category : runs.OptString(i, "category");
    const hub::PreferenceScope scope{
        type, category ? std::optional<std::string_view>(*category) : std::nullopt};
    std::vector<core::ChannelKind> requested;
    if (const auto names = runs.OptString(i, "channels")) {
      for (const auto& name : SplitCommas(*names)) {
        if (const auto kind = core::ParseChannel(name)) requested.push_back(*kind);
      }
    } else {
      requested.assign(core::AllChannels().begin(), core::AllChannels().end());
    }
    const bool in_tenant = tenant && members.contains({*tenant, user_id});
    const nlohmann::json preferences =
        in_tenant ? hub::WithTenantDefaults(tenant_defaults[*tenant], user->second.preferences)
                  : user->second.preferences;
    const bool critical = runs.Bool(i, "critical");

    RunInputs inputs;
    inputs.receivable =
        hub::ChooseChannels(preferences, user->second.addressable, requested, critical, scope);
    inputs.timezone = user->second.timezone;
    inputs.now = now;
    const auto tag_list = runs.OptString(i, "tags");
    inputs.context =
        MakeRunContext({.notification_id = notification_id,
                        .type = type,
                        .category = category,
                        .critical = critical,
                        .tags = tag_list ? SplitCommas(*tag_list) : std::vector<std::string>{},
                        .seen = runs.Bool(i, "seen"),
                        .read = runs.Bool(i, "read"),
                        .archived = runs.Bool(i, "archived"),
                        .data = nlohmann::json::parse(runs.Text(i, "data")),
                        .user_id = user_id,
                        .locale = user->second.locale,
                        .timezone = user->second.timezone,
                        .user_data = user->second.data,
                        .tenant = tenant});
    inputs.pass_throttle = [&](const ThrottleSettings& throttle) {
      tx.Exec(queries::kLockStepThrottle, user_id, type);
      const auto counted = tx.Exec(queries::kCountStepThrottle, user_id, type,
                                   core::FormatRfc3339Micros(now - throttle.window));
      int& here = passed_here[{user_id, type}];
      if (counted.Int(0, "passed") + here >= throttle.limit) return false;
      ++here;
      return true;
    };
    inputs.join_digest = [&](const DigestSettings& digest) {
      std::vector<core::ChannelKind> channels;
      for (core::ChannelKind kind : ChannelsOf(*tmpl->workflows.steps)) {
        if (std::ranges::find(requested, kind) != requested.end()) channels.push_back(kind);
      }
      // The window renders its content for the channels its items name
      // (at least one): a workflow with no channel step after its digest
      // still gets one rendered.
      if (channels.empty()) channels.assign(core::AllChannels().begin(), core::AllChannels().end());
      JoinDigests(
          tx,
          {DigestItem{notification_id, user_id, type, digest.key.Render(inputs.context["data"]),
                      std::move(channels), digest}},
          db::SqlNow(clock_), /*for_workflow_runs=*/true);
    };
    const RunAdvance advance = AdvanceRun(*tmpl->workflows.steps, state, inputs);
    for (std::size_t k = state.outcomes.size(); k < advance.outcomes.size(); ++k) {
      StepsDone(metrics_, advance.outcomes[k].value("outcome", "")).Inc();
    }
    writes.Add(notification_id, advance);
  }

  using db::ArrayLiteral;
  tx.Exec(queries::kApplyWorkflowSteps, ArrayLiteral(writes.id), ArrayLiteral(writes.status),
          ArrayLiteral(writes.step), ArrayLiteral(writes.due_at), ArrayLiteral(writes.tried),
          ArrayLiteral(writes.outcomes), ArrayLiteral(writes.passed_throttle),
          ArrayLiteral(writes.send_id), ArrayLiteral(writes.send_channel),
          ArrayLiteral(writes.send_step), ArrayLiteral(writes.send_waited),
          core::FormatRfc3339Micros(now), ArrayLiteral(writes.waits_on));
  tx.Commit();
  advanced_.Inc(static_cast<double>(runs.Rows()));
  return runs.Rows();
}

std::optional<core::TimePoint> StepAdvancer::NextDue() {
  auto conn = pool_.Acquire();
  const auto row = conn->Exec(queries::kNextWorkflowRun);
  if (row.IsNull(0, "due_at")) return std::nullopt;
  return core::ParsePgTimestamp(row.Text(0, "due_at"));
}

}  // namespace chopar::workflow::engine
