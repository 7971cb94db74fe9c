#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/channel_kind.hpp"
#include "core/clock.hpp"
#include "workflow/steps.hpp"

namespace chopar::workflow {

// How the delivery a channel step waited for ended.
struct DeliveryEnd {
  std::int64_t id = 0;
  core::ChannelKind channel = core::ChannelKind::kEmail;
  std::string status;  // sent, failed, skipped or canceled
  std::optional<std::string> last_error;
};

// The digest window a run's digest step joined, closed.
struct DigestClosed {
  std::int64_t id = 0;
  bool carrier = false;  // the run's notification is the window's newest
  std::int64_t count = 0;
};

// Where a run stands when it is due (a chopar.workflow_runs row).
struct RunState {
  int step = 0;                                       // the next step
  std::vector<std::string> tried;                     // the current first_of step's channels tried
  nlohmann::json outcomes = nlohmann::json::array();  // one entry per step done
  std::optional<DeliveryEnd> ended;                   // the delivery the run waited for, ended
  std::optional<DigestClosed> digest;                 // its digest step's window, closed
};

// What a condition reads of a notification, its user and tenant
// (docs/conditions.md), as MakeRunContext puts it.
struct RunFacts {
  std::int64_t notification_id = 0;
  std::string type;
  std::optional<std::string> category;
  bool critical = false;
  std::vector<std::string> tags;
  bool seen = false, read = false, archived = false;
  nlohmann::json data;
  std::int64_t user_id = 0;
  std::string locale, timezone;
  nlohmann::json user_data;
  std::optional<std::string> tenant;
};

// A run's stored outcomes (workflow_runs.outcomes) as the API shows them:
// every entry with each of index, type, outcome, channel, delivery_id, at,
// until and detail, null where the stored entry leaves one out. Pure.
nlohmann::json WithNullMembers(nlohmann::json outcomes);

// One of a notification's deliveries, as WithDeliveryIds matches them.
struct ChannelDelivery {
  std::int64_t id = 0;
  std::string channel;
};

// `steps` (WithNullMembers') with the delivery of each entry that queued
// one and does not name it: an entry `queued` or `scheduled` on one channel
// was written before the statement that created its delivery had an id. It
// gets the first of `deliveries` (the notification's, by id) on its channel
// that no other entry names; entries are in step order and a later step's
// delivery has a later id, so a channel repeated by later steps is matched
// in order. An entry with several channels (detail lists them) names none.
// Pure.
nlohmann::json WithDeliveryIds(nlohmann::json steps,
                               const std::vector<ChannelDelivery>& deliveries);

// {"data", "user": {id, locale, timezone, data}, "tenant", "notification":
// {id, type, category, critical, tags, seen, read, archived}}. Pure.
nlohmann::json MakeRunContext(RunFacts facts);

// What the run's next steps see and need.
struct RunInputs {
  // {"data", "user", "tenant", "notification"} (docs/conditions.md); the
  // steps done are added as "steps" and "step". When null, make_context
  // builds it, once, if a condition is evaluated (most runs at notify
  // evaluate none).
  nlohmann::json context;
  std::function<nlohmann::json()> make_context;
  // The channels the user can receive now: requested, wanted (preferences)
  // and addressable (hub::ChooseChannels).
  std::vector<core::ChannelKind> receivable;
  std::string timezone = "UTC";
  core::TimePoint now;
  // Whether one more notification of the type may pass `throttle` for the
  // user now; counts it when it may. The caller's database.
  std::function<bool(const ThrottleSettings&)> pass_throttle;
  // Puts the run's notification into the user's open window of the type
  // and the key `settings` renders over its data (opening one if none),
  // whose closing wakes the run. Throws core::RequestError when the key
  // cannot be rendered. The caller's database.
  std::function<void(const DigestSettings&)> join_digest;
  // At notify, in the statement that creates the notification: the steps
  // that need nothing from the database are done there (conditions,
  // delays, channel steps not waited for); the run stops, due at once, at
  // the first throttle, digest or waited channel step, which the advancer
  // does (pass_throttle and join_digest are not called).
  bool at_notify = false;
};

enum class RunStatus { kActive, kWaiting, kDone, kCanceled };

// "active", "waiting", "done", "canceled": workflow_runs.status.
std::string_view RunStatusName(RunStatus status);

// What to write back for the run, all in the claim's transaction.
struct RunAdvance {
  RunStatus status = RunStatus::kDone;
  int step = 0;
  std::optional<core::TimePoint> due_at;  // kActive
  std::vector<std::string> tried;
  nlohmann::json outcomes;
  // A delivery to create, for step `step`; the run waits for the one with
  // `waited` (kWaiting), the last of them.
  struct Send {
    core::ChannelKind channel = core::ChannelKind::kEmail;
    int step = 0;
    bool waited = false;
    friend bool operator==(const Send&, const Send&) = default;
  };
  std::vector<Send> sends;
  // At notify: the channels of the steps after a delay that are held with
  // the notification until `held_until` and canceled then if it was read
  // (AdvanceRun says when): created by notify's statement, not by an advance.
  std::vector<core::ChannelKind> held;
  std::optional<core::TimePoint> held_until;
  bool passed_throttle = false;
  bool waits_on_digest = false;  // kWaiting for its digest window to close
};

// Does every step of `steps` due now for a run in `state`: conditions false
// skip their step, throttles pass or end the run, a delay sets the run's
// next due time, a channel step creates its deliveries (and, but for
// all_of, waits for the one it sent). A run past its last step is done; a
// canceled delivery cancels it. At notify (inputs.at_notify), a delay
// followed only by channel steps not waited for, each on channels the user
// can receive now and each with a condition that is, whatever the
// notification's data and facts, true exactly while the notification is
// unread (`notification.read == false`, reading nothing of the user or of
// the steps), ends the run there: those steps' channels are `held` until
// the delay's end and canceled then if the notification was read, which is
// what the advancer would decide then (outcome "scheduled"). Pure but for
// inputs.pass_throttle.
RunAdvance AdvanceRun(const std::vector<Step>& steps, const RunState& state,
                      const RunInputs& inputs);

}  // namespace chopar::workflow
