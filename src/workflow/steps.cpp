#include "workflow/steps.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <set>
#include <string>
#include <string_view>

#include "core/request_error.hpp"
#include "workflow/json_members.hpp"

namespace chopar::workflow {
namespace {

constexpr std::string_view kCommonMembers[] = {"type", "name", "condition"};

std::string FieldOf(std::size_t index) { return "steps[" + std::to_string(index) + "]"; }

// The members a step of `type` may have besides the common ones.
std::vector<std::string_view> KnownMembers(std::string_view type) {
  std::vector<std::string_view> known(std::begin(kCommonMembers), std::end(kCommonMembers));
  if (type == "channel") known.insert(known.end(), {"channel", "first_of", "all_of"});
  if (type == "delay") known.insert(known.end(), {"seconds", "until"});
  if (type == "throttle") known.insert(known.end(), {"limit", "window_seconds"});
  if (type == "digest") known.insert(known.end(), {"window_seconds", "key", "max_items"});
  return known;
}

core::ChannelKind ParseChannelName(const nlohmann::json& name, const std::string& field) {
  const auto kind = name.is_string() ? core::ParseChannel(name.get<std::string>()) : std::nullopt;
  if (!kind) {
    throw core::InvalidField(field, field + ": " + name.dump() + " is not a channel; expected " +
                                        core::ChannelNamesText());
  }
  return *kind;
}

void ParseChannelStep(const Members& m, Step& step) {
  const nlohmann::json* one = m.Find("channel");
  const nlohmann::json* first_of = m.Find("first_of");
  const nlohmann::json* all_of = m.Find("all_of");
  if ((one != nullptr) + (first_of != nullptr) + (all_of != nullptr) != 1) {
    throw core::InvalidField(
        m.Field("channel"), m.Field("channel") + ": give exactly one of channel, first_of, all_of");
  }
  if (one != nullptr) {
    step.pick = ChannelPick::kOne;
    step.channels.push_back(ParseChannelName(*one, m.Field("channel")));
    return;
  }
  step.pick = first_of != nullptr ? ChannelPick::kFirstOf : ChannelPick::kAllOf;
  const std::string field = m.Field(first_of != nullptr ? "first_of" : "all_of");
  const nlohmann::json& list = first_of != nullptr ? *first_of : *all_of;
  if (!list.is_array() || list.empty() || list.size() > core::ChannelCount()) {
    throw core::InvalidField(field, field + " must be a non-empty array of distinct channel names");
  }
  for (const auto& name : list) {
    const core::ChannelKind kind = ParseChannelName(name, field);
    if (std::ranges::find(step.channels, kind) != step.channels.end()) {
      throw core::InvalidField(field, field + ": " + name.dump() + " is repeated");
    }
    step.channels.push_back(kind);
  }
}

void ParseDelayStep(const Members& m, Step& step) {
  const nlohmann::json* until = m.Find("until");
  if ((m.Find("seconds") != nullptr) == (until != nullptr)) {
    throw core::InvalidField(m.Field("seconds"),
                             m.Field("seconds") + ": give exactly one of seconds, until");
  }
  if (until == nullptr) {
    step.delay = std::chrono::seconds(m.Int("seconds", 1, kMaxWindowSeconds));
    return;
  }
  const auto time = until->is_string() && until->get_ref<const std::string&>().size() == 5
                        ? core::ParseTimeOfDay(until->get<std::string>())
                        : std::nullopt;
  if (!time) {
    throw core::InvalidField(m.Field("until"),
                             m.Field("until") + " must be a wall time \"HH:MM\", e.g. \"09:00\"");
  }
  step.until = *time;
}

Step ParseStep(const nlohmann::json& object, std::size_t index, std::set<std::string>& names) {
  const std::string field = FieldOf(index);
  if (!object.is_object()) throw core::InvalidField(field, field + " must be an object");
  const auto type_it = object.find("type");
  const std::string type =
      type_it != object.end() && type_it->is_string() ? type_it->get<std::string>() : "";
  Step step;
  if (type == "channel") {
    step.kind = StepKind::kChannel;
  } else if (type == "delay") {
    step.kind = StepKind::kDelay;
  } else if (type == "throttle") {
    step.kind = StepKind::kThrottle;
  } else if (type == "digest") {
    step.kind = StepKind::kDigest;
  } else {
    throw core::InvalidField(field + ".type",
                             field + ".type must be channel, delay, throttle or digest");
  }
  const auto known = KnownMembers(type);
  const Members m(object, field, known);
  if (const nlohmann::json* name = m.Find("name")) {
    const bool valid =
        name->is_string() && !name->get_ref<const std::string&>().empty() &&
        name->get_ref<const std::string&>().size() <= kMaxStepNameBytes &&
        std::ranges::all_of(
            name->get_ref<const std::string&>(),
            [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }) &&
        name->get_ref<const std::string&>().front() >= 'a';
    if (!valid) {
      throw core::InvalidField(m.Field("name"),
                               m.Field("name") + " must match ^[a-z][a-z0-9_]{0,49}$");
    }
    if (!names.insert(name->get<std::string>()).second) {
      throw core::InvalidField(m.Field("name"), m.Field("name") + ": another step has this name");
    }
    step.name = name->get<std::string>();
  }
  if (const nlohmann::json* source = m.Find("condition")) {
    if (!source->is_string()) {
      throw core::InvalidField(m.Field("condition"), m.Field("condition") + " must be a text");
    }
    try {
      step.condition = condition::Condition::Parse(source->get<std::string>());
    } catch (const condition::SyntaxError& e) {
      throw core::InvalidField(m.Field("condition"), m.Field("condition") + ": " + e.what());
    }
  }
  switch (step.kind) {
    case StepKind::kChannel:
      ParseChannelStep(m, step);
      break;
    case StepKind::kDelay:
      ParseDelayStep(m, step);
      break;
    case StepKind::kThrottle:
      step.throttle = ParseThrottle(object, field, kCommonMembers);
      break;
    case StepKind::kDigest:
      step.digest = ParseDigest(object, field, kCommonMembers);
      break;
  }
  return step;
}

std::string FormatTimeOfDay(core::TimeOfDay time) {
  char text[8];
  std::snprintf(text, sizeof text, "%02d:%02d", static_cast<int>(time.count() / 3600),
                static_cast<int>(time.count() / 60 % 60));
  return text;
}

nlohmann::json ChannelNames(const std::vector<core::ChannelKind>& channels) {
  nlohmann::json names = nlohmann::json::array();
  for (core::ChannelKind kind : channels) names.push_back(std::string(core::ChannelName(kind)));
  return names;
}

}  // namespace

namespace {

// Step::unless_read: every path it reads is one of the notification's
// three states, and over all eight of their combinations it is `!read`.
bool IsUnlessRead(const condition::Condition& condition) {
  static constexpr std::array<std::string_view, 3> kStates = {
      "notification.archived", "notification.read", "notification.seen"};
  const auto& paths = condition.paths();
  if (paths.empty() || std::ranges::any_of(paths, [](const std::string& path) {
        return std::ranges::find(kStates, path) == kStates.end();
      })) {
    return false;
  }
  for (int bits = 0; bits < 8; ++bits) {
    const bool read = (bits & 2) != 0;
    const nlohmann::json context = {
        {"notification",
         {{"seen", (bits & 1) != 0}, {"read", read}, {"archived", (bits & 4) != 0}}}};
    if (condition.Evaluate(context) != !read) return false;
  }
  return true;
}

}  // namespace

std::vector<Step> ParseSteps(const nlohmann::json& steps) {
  if (!steps.is_array() || steps.empty() || steps.size() > kMaxSteps) {
    throw core::InvalidField("steps", "steps must be an array of 1 to " +
                                          std::to_string(kMaxSteps) + " step objects, or null");
  }
  std::vector<Step> parsed;
  std::set<std::string> names;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    parsed.push_back(ParseStep(steps[i], i, names));
    // A run holds one digest window: the steps after it carry that digest.
    if (parsed.back().kind == StepKind::kDigest &&
        std::ranges::count(parsed, StepKind::kDigest, &Step::kind) > 1) {
      throw core::InvalidField(FieldOf(i) + ".type", FieldOf(i) + ".type: at most one digest step");
    }
  }
  const auto reads_outcomes = [](const Step& step) {
    if (!step.condition) return false;
    const auto& roots = step.condition->roots();
    return std::ranges::find(roots, "steps") != roots.end() ||
           std::ranges::find(roots, "step") != roots.end();
  };
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    Step& step = parsed[i];
    if (step.condition) step.unless_read = IsUnlessRead(*step.condition);
    if (step.kind != StepKind::kChannel) continue;
    step.waits = step.pick == ChannelPick::kFirstOf ||
                 (step.pick == ChannelPick::kOne &&
                  std::any_of(parsed.begin() + static_cast<std::ptrdiff_t>(i) + 1, parsed.end(),
                              reads_outcomes));
  }
  return parsed;
}

nlohmann::json StepsJson(const std::vector<Step>& steps) {
  nlohmann::json out = nlohmann::json::array();
  for (const Step& step : steps) {
    nlohmann::json s;
    switch (step.kind) {
      case StepKind::kChannel:
        s["type"] = "channel";
        if (step.pick == ChannelPick::kOne) {
          s["channel"] = std::string(core::ChannelName(step.channels.front()));
        } else {
          s[step.pick == ChannelPick::kFirstOf ? "first_of" : "all_of"] =
              ChannelNames(step.channels);
        }
        break;
      case StepKind::kDelay:
        s["type"] = "delay";
        if (step.until) {
          s["until"] = FormatTimeOfDay(*step.until);
        } else {
          s["seconds"] = step.delay.count();
        }
        break;
      case StepKind::kThrottle:
        s = {{"type", "throttle"},
             {"limit", step.throttle->limit},
             {"window_seconds", step.throttle->window.count()}};
        break;
      case StepKind::kDigest:
        s = {{"type", "digest"},
             {"window_seconds", step.digest->window.count()},
             {"key", std::string(step.digest->key.source())},
             {"max_items", step.digest->max_items}};
        break;
    }
    if (step.name) s["name"] = *step.name;
    if (step.condition) s["condition"] = step.condition->source();
    out.push_back(std::move(s));
  }
  return out;
}

nlohmann::json ConvertedStepsJson(const nlohmann::json& digest, const nlohmann::json& throttle,
                                  const nlohmann::json& escalate) {
  if (!digest.is_object() && !throttle.is_object() && !escalate.is_object()) return nullptr;
  nlohmann::json steps = nlohmann::json::array();
  if (digest.is_object()) {
    nlohmann::json step = digest;
    step["type"] = "digest";
    steps.push_back(std::move(step));
  }
  if (throttle.is_object()) {
    nlohmann::json step = throttle;
    step["type"] = "throttle";
    steps.push_back(std::move(step));
  }
  nlohmann::json at_once = nlohmann::json::array();
  const nlohmann::json held =
      escalate.is_object() ? escalate.value("channels", nlohmann::json::array()) : nlohmann::json();
  for (core::ChannelKind kind : core::AllChannels()) {
    const std::string name(core::ChannelName(kind));
    if (!held.is_array() || std::ranges::find(held, nlohmann::json(name)) == held.end())
      at_once.push_back(name);
  }
  if (!at_once.empty()) steps.push_back({{"type", "channel"}, {"all_of", std::move(at_once)}});
  if (escalate.is_object()) {
    steps.push_back({{"type", "delay"}, {"seconds", escalate.value("after_seconds", 0)}});
    steps.push_back(
        {{"type", "channel"}, {"all_of", held}, {"condition", "notification.read == false"}});
  }
  return steps;
}

std::vector<core::ChannelKind> ChannelsOf(const std::vector<Step>& steps) {
  std::vector<core::ChannelKind> used;
  for (core::ChannelKind kind : core::AllChannels()) {
    const bool any = std::ranges::any_of(steps, [&](const Step& step) {
      return std::ranges::find(step.channels, kind) != step.channels.end();
    });
    if (any) used.push_back(kind);
  }
  return used;
}

}  // namespace chopar::workflow
