#include "hub/notify_service.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/metrics.hpp"
#include "core/time_format.hpp"
#include "db/errors.hpp"
#include "db/statement_time.hpp"
#include "hub/channel_choice.hpp"
#include "hub/notification_content.hpp"
#include "hub/preferences.hpp"
#include "hub/queries.hpp"
#include "hub/recipient_row.hpp"
#include "hub/stored_request.hpp"
#include "workflow/digest_join.hpp"
#include "workflow/step_metrics.hpp"
#include "workflow/step_progress.hpp"
#include "workflow/steps.hpp"

namespace chopar::hub {
namespace {

struct Recipient {
  nlohmann::json preferences;
  Addressable addressable{};
  std::string locale;
  std::string timezone;
  std::string data;  // the user's data as JSON text, parsed only to render a template
};

struct Recipients {
  std::map<std::int64_t, Recipient> users;
  std::vector<std::int64_t> drawn_ids;  // ascending; one per request, or none
};

// The users `requests` are for, and with `draw_ids` one notification id per
// request drawn in the same round trip. `Session` is a db::Connection or a
// db::Transaction: both run a query with Exec (a transaction after the
// statements deferred on it).
template <typename Session>
Recipients LoadRecipients(Session& session, const std::vector<NotificationRequest>& requests,
                          bool draw_ids) {
  std::set<std::int64_t> ids;
  for (const auto& r : requests) ids.insert(r.user_id);
  const auto rows = session.Exec(
      queries::kUsersForNotify, db::ArrayLiteral(std::vector<std::int64_t>(ids.begin(), ids.end())),
      draw_ids ? static_cast<int>(requests.size()) : 0);
  Recipients recipients;
  for (int i = 0; i < rows.Rows(); ++i) {
    if (rows.IsNull(i, "id")) {
      recipients.drawn_ids.push_back(rows.Int(i, "drawn_id"));
      continue;
    }
    Recipient& r = recipients.users[rows.Int(i, "id")];
    r.preferences = nlohmann::json::parse(rows.Text(i, "preferences"));
    r.addressable = ReadAddressable(rows, i);
    r.locale = rows.String(i, "locale");
    r.timezone = rows.String(i, "timezone");
    r.data = rows.String(i, "data");
  }
  std::sort(recipients.drawn_ids.begin(), recipients.drawn_ids.end());
  return recipients;
}

// A tenant a batch names: its defaults and which of the batch's users
// belong to it.
struct TenantContext {
  nlohmann::json preferences;
  nlohmann::json branding;
  std::set<std::int64_t> members;
};

// The tenants `requests` name, by key (a key no tenant has is absent);
// empty without a query when they name none.
template <typename Session>
std::map<std::string, TenantContext, std::less<>> LoadTenants(
    Session& session, const std::vector<NotificationRequest>& requests) {
  std::set<std::string> keys;
  std::set<std::int64_t> users;
  for (const auto& r : requests) {
    if (!r.tenant) continue;
    keys.insert(*r.tenant);
    users.insert(r.user_id);
  }
  std::map<std::string, TenantContext, std::less<>> tenants;
  if (keys.empty()) return tenants;
  const auto rows =
      session.Exec(queries::kTenantsForNotify,
                   db::ArrayLiteral(std::vector<std::int64_t>(users.begin(), users.end())),
                   db::ArrayLiteral(std::vector<std::string>(keys.begin(), keys.end())));
  for (int i = 0; i < rows.Rows(); ++i) {
    TenantContext& t = tenants[rows.String(i, "key")];
    t.preferences = nlohmann::json::parse(rows.Text(i, "preferences"));
    t.branding = nlohmann::json::parse(rows.Text(i, "branding"));
    const std::string members = rows.OptString(i, "members").value_or("");
    for (std::size_t start = 0; start < members.size();) {
      const std::size_t comma = std::min(members.find(',', start), members.size());
      t.members.insert(std::stoll(members.substr(start, comma - start)));
      start = comma + 1;
    }
  }
  return tenants;
}

// The tenant's branding on the email a notification in it sends: beside
// the email's texts in the notification's content, where the worker reads
// them (channels::Message::branding).
void AddBranding(NotificationContent& said, const nlohmann::json& branding,
                 const std::vector<core::ChannelKind>& chosen) {
  if (!branding.is_object() || branding.empty()) return;
  if (std::ranges::find(chosen, core::ChannelKind::kEmail) == chosen.end()) return;
  if (said.channels.is_null()) said.channels = nlohmann::json::object();
  nlohmann::json& email = said.channels[std::string(core::ChannelName(core::ChannelKind::kEmail))];
  if (email.is_null()) email = nlohmann::json::object();
  if (email.contains("error")) return;
  email["branding"] = branding;
}

// Channels whose deliveries are created with the notification but held
// until `until`, and canceled then if it was read: the older escalate's, or
// a workflow's steps after a delay (workflow::RunAdvance::held).
struct HeldChannels {
  std::vector<core::ChannelKind> channels;
  core::TimePoint until;
};

// The type's escalate-if-unread, if any: its channels among `chosen` are
// held until `now` + after_seconds.
HeldChannels HeldFor(const std::optional<workflow::EscalateSettings>& escalate,
                     const std::vector<core::ChannelKind>& chosen, core::TimePoint now) {
  if (!escalate) return {};
  HeldChannels held{{}, now + escalate->after};
  for (core::ChannelKind kind : chosen)
    if (escalate->Holds(kind)) held.channels.push_back(kind);
  return held;
}

// The insert_notifications parameters: one array per column.
struct InsertColumns {
  std::vector<std::int64_t> idx, user_id;
  std::vector<std::optional<std::int64_t>> drawn_id;
  std::vector<std::string> type, title, body, data, channels;
  std::vector<std::optional<std::string>> link, dedup_key, category, content, held, held_until,
      cancellation_key, tenant, actions, tags, workflow;
  std::vector<bool> critical;
  bool any_tenant = false, any_actions = false, any_tags = false, any_workflow = false;

  // The row added last goes through its type's workflow steps: a run on
  // the channels `r` names ("*": every channel), where `advance` (the
  // steps done at notify) leaves it.
  void StartWorkflow(const NotificationRequest& r, const workflow::RunAdvance& advance) {
    std::string names;
    for (core::ChannelKind kind : r.channels) {
      if (!names.empty()) names += ',';
      names += core::ChannelName(kind);
    }
    // Written as text: channel names, status names and timestamps need no
    // escaping, and building a JSON object only to dump it cost a tenth of
    // the notify path's CPU with a workflow on every notification.
    std::string run = R"({"channels":")";
    run += r.channels.size() == core::ChannelCount() ? "*" : names;
    run += R"(","step":)" + std::to_string(advance.step);
    run += R"(,"status":")" + std::string(workflow::RunStatusName(advance.status));
    run += advance.due_at ? R"(","due_at":")" + core::FormatRfc3339Micros(*advance.due_at) + '"'
                          : std::string(R"(","due_at":null)");
    run += R"(,"outcomes":)" + advance.outcomes.dump() + '}';
    workflow.back() = std::move(run);
    any_workflow = true;
  }

  // `holding`: those of `chosen` whose deliveries wait until
  // `holding.until` and are canceled then if the notification was read.
  void Add(std::size_t index, const NotificationRequest& r,
           const std::vector<core::ChannelKind>& chosen, NotificationContent said,
           std::optional<std::string> category_name, std::optional<std::int64_t> id,
           const HeldChannels& holding) {
    idx.push_back(static_cast<std::int64_t>(index));
    user_id.push_back(r.user_id);
    drawn_id.push_back(id);
    type.push_back(r.type);
    title.push_back(std::move(said.title));
    body.push_back(std::move(said.body));
    category.push_back(std::move(category_name));
    content.push_back(said.channels.is_null() ? std::nullopt : std::optional(said.channels.dump()));
    actions.push_back(said.actions.is_null() ? std::nullopt : std::optional(said.actions.dump()));
    any_actions = any_actions || !said.actions.is_null();
    std::string tag_list;
    for (const std::string& tag : said.tags) (tag_list.empty() ? tag_list : tag_list += ',') += tag;
    tags.push_back(tag_list.empty() ? std::nullopt : std::optional(std::move(tag_list)));
    any_tags = any_tags || !said.tags.empty();
    data.push_back(r.data.dump());
    std::string names;
    for (core::ChannelKind kind : chosen) {
      if (!names.empty()) names += ',';
      names += core::ChannelName(kind);
    }
    channels.push_back(std::move(names));
    std::string held_names;
    for (core::ChannelKind kind : chosen) {
      if (std::ranges::find(holding.channels, kind) == holding.channels.end()) continue;
      if (!held_names.empty()) held_names += ',';
      held_names += core::ChannelName(kind);
    }
    held.push_back(held_names.empty() ? std::nullopt : std::optional(held_names));
    held_until.push_back(held_names.empty()
                             ? std::nullopt
                             : std::optional(core::FormatRfc3339Micros(holding.until)));
    link.push_back(r.link);
    dedup_key.push_back(r.dedup_key);
    cancellation_key.push_back(r.cancellation_key);
    tenant.push_back(r.tenant);
    any_tenant = any_tenant || r.tenant.has_value();
    critical.push_back(r.critical);
    workflow.push_back(std::nullopt);
  }
};

// The insert_delayed parameters: notifications asked for later.
struct DelayedColumns {
  std::vector<std::int64_t> idx, id, user_id;
  std::vector<std::string> due_at, request;
  std::vector<std::optional<std::string>> dedup_key, cancellation_key;
  int version = 1;  // the newest form among them (StoredRequestVersionOf)

  void Add(std::size_t index, const NotificationRequest& r, std::int64_t drawn,
           core::TimePoint due) {
    idx.push_back(static_cast<std::int64_t>(index));
    id.push_back(drawn);
    user_id.push_back(r.user_id);
    due_at.push_back(core::FormatRfc3339Micros(due));
    // Released as it is when due: its not-before is due_at now.
    NotificationRequest released = r;
    released.send_at.reset();
    released.delay_seconds.reset();
    request.push_back(EncodeStoredRequest(released).dump());
    version = std::max(version, StoredRequestVersionOf(released));
    dedup_key.push_back(r.dedup_key);
    cancellation_key.push_back(r.cancellation_key);
  }
};

// Reads the (idx, created, id) rows of insert_notifications or
// insert_delayed into `results`. A repeat of a dedup key earlier in the same
// batch gets that row's id; `find_existing` looks up a key another
// transaction stored after the statement's snapshot was taken.
template <typename FindExisting>
void ReadInserted(const db::Result& inserted, const std::vector<NotificationRequest>& requests,
                  const std::vector<std::vector<core::ChannelKind>>& chosen,
                  std::vector<std::optional<BatchItemResult>>& results,
                  FindExisting find_existing) {
  std::map<std::pair<std::int64_t, std::string>, std::int64_t> batch_ids;
  for (int row = 0; row < inserted.Rows(); ++row) {
    const auto idx = static_cast<std::size_t>(inserted.Int(row, "idx"));
    const NotificationRequest& r = requests[idx];
    NotifyResult result;
    result.created = inserted.Bool(row, "created");
    if (result.created) {
      result.id = inserted.Int(row, "id");
      result.channels = chosen[idx];
      if (r.dedup_key) batch_ids[{r.user_id, *r.dedup_key}] = result.id;
    } else if (auto existing = inserted.OptInt(row, "id")) {
      result.id = *existing;
    } else if (const auto it = batch_ids.find({r.user_id, *r.dedup_key}); it != batch_ids.end()) {
      result.id = it->second;
    } else {
      result.id = find_existing(r);
    }
    results[idx] = result;
  }
}

// A request with no title needs its type's template. One this process has
// not heard of may have been stored by another a moment ago, its NOTIFY
// still on the way: look in the database before such a request is refused.
void RecheckUntitledTypes(const std::vector<NotificationRequest>& requests,
                          const templates::TemplateLookup* lookup) {
  if (lookup == nullptr) return;
  std::set<std::string_view> checked;
  for (const NotificationRequest& r : requests) {
    if (r.title.empty() && checked.insert(r.type).second) (void)lookup->FindFresh(r.type);
  }
}

// Whether notifying `requests` at `now` writes more than one statement
// (delayed notifications, digest windows), so needs a transaction.
bool NeedsTransaction(const std::vector<NotificationRequest>& requests, core::TimePoint now,
                      const templates::TemplateLookup* lookup) {
  return std::ranges::any_of(requests, [&](const NotificationRequest& r) {
    if (r.DueAt(now) > now) return true;
    if (lookup == nullptr) return false;
    const auto tmpl = lookup->FindFor(r.type, r.tenant);
    return tmpl != nullptr && tmpl->digest.is_object();
  });
}

template <typename Session>
std::vector<BatchItemResult> NotifyOn(Session& session,
                                      const std::vector<NotificationRequest>& requests,
                                      core::TimePoint now, const templates::TemplateLookup* lookup,
                                      std::optional<core::TimePoint> broadcast_due,
                                      std::optional<core::TimePoint> simulated_windows_now) {
  std::vector<std::optional<BatchItemResult>> results(requests.size());
  if (requests.empty()) return {};
  std::vector<std::shared_ptr<const templates::Template>> found(requests.size());
  bool any_template = false, any_delayed = false;
  if (lookup != nullptr) {
    for (std::size_t i = 0; i < requests.size(); ++i) {
      found[i] = lookup->FindFor(requests[i].type, requests[i].tenant);
      any_template = any_template || found[i] != nullptr;
    }
  }
  for (const NotificationRequest& r : requests) any_delayed = any_delayed || r.DueAt(now) > now;
  const auto recipients = LoadRecipients(session, requests, any_template || any_delayed);
  const auto tenants = LoadTenants(session, requests);
  const std::string created_at = core::FormatRfc3339(now);

  InsertColumns columns;
  DelayedColumns delayed;
  std::map<std::size_t, workflow::DigestItem> digest_items;  // by request
  // The outcomes of the workflow steps done here, by request.
  std::map<std::size_t, std::vector<std::string>> steps_done;
  std::vector<std::vector<core::ChannelKind>> chosen(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const NotificationRequest& r = requests[i];
    const auto it = recipients.users.find(r.user_id);
    if (it == recipients.users.end()) {
      results[i] = core::UserNotFound(r.user_id);
      continue;
    }
    const Recipient& user = it->second;
    const TenantContext* tenant = nullptr;
    if (r.tenant) {
      const auto found_tenant = tenants.find(*r.tenant);
      if (found_tenant == tenants.end() || !found_tenant->second.members.contains(r.user_id)) {
        results[i] = core::InvalidField("tenant", "user " + std::to_string(r.user_id) +
                                                      " does not belong to tenant " + *r.tenant);
        continue;
      }
      tenant = &found_tenant->second;
    }
    const templates::Template* tmpl = found[i].get();
    const auto category = tmpl != nullptr && tmpl->category ? tmpl->category : r.category;
    const PreferenceScope scope{
        r.type, category ? std::optional<std::string_view>(*category) : std::nullopt};
    static const workflow::WorkflowSettings kNone;
    const workflow::WorkflowSettings& workflows = tmpl != nullptr ? tmpl->workflows : kNone;
    // A workflow's steps choose their channels when each is due; its texts
    // are rendered now for every channel a step may send on.
    std::vector<core::ChannelKind> steps_channels;
    if (workflows.steps) {
      for (core::ChannelKind kind : workflow::ChannelsOf(*workflows.steps)) {
        if (std::ranges::find(r.channels, kind) != r.channels.end()) steps_channels.push_back(kind);
      }
    }
    chosen[i] = ChooseChannels(
        tenant != nullptr ? WithTenantDefaults(tenant->preferences, user.preferences)
                          : user.preferences,
        user.addressable, workflows.steps ? steps_channels : r.channels, r.critical, scope);
    std::optional<std::int64_t> id = r.id;
    if (!id && !recipients.drawn_ids.empty()) id = recipients.drawn_ids.at(i);
    try {
      nlohmann::json context;
      if (tmpl != nullptr) {
        context =
            templates::MakeContext(r.data,
                                   templates::ContextUser{r.user_id, user.locale, user.timezone,
                                                          nlohmann::json::parse(user.data)},
                                   templates::ContextNotification{id, r.type, r.link, created_at});
      }
      // Composed for a delayed one too: a request that cannot be rendered
      // is refused now, not when it is due.
      const auto& rendered_for = workflows.steps ? steps_channels : chosen[i];
      const templates::LazyPartials library([lookup, &r] {
        return lookup != nullptr ? lookup->Library(r.tenant) : templates::RenderLibrary();
      });
      NotificationContent said =
          ComposeContent(r, tmpl, user.locale, context, rendered_for, &library);
      if (tenant != nullptr) AddBranding(said, tenant->branding, rendered_for);
      if (const core::TimePoint due = r.DueAt(now); due > now) {
        delayed.Add(i, r, *id, due);
        chosen[i].clear();  // chosen when it is released
        continue;
      }
      if (workflows.steps) {
        // The steps that need nothing from the database are done here, in
        // the statement that creates the notification: a first channel
        // step not waited for goes out with it, as a plain notification's.
        workflow::RunInputs inputs;
        inputs.at_notify = true;
        inputs.receivable = chosen[i];
        inputs.timezone = user.timezone;
        inputs.now = now;
        inputs.make_context = [&] {
          return workflow::MakeRunContext({.notification_id = id.value_or(0),
                                           .type = r.type,
                                           .category = category,
                                           .critical = r.critical,
                                           .tags = said.tags,
                                           .data = r.data,
                                           .user_id = r.user_id,
                                           .locale = user.locale,
                                           .timezone = user.timezone,
                                           .user_data = nlohmann::json::parse(user.data),
                                           .tenant = r.tenant});
        };
        const workflow::RunAdvance advance = workflow::AdvanceRun(*workflows.steps, {}, inputs);
        std::vector<core::ChannelKind> sent_now;
        for (const auto& send : advance.sends) sent_now.push_back(send.channel);
        sent_now.insert(sent_now.end(), advance.held.begin(), advance.held.end());
        columns.Add(i, r, sent_now, std::move(said), category, id,
                    HeldChannels{advance.held, advance.held_until.value_or(now)});
        columns.StartWorkflow(r, advance);
        auto& done = steps_done[i];
        for (const nlohmann::json& entry : advance.outcomes) {
          done.push_back(entry.value("outcome", ""));
        }
        continue;
      }
      if (workflows.digest && !chosen[i].empty()) {
        // In-app now; the channels wait for the digest window.
        digest_items[i] = workflow::DigestItem{0,         r.user_id,
                                               r.type,    workflows.digest->key.Render(r.data),
                                               chosen[i], *workflows.digest};
        columns.Add(i, r, {}, std::move(said), category, id, {});
        continue;
      }
      columns.Add(i, r, chosen[i], std::move(said), category, id,
                  HeldFor(workflows.escalate, chosen[i], now));
    } catch (const core::RequestError& e) {
      results[i] = e;
    }
  }

  // A key a concurrent transaction recorded after a statement's snapshot was
  // taken (immediate or delayed: notification_dedup holds both); a new
  // statement sees its committed row.
  const auto find_existing = [&](const NotificationRequest& r) {
    return session.Exec(queries::kFindByDedupKey, r.user_id, *r.dedup_key).Int(0, 0);
  };
  if (!columns.idx.empty()) {
    using db::ArrayLiteral;
    const auto inserted = session.Exec(
        queries::kInsertNotifications, ArrayLiteral(columns.idx), ArrayLiteral(columns.user_id),
        ArrayLiteral(columns.type), ArrayLiteral(columns.title), ArrayLiteral(columns.body),
        ArrayLiteral(columns.link), ArrayLiteral(columns.data), ArrayLiteral(columns.dedup_key),
        ArrayLiteral(columns.critical), ArrayLiteral(columns.channels),
        core::FormatRfc3339Micros(now), ArrayLiteral(columns.drawn_id),
        ArrayLiteral(columns.category), ArrayLiteral(columns.content), ArrayLiteral(columns.held),
        ArrayLiteral(columns.held_until), ArrayLiteral(columns.cancellation_key),
        broadcast_due ? std::optional(core::FormatRfc3339Micros(*broadcast_due)) : std::nullopt,
        // NULL without a tenant: unnest pads it with NULLs.
        columns.any_tenant ? std::optional(ArrayLiteral(columns.tenant)) : std::nullopt,
        columns.any_actions ? std::optional(ArrayLiteral(columns.actions)) : std::nullopt,
        columns.any_tags ? std::optional(ArrayLiteral(columns.tags)) : std::nullopt,
        columns.any_workflow ? std::optional(ArrayLiteral(columns.workflow)) : std::nullopt);
    ReadInserted(inserted, requests, chosen, results, find_existing);
    for (auto& [index, outcomes] : steps_done) {
      auto& result = std::get<NotifyResult>(*results[index]);
      if (result.created) result.workflow_steps = std::move(outcomes);
    }
    std::vector<workflow::DigestItem> joining;
    for (auto& [index, item] : digest_items) {
      const auto& result = std::get<NotifyResult>(*results[index]);
      if (!result.created) continue;  // a repeated dedup key: joined the first time
      item.notification_id = result.id;
      joining.push_back(std::move(item));
    }
    if (!joining.empty()) {
      if constexpr (std::is_same_v<Session, db::Transaction>) {
        workflow::JoinDigests(session, joining, simulated_windows_now);
      } else {
        throw std::logic_error("digest notifications need a transaction (NeedsTransaction)");
      }
    }
  }
  if (!delayed.idx.empty()) {
    using db::ArrayLiteral;
    const auto inserted = session.Exec(
        queries::kInsertDelayed, ArrayLiteral(delayed.idx), ArrayLiteral(delayed.id),
        ArrayLiteral(delayed.user_id), ArrayLiteral(delayed.due_at), ArrayLiteral(delayed.request),
        ArrayLiteral(delayed.dedup_key), ArrayLiteral(delayed.cancellation_key),
        core::FormatRfc3339Micros(now), delayed.version);
    ReadInserted(inserted, requests, chosen, results, find_existing);
    for (std::size_t row = 0; row < delayed.idx.size(); ++row) {
      auto& result = std::get<NotifyResult>(*results[static_cast<std::size_t>(delayed.idx[row])]);
      if (result.created)
        result.send_at = requests[static_cast<std::size_t>(delayed.idx[row])].DueAt(now);
    }
  }

  std::vector<BatchItemResult> out;
  out.reserve(results.size());
  for (auto& result : results) out.push_back(std::move(*result));
  return out;
}

// Whether a failed write of several notifications may have failed for one
// of them: a value the database refused (data exception, integrity
// violation: SQLSTATE classes 22 and 23) or a request error. A lost
// connection, a canceled statement or a full disk is every one's failure.
// (Not db::IsTransient's question, whether a retry may succeed: a full disk
// is neither transient nor any one item's fault.)
bool MayBeOneItemsFault(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const core::RequestError&) {
    return true;
  } catch (const db::DbError& e) {
    return e.sqlstate().starts_with("22") || e.sqlstate().starts_with("23");
  } catch (...) {
    return false;
  }
}

}  // namespace

NotifyMetrics::NotifyMetrics(core::MetricsRegistry& registry)
    : registry_(registry),
      created_(registry.GetCounter("chopar_notifications_created_total",
                                   "Notifications created (in-app rows)")) {}

namespace {

// Workflow step outcomes counted first, then added to the registry's
// counters: one lookup per outcome, not per step.
class StepTally {
 public:
  void Add(const std::vector<std::string>& outcomes) {
    for (const std::string& outcome : outcomes) ++counts_[outcome];
  }
  void AddTo(core::MetricsRegistry& registry) const {
    for (const auto& [outcome, count] : counts_) {
      workflow::StepsDone(registry, std::string(outcome)).Inc(count);
    }
  }

 private:
  std::map<std::string_view, int> counts_;
};

}  // namespace

void NotifyMetrics::CountCommitted(const std::vector<BatchItemResult>& results) {
  int created = 0;
  StepTally steps;
  for (const auto& result : results) {
    if (const auto* done = std::get_if<NotifyResult>(&result);
        done != nullptr && done->created && !done->send_at) {
      ++created;
      steps.Add(done->workflow_steps);
    }
  }
  CountCreated(created);
  steps.AddTo(registry_);
}

void NotifyMetrics::CountWorkflowSteps(const std::vector<std::string>& outcomes) {
  StepTally steps;
  steps.Add(outcomes);
  steps.AddTo(registry_);
}

void NotifyMetrics::CountCreated(std::int64_t created) {
  if (created > 0) created_.Inc(created);
}

std::vector<BatchItemResult> NotifyService::NotifyIn(
    db::Transaction& tx, const std::vector<NotificationRequest>& requests, core::TimePoint now,
    const templates::TemplateLookup* templates, std::optional<core::TimePoint> broadcast_due,
    std::optional<core::TimePoint> simulated_windows_now) {
  return NotifyOn(tx, requests, now, templates, broadcast_due, simulated_windows_now);
}

NotifyService::NotifyService(db::Pool& pool, const core::Clock& clock,
                             core::MetricsRegistry& metrics,
                             const templates::TemplateLookup* templates)
    : pool_(pool),
      clock_(clock),
      metrics_(metrics),
      templates_(templates),
      coalesced_(metrics.GetHistogram(
          "chopar_notify_coalesced_batch_size",
          "Single notifications (POST /v1/notifications) written together by one statement", {},
          {1, 2, 4, 8, 16, 32, 64})),
      erased_dropped_(metrics.GetCounter(
          "chopar_erased_user_events_dropped_total",
          "Events for a user erased or being erased that were dropped instead of recreating them",
          {{"source", "notify"}})),
      singles_(
          kMaxCoalescedBatch,
          [this](const std::vector<NotificationRequest>& requests) {
            return NotifyBatch(requests);
          },
          MayBeOneItemsFault,
          [this](std::size_t size) { coalesced_.Observe(static_cast<double>(size)); }) {}

NotifyResult NotifyService::Notify(const NotificationRequest& request) {
  BatchItemResult result = singles_.Submit(request);
  if (auto* error = std::get_if<core::RequestError>(&result)) throw *error;
  return std::get<NotifyResult>(std::move(result));
}

std::vector<BatchItemResult> NotifyService::NotifyBatch(
    const std::vector<NotificationRequest>& requests) {
  const core::TimePoint now = clock_.Now();
  const auto simulated_windows_now = db::SqlNow(clock_);
  std::vector<BatchItemResult> results;
  RecheckUntitledTypes(requests, templates_);
  if (NeedsTransaction(requests, now, templates_)) {
    // Delayed notifications and digest windows are more statements (and
    // the windows' advisory locks last a transaction): one transaction
    // keeps the batch all or nothing.
    auto tx = pool_.Begin("notify_batch");
    results = NotifyOn(tx, requests, now, templates_, std::nullopt, simulated_windows_now);
    tx.Commit();
  } else {
    // No explicit transaction: everything written is written by one
    // statement, atomic on its own, and the read before it is read-only. In
    // READ COMMITTED a BEGIN/COMMIT around them would guarantee nothing more
    // and cost two round trips (a third of a single notification's).
    auto conn = pool_.Acquire();
    results = NotifyOn(*conn, requests, now, templates_, std::nullopt, simulated_windows_now);
  }
  metrics_.CountCommitted(results);  // committed
  CountErasedUsers(requests, results);
  return results;
}

void NotifyService::CountErasedUsers(const std::vector<NotificationRequest>& requests,
                                     const std::vector<BatchItemResult>& results) {
  std::vector<std::int64_t> missing;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (const auto* error = std::get_if<core::RequestError>(&results[i]);
        error != nullptr && error->code() == core::ErrorCode::kUserNotFound) {
      missing.push_back(requests[i].user_id);
    }
  }
  if (missing.empty()) return;
  const auto erased = pool_.Acquire()->Exec(queries::kErasedAmong, db::ArrayLiteral(missing));
  std::set<std::int64_t> ids;
  for (int i = 0; i < erased.Rows(); ++i) ids.insert(erased.Int(i, "user_id"));
  const auto dropped = std::ranges::count_if(missing, [&](auto id) { return ids.contains(id); });
  if (dropped > 0) erased_dropped_.Inc(static_cast<double>(dropped));
}

}  // namespace chopar::hub
