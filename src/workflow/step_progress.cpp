#include "workflow/step_progress.hpp"

#include <algorithm>
#include <string_view>

#include "core/request_error.hpp"
#include "core/time_format.hpp"

namespace chopar::workflow {
namespace {

std::string_view TypeName(StepKind kind) {
  switch (kind) {
    case StepKind::kChannel:
      return "channel";
    case StepKind::kDelay:
      return "delay";
    case StepKind::kThrottle:
      return "throttle";
    case StepKind::kDigest:
      return "digest";
  }
  return "channel";
}

// Builds the run's advance step by step.
class Progress {
 public:
  Progress(const std::vector<Step>& steps, const RunState& state, const RunInputs& inputs)
      : steps_(steps), inputs_(inputs), digest_(state.digest) {
    advance_.step = state.step;
    advance_.tried = state.tried;
    advance_.outcomes = state.outcomes.is_array() ? state.outcomes : nlohmann::json::array();
  }

  RunAdvance Run(const std::optional<DeliveryEnd>& ended) {
    if (ended && !Resume(*ended)) return std::move(advance_);
    while (advance_.step < static_cast<int>(steps_.size())) {
      if (!Do(steps_[static_cast<std::size_t>(advance_.step)])) return std::move(advance_);
    }
    advance_.status = RunStatus::kDone;
    return std::move(advance_);
  }

 private:
  const Step& Current() const { return steps_[static_cast<std::size_t>(advance_.step)]; }

  void Record(std::string_view outcome, std::optional<core::ChannelKind> channel = std::nullopt,
              std::optional<std::int64_t> delivery_id = std::nullopt,
              std::optional<core::TimePoint> until = std::nullopt,
              std::optional<std::string> detail = std::nullopt) {
    // Stored without its null members (WithNullMembers puts them back for
    // the API): a run row is written with every notification of its type.
    nlohmann::json entry = {
        {"index", advance_.step}, {"type", TypeName(Current().kind)}, {"outcome", outcome}};
    if (channel) entry["channel"] = core::ChannelName(*channel);
    if (delivery_id) entry["delivery_id"] = *delivery_id;
    entry["at"] = At();
    if (until) entry["until"] = core::FormatRfc3339(*until);
    if (detail) entry["detail"] = std::move(*detail);
    if (Current().name) entry["name"] = *Current().name;
    advance_.outcomes.push_back(std::move(entry));
  }

  void Next() {
    ++advance_.step;
    advance_.tried.clear();
  }

  // The delivery the run waited for ended: record it, or try the next
  // channel of a first_of. False when the run stops here.
  bool Resume(const DeliveryEnd& ended) {
    if (advance_.step >= static_cast<int>(steps_.size()) || Current().kind != StepKind::kChannel) {
      // The workflow changed under the run: the step it waited on is gone.
      return true;
    }
    if (ended.status == "canceled") {
      Record("canceled", ended.channel, ended.id, std::nullopt, ended.last_error);
      advance_.status = RunStatus::kCanceled;
      return false;
    }
    if (ended.status == "sent" || Current().pick != ChannelPick::kFirstOf) {
      Record(ended.status, ended.channel, ended.id, std::nullopt, ended.last_error);
      Next();
      return true;
    }
    // A first_of whose channel failed or was skipped: the next one, if any.
    if (SendFirstOf()) return false;
    Record(ended.status, ended.channel, ended.id, std::nullopt,
           "every channel tried: " + Joined(advance_.tried) +
               (ended.last_error ? "; last: " + *ended.last_error : ""));
    Next();
    return true;
  }

  static std::string Joined(const std::vector<std::string>& names) {
    std::string text;
    for (const auto& name : names) (text.empty() ? text : text += ", ") += name;
    return text;
  }

  bool Receivable(core::ChannelKind kind) const {
    return std::ranges::find(inputs_.receivable, kind) != inputs_.receivable.end();
  }

  // Sends on the first channel of the current first_of not tried yet that
  // the user can receive, and waits for it. False when none is left.
  bool SendFirstOf() {
    for (core::ChannelKind kind : Current().channels) {
      const std::string name(core::ChannelName(kind));
      if (std::ranges::find(advance_.tried, name) != advance_.tried.end()) continue;
      if (!Receivable(kind)) continue;
      advance_.tried.push_back(name);
      advance_.sends.push_back({kind, advance_.step, true});
      advance_.status = RunStatus::kWaiting;
      return true;
    }
    return false;
  }

  nlohmann::json ConditionContext() const {
    nlohmann::json context = BaseContext();
    nlohmann::json by_index = nlohmann::json::array();
    nlohmann::json by_name = nlohmann::json::object();
    for (const auto& entry : advance_.outcomes) {
      const nlohmann::json seen = {{"outcome", entry.value("outcome", "")},
                                   {"channel", entry.value("channel", nlohmann::json())}};
      // Index i holds step i's outcome (a step is done once, in order).
      by_index.push_back(seen);
      if (entry.contains("name")) by_name[entry["name"].get<std::string>()] = seen;
    }
    context["steps"] = std::move(by_index);
    context["step"] = std::move(by_name);
    return context;
  }

  // Does the current step. False when the run stops (waits, is due later,
  // or ended).
  bool Do(const Step& step) {
    if (inputs_.at_notify && (step.kind == StepKind::kThrottle || step.kind == StepKind::kDigest ||
                              (step.kind == StepKind::kChannel && step.waits))) {
      advance_.status = RunStatus::kActive;
      advance_.due_at.reset();  // at once: the notification's own due time
      return false;
    }
    // A digest step woken by its window's close was decided on when reached.
    const bool resumed = step.kind == StepKind::kDigest && digest_;
    if (!resumed && step.condition && !step.condition->Evaluate(ConditionContext())) {
      Record("condition_false");
      Next();
      return true;
    }
    switch (step.kind) {
      case StepKind::kDelay: {
        const core::TimePoint until =
            step.until ? core::NextWallTime(inputs_.now, inputs_.timezone, *step.until)
                       : inputs_.now + step.delay;
        Record("delayed", std::nullopt, std::nullopt, until);
        Next();
        if (until <= inputs_.now) return true;
        if (inputs_.at_notify && HoldRest(until)) return false;
        advance_.status = RunStatus::kActive;
        advance_.due_at = until;
        return false;
      }
      case StepKind::kThrottle:
        if (!inputs_.pass_throttle(*step.throttle)) {
          Record("throttled");
          advance_.status = RunStatus::kDone;
          Next();
          advance_.step = static_cast<int>(steps_.size());
          return false;
        }
        advance_.passed_throttle = true;
        Record("passed");
        Next();
        return true;
      case StepKind::kDigest:
        return DoDigest(step);
      case StepKind::kChannel:
        return DoChannel(step);
    }
    return true;
  }

  bool DoDigest(const Step& step) {
    if (digest_) {
      const std::string held = std::to_string(digest_->count) + " notifications";
      if (!digest_->carrier) {
        // Its window's newest notification carries the digest on.
        Record("digested", std::nullopt, std::nullopt, std::nullopt, "in a digest of " + held);
        advance_.step = static_cast<int>(steps_.size());
        advance_.status = RunStatus::kDone;
        return false;
      }
      Record("digest_closed", std::nullopt, std::nullopt, std::nullopt, held);
      Next();
      return true;
    }
    try {
      inputs_.join_digest(*step.digest);
    } catch (const core::RequestError& e) {
      Record("skipped", std::nullopt, std::nullopt, std::nullopt, e.what());
      Next();
      return true;
    }
    advance_.status = RunStatus::kWaiting;
    advance_.waits_on_digest = true;
    return false;
  }

  bool DoChannel(const Step& step) {
    if (!step.waits) {
      std::vector<core::ChannelKind> send;
      for (core::ChannelKind kind : step.channels)
        if (Receivable(kind)) send.push_back(kind);
      if (send.empty()) {
        Record("skipped", std::nullopt, std::nullopt, std::nullopt,
               "the user can receive none of its channels");
        Next();
        return true;
      }
      // A delivery is unique per notification, channel and creation time:
      // a second send on a channel this advance already sends on waits for
      // the next claim (due at once).
      const bool repeats = std::ranges::any_of(send, [&](core::ChannelKind kind) {
        return std::ranges::find(advance_.sends, kind, &RunAdvance::Send::channel) !=
               advance_.sends.end();
      });
      if (repeats) {
        advance_.status = RunStatus::kActive;
        advance_.due_at = inputs_.now;
        return false;
      }
      std::vector<std::string> names;
      for (core::ChannelKind kind : send) {
        names.emplace_back(core::ChannelName(kind));
        advance_.sends.push_back({kind, advance_.step, false});
      }
      Record("queued", send.size() == 1 ? std::optional(send.front()) : std::nullopt, std::nullopt,
             std::nullopt, Joined(names));
      Next();
      return true;
    }
    if (SendFirstOf()) return false;
    Record("skipped", std::nullopt, std::nullopt, std::nullopt,
           "the user can receive none of its channels");
    Next();
    return true;
  }

  // At notify, after a delay until `until`: when every step left is a
  // channel step not waited for, on channels the user can receive now and
  // none repeated, whose condition is Step::unless_read, holds their channels
  // until `until` and ends the run. False (nothing changed) otherwise.
  bool HoldRest(core::TimePoint until) {
    std::vector<core::ChannelKind> held;
    for (auto i = static_cast<std::size_t>(advance_.step); i < steps_.size(); ++i) {
      const Step& step = steps_[i];
      if (step.kind != StepKind::kChannel || step.waits || step.pick == ChannelPick::kFirstOf ||
          !step.unless_read) {
        return false;
      }
      bool any = false;
      for (core::ChannelKind kind : step.channels) {
        if (!Receivable(kind)) continue;
        const bool repeats = std::ranges::find(held, kind) != held.end() ||
                             std::ranges::find(advance_.sends, kind, &RunAdvance::Send::channel) !=
                                 advance_.sends.end();
        if (repeats) return false;
        held.push_back(kind);
        any = true;
      }
      if (!any) return false;  // skipped or not is decided when it is due
    }
    if (held.empty()) return false;
    for (auto i = static_cast<std::size_t>(advance_.step); i < steps_.size(); ++i) {
      std::vector<std::string> names;
      std::optional<core::ChannelKind> only;
      for (core::ChannelKind kind : steps_[i].channels) {
        if (!Receivable(kind)) continue;
        names.emplace_back(core::ChannelName(kind));
        only = names.size() == 1 ? std::optional(kind) : std::nullopt;
      }
      Record("scheduled", only, std::nullopt, until, Joined(names));
      Next();
    }
    advance_.held = std::move(held);
    advance_.held_until = until;
    advance_.status = RunStatus::kDone;
    return true;
  }

  // The time every entry of this advance records, formatted once.
  const std::string& At() {
    if (at_.empty()) at_ = core::FormatRfc3339(inputs_.now);
    return at_;
  }

  const nlohmann::json& BaseContext() const {
    if (!base_context_) {
      base_context_ = inputs_.context.is_null() && inputs_.make_context ? inputs_.make_context()
                                                                        : inputs_.context;
    }
    return *base_context_;
  }

  const std::vector<Step>& steps_;
  const RunInputs& inputs_;
  const std::optional<DigestClosed> digest_;
  RunAdvance advance_;
  mutable std::optional<nlohmann::json> base_context_;
  std::string at_;
};

}  // namespace

std::string_view RunStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::kActive:
      return "active";
    case RunStatus::kWaiting:
      return "waiting";
    case RunStatus::kDone:
      return "done";
    case RunStatus::kCanceled:
      return "canceled";
  }
  return "done";
}

nlohmann::json WithNullMembers(nlohmann::json outcomes) {
  if (!outcomes.is_array()) return nlohmann::json::array();
  for (nlohmann::json& entry : outcomes) {
    if (!entry.is_object()) continue;
    for (const char* member :
         {"index", "type", "outcome", "channel", "delivery_id", "at", "until", "detail"}) {
      if (!entry.contains(member)) entry[member] = nullptr;
    }
  }
  return outcomes;
}

nlohmann::json WithDeliveryIds(nlohmann::json steps,
                               const std::vector<ChannelDelivery>& deliveries) {
  std::vector<std::int64_t> named;
  for (const nlohmann::json& entry : steps) {
    if (entry.is_object() && entry.value("delivery_id", nlohmann::json()).is_number_integer()) {
      named.push_back(entry["delivery_id"].get<std::int64_t>());
    }
  }
  for (nlohmann::json& entry : steps) {
    if (!entry.is_object() || !entry.value("delivery_id", nlohmann::json()).is_null()) continue;
    const std::string outcome = entry.value("outcome", nlohmann::json()).is_string()
                                    ? entry["outcome"].get<std::string>()
                                    : "";
    const nlohmann::json channel = entry.value("channel", nlohmann::json());
    if ((outcome != "queued" && outcome != "scheduled") || !channel.is_string()) continue;
    const auto match = std::ranges::find_if(deliveries, [&](const ChannelDelivery& d) {
      return d.channel == channel.get<std::string>() &&
             std::ranges::find(named, d.id) == named.end();
    });
    if (match == deliveries.end()) continue;
    entry["delivery_id"] = match->id;
    named.push_back(match->id);
  }
  return steps;
}

nlohmann::json MakeRunContext(RunFacts facts) {
  return {{"data", std::move(facts.data)},
          {"user",
           {{"id", facts.user_id},
            {"locale", std::move(facts.locale)},
            {"timezone", std::move(facts.timezone)},
            {"data", std::move(facts.user_data)}}},
          {"tenant", facts.tenant ? nlohmann::json(*facts.tenant) : nlohmann::json()},
          {"notification",
           {{"id", facts.notification_id},
            {"type", std::move(facts.type)},
            {"category", facts.category ? nlohmann::json(*facts.category) : nlohmann::json()},
            {"critical", facts.critical},
            {"tags", std::move(facts.tags)},
            {"seen", facts.seen},
            {"read", facts.read},
            {"archived", facts.archived}}}};
}

RunAdvance AdvanceRun(const std::vector<Step>& steps, const RunState& state,
                      const RunInputs& inputs) {
  return Progress(steps, state, inputs).Run(state.ended);
}

}  // namespace chopar::workflow
