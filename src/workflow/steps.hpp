#pragma once

#include <chrono>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "condition/condition.hpp"
#include "core/channel_kind.hpp"
#include "core/quiet_hours.hpp"
#include "workflow/settings.hpp"

namespace chopar::workflow {

// Bounds of a workflow (docs/api.md "Workflows with steps").
inline constexpr std::size_t kMaxSteps = 20;
inline constexpr std::size_t kMaxStepNameBytes = 50;

enum class StepKind { kChannel, kDelay, kThrottle, kDigest };

// How a channel step picks its channels from those it lists.
enum class ChannelPick {
  kOne,      // "channel": the one channel
  kFirstOf,  // "first_of": the first the user can receive; on failed,
             // skipped or a gone address the next; waits for each outcome
  kAllOf,    // "all_of": every listed one the user can receive, at once;
             // does not wait
};

// One step of a type's workflow, parsed once with its template. A value;
// the condition is shared and immutable.
struct Step {
  StepKind kind = StepKind::kChannel;
  std::optional<std::string> name;  // for conditions: step.<name>.outcome
  std::optional<condition::Condition> condition;
  // kChannel
  ChannelPick pick = ChannelPick::kOne;
  std::vector<core::ChannelKind> channels;
  // kDelay: `seconds`, or the next `until` wall time in the user's zone
  std::chrono::seconds delay{0};
  std::optional<core::TimeOfDay> until;
  // kThrottle, kDigest
  std::optional<ThrottleSettings> throttle;
  std::optional<DigestSettings> digest;

  // A channel step whose run waits for its delivery's final status before
  // the next step: a first_of (it may fall to its next channel), and a
  // "channel" step whose outcome a later condition reads (steps / step).
  // Any other goes on at once (outcome "queued"): waiting costs two writes
  // of the run and a wake-up per step, which nothing would read.
  bool waits = false;
  // Its condition reads nothing but the notification's seen, read and
  // archived, and is true exactly while the notification is unread
  // (`notification.read == false`, `!notification.read`, …): what the
  // delivery claim can decide on alone (AdvanceRun holds such steps at
  // notify).
  bool unless_read = false;
};

// Parses a template's "steps" (an array of 1..kMaxSteps step objects, each
// {"type": "channel" | "delay" | "throttle" | "digest", "name"?,
// "condition"?, …}). Throws core::RequestError kInvalidField naming the
// member ("steps[2].condition": a syntax error says its position; "steps[0].first_of",
// "steps[1].until", …): an unknown member or type, a missing or repeated
// channel, a name used twice, a delay out of 1..604800 seconds or an until
// not "HH:MM". Pure.
std::vector<Step> ParseSteps(const nlohmann::json& steps);

// The steps as the API shows them (ParseSteps(StepsJson(s)) == s). Pure.
nlohmann::json StepsJson(const std::vector<Step>& steps);

// The old settings as the steps they amount to, shown by GET for a template
// that has no "steps": [digest], [throttle], then the channels not
// escalated at once (all_of), then for escalate a delay of after_seconds and
// its channels (all_of) on the condition `notification.read == false`. Null
// when the template has none of the three. Pure.
nlohmann::json ConvertedStepsJson(const nlohmann::json& digest, const nlohmann::json& throttle,
                                  const nlohmann::json& escalate);

// The channels any step may send on, in the order of core::AllChannels():
// what notify renders each notification's texts for. Pure.
std::vector<core::ChannelKind> ChannelsOf(const std::vector<Step>& steps);

}  // namespace chopar::workflow
