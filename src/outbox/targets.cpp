#include "outbox/targets.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <stdexcept>

#include "core/channel_kind.hpp"
#include "outbox/nats_target.hpp"
#include "outbox/notify_target.hpp"
#include "outbox/standard_webhooks.hpp"
#include "outbox/webhook_target.hpp"

namespace chopar::outbox {
namespace {

constexpr std::array<std::string_view, 3> kCommonKeys = {"kind", "name", "types"};
constexpr std::array<std::string_view, 4> kWebhookKeys = {"url", "secret", "timeout_seconds",
                                                          "max_in_flight"};
constexpr std::array<std::string_view, 5> kNatsKeys = {
    "url", "subject", "stream", "timeout_seconds", "duplicate_window_seconds"};
constexpr std::array<std::string_view, 5> kNotifyKeys = {"title", "body", "link", "channels",
                                                         "critical"};

bool IsName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

void Check(bool ok, const std::string& where, const std::string& problem) {
  if (!ok) throw std::invalid_argument(where + ": " + problem);
}

void ValidateOne(const TargetSettings& t, const std::string& where) {
  for (const std::string& pattern : t.types) {
    const auto problem = TypePatterns::Problem(pattern);
    Check(!problem, where, problem.value_or(""));
  }
  if (t.kind == "webhook") {
    Check(t.url.starts_with("http://") || t.url.starts_with("https://"), where,
          "url must be an http(s) URL");
    Check(DecodeWebhookSecret(t.secret).has_value(), where,
          "secret must be a Standard Webhooks secret, whsec_<base64>");
    Check(t.timeout.count() > 0, where, "timeout_seconds must be positive");
    Check(t.max_in_flight >= 1 && t.max_in_flight <= kMaxTargetInFlight, where,
          "max_in_flight must be from 1 to " + std::to_string(kMaxTargetInFlight));
  } else if (t.kind == "nats") {
    Check(t.url.starts_with("nats://") || t.url.starts_with("tls://"), where,
          "url must be a nats:// URL");
    Check(!t.subject.empty() && StreamSubject(t.subject).has_value(), where,
          "subject must be dot-separated tokens with {type} as a whole token at most once");
    Check(!t.stream.empty() && t.stream.find_first_of(" .*>") == std::string::npos, where,
          "stream must be a name without spaces, dots or wildcards");
    Check(t.timeout.count() > 0, where, "timeout_seconds must be positive");
    Check(t.duplicate_window.count() > 0, where, "duplicate_window_seconds must be positive");
  } else if (t.kind == "notify") {
    Check(!t.title.empty(), where, "title is required");
    for (const std::string& channel : t.channels) {
      Check(core::ParseChannel(channel).has_value(), where,
            "unknown channel \"" + channel + "\"; expected " + core::ChannelNamesText());
    }
  } else {
    Check(false, where, "kind must be webhook, nats or notify");
  }
}

std::unique_ptr<Target> Build(const TargetSettings& t, const TargetDependencies& deps) {
  if (t.kind == "webhook") return std::make_unique<WebhookTarget>(t, deps.http, deps.clock);
  if (t.kind == "nats") return std::make_unique<NatsTarget>(t);
  return std::make_unique<NotifyTarget>(t, deps.pool, deps.clock, deps.metrics);
}

}  // namespace

void ValidateTargets(std::vector<TargetSettings>& targets) {
  std::map<std::string, int> of_kind;
  std::set<std::string> names;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    TargetSettings& t = targets[i];
    const std::string where =
        "[[relay.targets]] #" + std::to_string(i + 1) + (t.kind.empty() ? "" : " (" + t.kind + ")");
    ValidateOne(t, where);
    const int nth = ++of_kind[t.kind];
    if (t.name.empty()) t.name = nth == 1 ? t.kind : t.kind + "-" + std::to_string(nth);
    Check(IsName(t.name), where, "name must be lower-case letters, digits, '_' or '-'");
    Check(names.insert(t.name).second, where,
          "name \"" + t.name + "\" is taken by an earlier target");
  }
}

bool TargetKeyApplies(std::string_view kind, std::string_view key) {
  const auto in = [&](const auto& keys) {
    return std::find(keys.begin(), keys.end(), key) != keys.end();
  };
  if (in(kCommonKeys)) return true;
  if (kind == "webhook") return in(kWebhookKeys);
  if (kind == "nats") return in(kNatsKeys);
  if (kind == "notify") return in(kNotifyKeys);
  return false;
}

TargetSet::TargetSet(const std::vector<TargetSettings>& settings, const TargetDependencies& deps) {
  for (const TargetSettings& t : settings) {
    owned_.push_back(Build(t, deps));
    routes_.push_back(Route{t.name, TypePatterns(t.types), owned_.back().get()});
  }
}

}  // namespace chopar::outbox
