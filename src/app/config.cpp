#include "app/config.hpp"

#include <toml++/toml.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "app/closest_name.hpp"
#include "app/config_binding.hpp"
#include "app/config_providers.hpp"
#include "app/config_value.hpp"
#include "app/report_config.hpp"
#include "channels/provider_registry.hpp"
#include "core/text.hpp"
#include "http/subscriber_token.hpp"
#include "outbox/chopar_events.hpp"
#include "outbox/targets.hpp"
#include "outbox/type_patterns.hpp"
#include "workflow/settings.hpp"

namespace chopar::app {
namespace {

// The array of tables of report jobs, read apart from the sections.
constexpr std::string_view kReportsKey = "reports";

// A digest's deliveries are created when its window closes, at most this
// many days after its first notification.
constexpr int kLongestDigestWindowDays = workflow::kMaxWindowSeconds / (24 * 3600);

// One scope of [limits.http]: its rate and burst keys.
struct HttpLimit {
  std::string_view per_second_key;
  std::string_view burst_key;
  double* per_second;
  double* burst;
};

std::array<HttpLimit, 3> HttpLimits(http::RateLimitSettings& l) {
  return {
      {{"subscriber_per_second", "subscriber_burst", &l.subscriber_per_second, &l.subscriber_burst},
       {"address_per_second", "address_burst", &l.address_per_second, &l.address_burst},
       {"api_key_per_second", "api_key_burst", &l.api_key_per_second, &l.api_key_burst}}};
}

// [server] metrics_listen: empty, or an address [server] listen would take.
void CheckMetricsListen(const std::string& address) {
  if (address.empty()) return;
  http::Settings unused;
  http::ApplyListenAddress(address, unused);
}

// [events] emit: ": why" for the first pattern that is not one, or that
// matches none of chopar's events.
std::optional<std::string> EmitProblem(const std::vector<std::string>& patterns) {
  for (const std::string& pattern : patterns) {
    if (auto problem = outbox::TypePatterns::Problem(pattern)) return ": " + *problem;
    if (!outbox::MatchesAnyChoparEvent(pattern)) {
      return ": \"" + pattern + "\" matches none of chopar's events (" +
             outbox::ChoparEventNames() + ")";
    }
  }
  return std::nullopt;
}

// [<settings_section>] of each channel the binary registered whose section
// is not one of chopar's own (those of the built-in four, bound above):
// `provider` names one of the providers registered for it, and every key
// one of them reads is a string, kept as set; LoadConfig then checks them
// against the chosen provider (CompleteRegisteredChannels).
void AddRegisteredChannels(Config& c, std::vector<Binding>& b) {
  for (const core::ChannelKind kind : core::AllChannels()) {
    const core::ChannelInfo& info = core::InfoOf(kind);
    const std::string section(info.settings_section);
    const bool bound = std::any_of(b.begin(), b.end(),
                                   [&](const Binding& other) { return other.section == section; });
    if (section.empty() || bound) continue;
    Config::RegisteredChannel& channel = c.registered_channels[std::string(info.name)];
    std::vector<std::string> providers, keys;
    for (const channels::ProviderRegistration* registration : channels::ProvidersOf(kind)) {
      providers.push_back(registration->provider);
      for (const channels::ProviderKey& key : registration->keys) {
        if (std::find(keys.begin(), keys.end(), key.name) == keys.end()) keys.push_back(key.name);
      }
    }
    providers.emplace_back("sink");
    b.push_back({section, "provider", &channel.provider, OneOf(providers, true)});
    for (const std::string& key : keys) {
      b.push_back({section, key, ParsedText{[&channel, key](const std::string& text) {
                     channel.values[key] = text;
                     return std::optional<std::string>();
                   }}});
    }
  }
}

// The one list of what the configuration knows: every key of
// docs/configuration.md, where it goes, and what its value must be.
std::vector<Binding> Bindings(Config& c) {
  std::vector<Binding> b = {
      {"database", "url", &c.database.url},
      {"database", "pool_size", &c.database.pool_size, Positive()},
      {"database", "pg_bin_dir", &c.database.pg_bin_dir},
      {"database", "listen_url", &c.database.listen_url},
      {"database", "read_url", &c.database.read_url},
      {"database", "read_urls", &c.database.read_urls},
      {"database", "read_your_writes_wait_ms", &c.database.read_your_writes_wait_ms,
       Between(0, 10'000)},
      {"database", "read_max_lag_ms", &c.database.read_max_lag_ms, Between(1, 3'600'000)},
      {"database", "prepared_statements", &c.database.prepared_statements},
      {"database", "connect_timeout_seconds", &c.database.session.connect_timeout, Positive()},
      {"database", "statement_timeout_seconds", &c.database.session.statement_timeout},
      {"database", "startup_wait_seconds", &c.database.startup_wait, Between(0, 3600)},
      {"server", "listen", ListenAddress{&c.server.http}},
      {"server", "api_key", &c.server.http.api_key},
      {"server", "inbox_secret", &c.server.http.inbox_secret},
      {"server", "accept_v1_tokens_until", &c.server.http.accept_v1_tokens_until,
       ParsedBy(" ", [&c] { (void)http::V1TokenCutoff(c.server.http.accept_v1_tokens_until); })},
      {"server", "data_dir", &c.server.data_dir},
      {"server", "public_url", &c.server.public_url},
      {"server", "io_threads", &c.server.http.io_threads, Positive()},
      {"server", "handler_threads", &c.server.http.handler_threads, Positive()},
      {"server", "roles", &c.server.roles,
       ParsedBy(": ", [&c] { (void)Roles::FromNames(c.server.roles); })},
      {"server", "metrics_listen", &c.server.metrics_listen,
       ParsedBy(": ", [&c] { CheckMetricsListen(c.server.metrics_listen); })},
      {"server", "public_metrics", &c.server.public_metrics},
      {"server", "max_connections", &c.server.http.max_connections, Positive()},
      {"server", "max_streams", &c.server.http.max_streams, Positive()},
      {"server", "max_streams_per_user", &c.server.http.max_streams_per_user, Positive()},
      {"server", "idle_timeout_seconds", &c.server.http.idle_timeout, Positive()},
      {"server", "write_timeout_seconds", &c.server.http.write_timeout, Positive()},
      {"delivery", "batch", &c.delivery.batch, Positive()},
      {"delivery", "lease_seconds", &c.delivery.lease, Positive()},
      {"delivery", "max_attempts", &c.delivery.max_attempts, Positive()},
      {"delivery", "backoff_initial_seconds", &c.delivery.backoff.initial},
      {"delivery", "backoff_max_seconds", &c.delivery.backoff.cap},
      {"delivery", "concurrency", &c.delivery.concurrency, Positive()},
      {"delivery", "poll_seconds", &c.delivery.poll_interval},
      {"delivery", "linger_seconds", &c.delivery.linger, Between(0, 1)},
      {"delivery", "drain_seconds", &c.delivery.drain_deadline},
      {"scheduler", "batch", &c.scheduler.batch, Positive()},
      {"scheduler", "concurrency", &c.scheduler.concurrency, Positive()},
      {"scheduler", "max_sleep_seconds", &c.scheduler.max_sleep, Positive()},
      {"scheduler", "prepare_seconds", &c.scheduler.prepare, Between(0, 30)},
      {"broadcast", "batch", &c.broadcast.batch, Positive()},
      {"broadcast", "lease_seconds", &c.broadcast.lease, Positive()},
      {"broadcast", "deliveries_per_second", &c.broadcast.deliveries_per_second,
       NotNegative("must be 0 or more")},
      {"broadcast", "max_sleep_seconds", &c.broadcast.max_sleep, Positive()},
      {"log", "level", &c.log.level, LogLevel()},
      {"log", "format", &c.log.format, OneOf(LogFormatNames())},
      {"channels.telegram", "provider", &c.telegram.provider, Provider("telegram")},
      {"channels.telegram", "bot_token", &c.telegram.bot.bot_token},
      {"channels.telegram", "bot_username", &c.telegram.bot.bot_username},
      {"channels.telegram", "api_base", &c.telegram.bot.api_base},
      {"channels.telegram", "webhook_secret", &c.telegram.bot.webhook_secret},
      {"channels.telegram", "updates", &c.telegram.updates, OneOf({"webhook", "polling", "off"})},
      {"channels.telegram", "max_per_second", &c.telegram.bot.max_per_second, Positive()},
      {"channels.telegram", "timeout_seconds", &c.telegram.bot.timeout, Positive()},
      {"channels.push", "provider", &c.push.provider, Provider("webpush")},
      {"channels.push", "vapid_public_key", &c.push.webpush.vapid_public_key},
      {"channels.push", "vapid_private_key", &c.push.webpush.vapid_private_key},
      {"channels.push", "subject", &c.push.webpush.subject},
      {"channels.push", "allow_http_endpoints", &c.push.webpush.allow_http_endpoints},
      {"channels.push", "max_subscriptions_per_user", &c.push.webpush.max_subscriptions_per_user,
       Positive()},
      {"channels.push", "timeout_seconds", &c.push.webpush.timeout, Positive()},
      {"channels.push", "max_in_flight", &c.push.webpush.max_in_flight,
       Between(1, channels::webpush::kMaxPushInFlight)},
      {"channels.sms", "callback_secret", &c.sms.callback_secret},
      {"relay", "source_url", &c.relay.source_url},
      {"relay", "batch", &c.relay.batch, Positive()},
      {"relay", "concurrency", &c.relay.concurrency, Positive()},
      {"relay", "retention_days", &c.relay.retention_days, NotNegative()},
      {"relay", "listen", &c.relay.listen},
      {"relay", "poll_seconds", &c.relay.poll_interval, Positive()},
      {"relay", "backoff_initial_seconds", &c.relay.backoff.initial},
      {"relay", "backoff_max_seconds", &c.relay.backoff.cap},
      {"events", "emit", &c.events.emit, {.check = [&c] { return EmitProblem(c.events.emit); }}},
      {"retention", "notifications_days", &c.retention.notifications_days, NotNegative()},
      {"retention", "deliveries_days", &c.retention.deliveries_days, NotNegative()},
      {"retention", "audit_days", &c.retention.audit_days, NotNegative()},
  };
  for (core::ChannelKind kind : core::AllChannels()) {
    b.push_back({"limits.hourly", std::string(core::ChannelName(kind)),
                 &c.delivery.hourly_limits[kind], NotNegative()});
  }
  for (const HttpLimit& limit : HttpLimits(c.server.http.limits)) {
    b.push_back({"limits.http", std::string(limit.per_second_key), limit.per_second,
                 NotNegative("must be 0 (no limit) or more")});
    b.push_back({"limits.http", std::string(limit.burst_key), limit.burst});
  }
  b.push_back({"limits.http", "import_body_bytes", &c.server.http.import_body_limit, Positive()});
  for (std::vector<Binding> keys : {EmailProviderBindings("channels.email", c.email, "provider"),
                                    SmsProviderBindings("channels.sms", c.sms, "provider")}) {
    b.insert(b.end(), std::make_move_iterator(keys.begin()), std::make_move_iterator(keys.end()));
  }
  AddRegisteredChannels(c, b);
  return b;
}

// The keys of one [[relay.targets]] entry (the file only: an array of
// tables has no environment variables).
std::vector<Binding> TargetBindings(outbox::TargetSettings& t) {
  const std::string section = "relay.targets";
  return {
      {section, "kind", &t.kind},
      {section, "name", &t.name},
      {section, "types", &t.types},
      {section, "url", &t.url},
      {section, "secret", &t.secret},
      {section, "timeout_seconds", &t.timeout},
      {section, "max_in_flight", &t.max_in_flight},
      {section, "subject", &t.subject},
      {section, "stream", &t.stream},
      {section, "duplicate_window_seconds", &t.duplicate_window},
      {section, "title", &t.title},
      {section, "body", &t.body},
      {section, "link", &t.link},
      {section, "channels", &t.channels},
      {section, "critical", &t.critical},
  };
}

std::vector<TableList> TableLists(Config& c) {
  std::vector<TableList> lists = ProviderLists(c);
  lists.push_back({"relay.targets",
                   [&c] {
                     c.relay.targets.emplace_back();
                     return TargetBindings(c.relay.targets.back());
                   },
                   [&c](const std::string& where, const std::vector<std::string>& keys) {
                     const std::string& kind = c.relay.targets.back().kind;
                     for (const std::string& key : keys) {
                       if (!kind.empty() && !outbox::TargetKeyApplies(kind, key)) {
                         Fail(where + " (" + kind + "): key " + key + " does not apply to " + kind +
                              " targets");
                       }
                     }
                   }});
  return lists;
}

// " (did you mean …?)" naming candidates[*closest], or nothing.
std::string Suggestion(const std::optional<std::size_t>& closest,
                       const std::vector<std::string>& candidates) {
  return closest ? " (did you mean " + candidates[*closest] + "?)" : "";
}

std::string EnvName(const Binding& b) {
  std::string name = "CHOPAR_";
  for (char c : b.section + "_" + b.key) {
    name += c == '.' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return name;
}

// ---- The file --------------------------------------------------------------

bool IsSection(const std::vector<Binding>& bindings, const std::string& name) {
  return std::any_of(bindings.begin(), bindings.end(),
                     [&](const Binding& b) { return b.section == name; });
}

// "channels" of "channels.email": a table that holds only sections.
bool IsSectionParent(const std::vector<Binding>& bindings, const std::string& name) {
  return std::any_of(bindings.begin(), bindings.end(),
                     [&](const Binding& b) { return b.section.starts_with(name + "."); });
}

std::string Join(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

// The name a user gave an unknown table: [channel.email] arrives as table
// "channel" holding only table "email"; it is named by its first header.
std::string HeaderName(const std::string& path, const toml::node& node) {
  const toml::table* table = node.as_table();
  if (table == nullptr || table->empty()) return path;
  for (auto&& [key, child] : *table) {
    if (!child.is_table()) return path;
  }
  return HeaderName(Join(path, table->cbegin()->first.str()), table->cbegin()->second);
}

// The suggestion is the closest section, or else the section whose last part
// is closest ([telegram] for [channels.telegram]).
[[noreturn]] void UnknownSection(const std::vector<Binding>& bindings, const std::string& name) {
  std::vector<std::string> sections, last_parts, headers;
  for (const Binding& b : bindings) {
    if (!sections.empty() && sections.back() == b.section) continue;
    sections.push_back(b.section);
    last_parts.push_back(b.section.substr(b.section.rfind('.') + 1));
    headers.push_back("[" + b.section + "]");
  }
  sections.push_back(std::string(kReportsKey));
  last_parts.push_back(std::string(kReportsKey));
  headers.push_back("[[" + std::string(kReportsKey) + "]]");
  std::optional<std::size_t> closest = ClosestName(name, sections);
  if (!closest) closest = ClosestName(name, last_parts);
  Fail("unknown section [" + name + "]" + Suggestion(closest, headers));
}

// A value at `path` that no binding takes. In a section the suggestion is a
// key of that section; above the sections, any key below, with its section.
[[noreturn]] void UnknownKey(const std::vector<Binding>& bindings, const std::string& path,
                             const std::string& key) {
  const bool in_section = IsSection(bindings, path);
  std::vector<std::string> keys, shown;
  for (const Binding& b : bindings) {
    if (in_section ? b.section == path : path.empty() || b.section.starts_with(path + ".")) {
      keys.push_back(b.key);
      shown.push_back(in_section ? b.key : Where(b));
    }
  }
  Fail("unknown key " + (path.empty() ? key + " outside any section" : "[" + path + "] " + key) +
       Suggestion(ClosestName(key, keys), shown));
}

std::string Shown(const toml::node& node) {
  std::ostringstream text;
  node.visit([&](auto&& value) { text << value; });
  return text.str();
}

void ApplyFromToml(const Binding& b, const toml::node& node) {
  const std::optional<Refusal> refusal = AssignToml(node, b.target);
  if (!refusal) return;
  if (refusal->wrong_type) Fail(Where(b) + " has the wrong type (" + refusal->reason + ")");
  Fail(Where(b) + " = " + Shown(node) + " is not valid (" + refusal->reason + ")");
}

// Applies the entries of an array of tables: each one's keys through the
// bindings of a new entry of `list`, refusing what they do not name.
void ApplyTableList(const TableList& list, const toml::array& entries) {
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string where = "[[" + list.path + "]] #" + std::to_string(i + 1);
    const toml::table* entry = entries[i].as_table();
    if (entry == nullptr) Fail(where + " must be a table");
    const std::vector<Binding> bindings = list.add();
    std::vector<std::string> keys;
    for (auto&& [key_node, node] : *entry) {
      const std::string key(key_node.str());
      const auto binding = std::find_if(bindings.begin(), bindings.end(),
                                        [&](const Binding& b) { return b.key == key; });
      if (binding == bindings.end()) {
        std::vector<std::string> names;
        for (const Binding& b : bindings) names.push_back(b.key);
        Fail("unknown key " + where + " " + key + Suggestion(ClosestName(key, names), names));
      }
      const std::optional<Refusal> refusal = AssignToml(node, binding->target);
      if (refusal && refusal->wrong_type)
        Fail(where + " " + key + " has the wrong type (" + refusal->reason + ")");
      if (refusal)
        Fail(where + " " + key + " = " + Shown(node) + " is not valid (" + refusal->reason + ")");
      keys.push_back(key);
    }
    list.check_keys(where, keys);
  }
}

// Applies every key of `table` (the table at dotted `path`, "" for the
// root), refusing what no binding names.
void ApplyTable(const std::vector<Binding>& bindings, const std::vector<TableList>& lists,
                const toml::table& table, const std::string& path) {
  for (auto&& [key_node, node] : table) {
    const std::string key(key_node.str());
    const std::string name = Join(path, key);
    const auto binding = std::find_if(bindings.begin(), bindings.end(), [&](const Binding& b) {
      return b.section == path && b.key == key;
    });
    const auto list = std::find_if(lists.begin(), lists.end(),
                                   [&](const TableList& l) { return l.path == name; });
    if (binding != bindings.end()) {
      ApplyFromToml(*binding, node);
    } else if (list != lists.end()) {
      if (!node.is_array_of_tables()) Fail("[[" + name + "]] must be an array of tables");
      ApplyTableList(*list, *node.as_array());
    } else if (IsSection(bindings, name) || IsSectionParent(bindings, name)) {
      if (!node.is_table()) Fail("[" + name + "] must be a table");
      ApplyTable(bindings, lists, *node.as_table(), name);
    } else if (node.is_table() || node.is_array_of_tables()) {
      UnknownSection(bindings, HeaderName(name, node));
    } else {
      UnknownKey(bindings, path, key);
    }
  }
}

// `parse` returns the document's root table; `name` is the file shown in
// errors. Its [[reports]] jobs go to `reports`; every other table to
// `bindings` and `lists`.
template <typename Parse>
void ApplyDocument(const std::vector<Binding>& bindings, const std::vector<TableList>& lists,
                   const std::string& name, Parse parse,
                   std::vector<reports::ReportJobSettings>& reports) {
  toml::table root;
  try {
    root = parse();
  } catch (const toml::parse_error& e) {
    Fail(name + ":" + std::to_string(e.source().begin.line) + ": " + std::string(e.description()));
  }
  if (const toml::node* jobs = root.get(kReportsKey)) {
    reports = ReadReportJobs(*jobs);
    root.erase(kReportsKey);
  }
  ApplyTable(bindings, lists, root, "");
}

// ---- The environment -------------------------------------------------------

constexpr std::string_view kEnvPrefix = "CHOPAR_";
constexpr std::string_view kTestEnvPrefix = "CHOPAR_TEST_";  // the test harness's, never read here

void ApplyEnvironment(const std::vector<Binding>& bindings, const Environment& environment) {
  std::map<std::string, const Binding*> by_name;
  for (const Binding& b : bindings) by_name.emplace(EnvName(b), &b);
  for (const auto& [name, text] : environment) {
    if (!name.starts_with(kEnvPrefix) || name.starts_with(kTestEnvPrefix)) continue;
    const auto known = by_name.find(name);
    if (known == by_name.end()) {
      // Compared without the common prefix, which would only dilute the distance.
      std::vector<std::string> names, tails;
      for (const auto& [candidate, b] : by_name) {
        names.push_back(candidate);
        tails.push_back(candidate.substr(kEnvPrefix.size()));
      }
      const auto closest = ClosestName(std::string_view(name).substr(kEnvPrefix.size()), tails);
      Fail("unknown environment variable " + name + Suggestion(closest, names));
    }
    const Binding& b = *known->second;
    if (const std::optional<Refusal> refusal = AssignText(text, b.target))
      Fail(name + "=" + text + " is not a valid value for " + Where(b) + " (" + refusal->reason +
           ")");
  }
}

// ---- Values that parse but make no sense ----------------------------------

// The value `target` holds, as a number; nullopt for a target that is not one.
std::optional<double> NumberIn(const SettingTarget& target) {
  return std::visit(
      [](const auto& value) -> std::optional<double> {
        using Target = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<Target, int*> || std::is_same_v<Target, std::size_t*> ||
                      std::is_same_v<Target, double*>) {
          return static_cast<double>(*value);
        } else if constexpr (std::is_same_v<Target, std::chrono::seconds*> ||
                             std::is_same_v<Target, std::chrono::milliseconds*>) {
          return std::chrono::duration<double>(*value).count();
        } else {
          return std::nullopt;
        }
      },
      target);
}

// Whether the value the file and the environment left for `b` keeps its rule.
bool Keeps(const Binding& b) {
  const Rule& rule = b.rule;
  if (const std::optional<double> number = NumberIn(b.target)) {
    if (rule.above && !(*number > *rule.above)) return false;
    if (rule.at_least && !(*number >= *rule.at_least)) return false;
    if (rule.at_most && !(*number <= *rule.at_most)) return false;
  }
  if (const auto* text = std::get_if<std::string*>(&b.target); text && !rule.choices.empty()) {
    return std::find(rule.choices.begin(), rule.choices.end(), **text) != rule.choices.end();
  }
  return true;
}

// Every key's own rule, then the rules between keys.
void Validate(const std::vector<Binding>& bindings, const Config& c) {
  for (const Binding& b : bindings) {
    if (!Keeps(b)) Fail(Where(b) + " " + b.rule.says);
    if (b.rule.check) {
      if (const std::optional<std::string> problem = b.rule.check()) Fail(Where(b) + *problem);
    }
  }
  http::RateLimitSettings limits = c.server.http.limits;
  for (const HttpLimit& limit : HttpLimits(limits)) {
    if (*limit.per_second > 0 && !(*limit.burst >= 1 && std::isfinite(*limit.burst))) {
      Fail("[limits.http] " + std::string(limit.burst_key) + " must be at least 1 when " +
           std::string(limit.per_second_key) + " is not 0");
    }
  }
  if (c.relay.backoff.cap < c.relay.backoff.initial) {
    Fail("[relay] backoff_max_seconds must be at least backoff_initial_seconds");
  }
  // A notification's deliveries are created up to the longest digest window
  // (7 days) after it and dropped a whole week at a time: they must go
  // before it, or a delivery would name a notification that is gone.
  if (c.retention.notifications_days != 0 &&
      (c.retention.deliveries_days == 0 ||
       c.retention.notifications_days <= c.retention.deliveries_days + kLongestDigestWindowDays)) {
    Fail("[retention] notifications_days must be 0, or more than deliveries_days (not 0) + " +
         std::to_string(kLongestDigestWindowDays) +
         " (the longest digest window): deliveries are dropped before their notifications "
         "(docs/operations.md, \"Partitioned history\")");
  }
  try {
    (void)reports::CompileReportJobs(c.reports);
  } catch (const reports::JobConfigError& e) {
    Fail("[[reports]] " + std::string(e.what()));
  }
}

// [server] public_url when it is not set: where `listen` answers on this
// host, so that links work at least there.
void CompletePublicUrl(Config& c) {
  if (!c.server.public_url.empty()) return;
  const std::string& host = c.server.http.host;
  std::string shown = host;
  if (host == "0.0.0.0" || host == "::") {
    shown = "127.0.0.1";
  } else if (host.find(':') != std::string::npos) {
    shown = "[" + host + "]";
  }
  c.server.public_url = "http://" + shown + ":" + std::to_string(c.server.http.port);
}

// Checks the [[relay.targets]] entries and names the unnamed ones.
void CompleteTargets(Config& c) {
  try {
    outbox::ValidateTargets(c.relay.targets);
  } catch (const std::invalid_argument& e) {
    Fail(e.what());
  }
  // A notify target that takes one of chopar's own events would turn each
  // into a notification whose deliveries emit again, without end.
  const std::vector<std::string_view> emitted = outbox::SelectedChoparEvents(c.events.emit);
  for (const outbox::TargetSettings& target : c.relay.targets) {
    if (target.kind != "notify") continue;
    const outbox::TypePatterns types(target.types);
    for (std::string_view event : emitted) {
      if (types.Matches(event)) {
        Fail("[[relay.targets]] notify target \"" + target.name + "\" takes chopar's own event " +
             std::string(event) +
             " ([events] emit), whose notification would emit again: give it `types` that leave it "
             "out");
      }
    }
  }
}

// Each registered channel with a provider: the keys set must be ones that
// provider reads, and the others take its defaults.
void CompleteRegisteredChannels(Config& c) {
  for (auto& [name, channel] : c.registered_channels) {
    if (channel.provider.empty() || channel.provider == "sink") continue;
    const core::ChannelKind kind = *core::ParseChannel(name);
    // Validate has checked that the provider is one of the channel's.
    const channels::ProviderRegistration& registration =
        *channels::FindProvider(kind, channel.provider);
    try {
      channel.values = channels::ValuesFor(registration, channel.values);
    } catch (const std::invalid_argument& e) {
      Fail("[" + std::string(core::InfoOf(kind).settings_section) + "] " + e.what());
    }
  }
}

}  // namespace

Environment ProcessEnvironment() {
  Environment environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const auto equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    environment.emplace(text.substr(0, equals), text.substr(equals + 1));
  }
  return environment;
}

Config LoadConfig(const std::optional<std::filesystem::path>& path,
                  const Environment& environment) {
  Config config;
  const std::vector<Binding> bindings = Bindings(config);
  if (path) {
    const std::string name = path->string();
    ApplyDocument(
        bindings, TableLists(config), name, [&] { return toml::parse_file(name); }, config.reports);
  }
  std::vector<Binding> all = bindings;
  for (Binding& listed : ListedProviderBindings(config)) all.push_back(std::move(listed));
  ApplyEnvironment(all, environment);
  CompletePublicUrl(config);
  Validate(all, config);
  CompleteTargets(config);
  CompleteRegisteredChannels(config);
  CompleteProviderLists(config);
  return config;
}

Config LoadConfigText(std::string_view toml_text, const Environment& environment) {
  Config config;
  const std::vector<Binding> bindings = Bindings(config);
  ApplyDocument(
      bindings, TableLists(config), "<text>",
      [&] { return toml::parse(toml_text, std::string_view("<text>")); }, config.reports);
  std::vector<Binding> all = bindings;
  for (Binding& listed : ListedProviderBindings(config)) all.push_back(std::move(listed));
  ApplyEnvironment(all, environment);
  CompletePublicUrl(config);
  Validate(all, config);
  CompleteTargets(config);
  CompleteRegisteredChannels(config);
  CompleteProviderLists(config);
  return config;
}

Config LoadConfig(const std::optional<std::filesystem::path>& path) {
  return LoadConfig(path, ProcessEnvironment());
}

}  // namespace chopar::app
