#include "app/config.hpp"

#include <toml++/toml.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "app/closest_name.hpp"
#include "app/config_value.hpp"
#include "app/report_config.hpp"

namespace chopar::app {
namespace {

// The array of tables of report jobs, read apart from the sections.
constexpr std::string_view kReportsKey = "reports";

struct Binding {
  std::string section;  // "limits.hourly" for nested tables
  std::string key;
  SettingTarget target;
};

// The one list of what the configuration knows: every key of
// docs/configuration.md and where it goes.
std::vector<Binding> Bindings(Config& c) {
  std::vector<Binding> b = {
      {"database", "url", &c.database.url},
      {"database", "pool_size", &c.database.pool_size},
      {"database", "pg_bin_dir", &c.database.pg_bin_dir},
      {"database", "connect_timeout_seconds", &c.database.session.connect_timeout},
      {"database", "statement_timeout_seconds", &c.database.session.statement_timeout},
      {"server", "listen", ListenAddress{&c.server.http}},
      {"server", "api_key", &c.server.http.api_key},
      {"server", "inbox_secret", &c.server.http.inbox_secret},
      {"server", "data_dir", &c.server.data_dir},
      {"server", "public_url", &c.server.public_url},
      {"server", "io_threads", &c.server.http.io_threads},
      {"server", "handler_threads", &c.server.http.handler_threads},
      {"delivery", "batch", &c.delivery.batch},
      {"delivery", "lease_seconds", &c.delivery.lease},
      {"delivery", "max_attempts", &c.delivery.max_attempts},
      {"delivery", "backoff_initial_seconds", &c.delivery.backoff.initial},
      {"delivery", "backoff_max_seconds", &c.delivery.backoff.cap},
      {"delivery", "concurrency", &c.delivery.concurrency},
      {"delivery", "poll_seconds", &c.delivery.poll_interval},
      {"delivery", "drain_seconds", &c.delivery.drain_deadline},
      {"scheduler", "batch", &c.scheduler.batch},
      {"scheduler", "concurrency", &c.scheduler.concurrency},
      {"scheduler", "max_sleep_seconds", &c.scheduler.max_sleep},
      {"channels.email", "provider", &c.email.provider},
      {"channels.email", "smtp_url", &c.email.smtp_url},
      {"channels.email", "from", &c.email.from},
      {"channels.email", "username", &c.email.username},
      {"channels.email", "password", &c.email.password},
      {"channels.email", "starttls", &c.email.starttls},
      {"channels.email", "ca_file", &c.email.ca_file},
      {"channels.email", "timeout_seconds", &c.email.timeout_seconds},
      {"channels.email", "max_in_flight", &c.email.max_in_flight},
      {"channels.telegram", "provider", &c.telegram.provider},
      {"channels.telegram", "bot_token", &c.telegram.bot.bot_token},
      {"channels.telegram", "bot_username", &c.telegram.bot.bot_username},
      {"channels.telegram", "api_base", &c.telegram.bot.api_base},
      {"channels.telegram", "webhook_secret", &c.telegram.bot.webhook_secret},
      {"channels.telegram", "updates", &c.telegram.updates},
      {"channels.telegram", "max_per_second", &c.telegram.bot.max_per_second},
      {"channels.telegram", "timeout_seconds", &c.telegram.bot.timeout},
      {"channels.push", "provider", &c.push.provider},
      {"channels.push", "vapid_public_key", &c.push.webpush.vapid_public_key},
      {"channels.push", "vapid_private_key", &c.push.webpush.vapid_private_key},
      {"channels.push", "subject", &c.push.webpush.subject},
      {"channels.push", "allow_http_endpoints", &c.push.webpush.allow_http_endpoints},
      {"channels.push", "timeout_seconds", &c.push.webpush.timeout},
      {"channels.sms", "provider", &c.sms.provider},
      {"channels.sms", "base_url", &c.sms.eskiz.base_url},
      {"channels.sms", "email", &c.sms.eskiz.email},
      {"channels.sms", "password", &c.sms.eskiz.password},
      {"channels.sms", "from", &c.sms.eskiz.from},
      {"channels.sms", "callback_secret", &c.sms.callback_secret},
  };
  for (core::ChannelKind kind : core::kAllChannels) {
    b.push_back(
        {"limits.hourly", std::string(core::ChannelName(kind)), &c.delivery.hourly_limits[kind]});
  }
  return b;
}

std::string Where(const Binding& b) { return "[" + b.section + "] " + b.key; }

[[noreturn]] void Fail(const std::string& message) {
  throw std::runtime_error("config: " + message);
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

// Applies every key of `table` (the table at dotted `path`, "" for the
// root), refusing what no binding names.
void ApplyTable(const std::vector<Binding>& bindings, const toml::table& table,
                const std::string& path) {
  for (auto&& [key_node, node] : table) {
    const std::string key(key_node.str());
    const std::string name = Join(path, key);
    const auto binding = std::find_if(bindings.begin(), bindings.end(), [&](const Binding& b) {
      return b.section == path && b.key == key;
    });
    if (binding != bindings.end()) {
      ApplyFromToml(*binding, node);
    } else if (IsSection(bindings, name) || IsSectionParent(bindings, name)) {
      if (!node.is_table()) Fail("[" + name + "] must be a table");
      ApplyTable(bindings, *node.as_table(), name);
    } else if (node.is_table() || node.is_array_of_tables()) {
      UnknownSection(bindings, HeaderName(name, node));
    } else {
      UnknownKey(bindings, path, key);
    }
  }
}

// The file's [[reports]] jobs go to `reports`; every other table to `bindings`.
void ApplyFile(const std::vector<Binding>& bindings, const std::filesystem::path& path,
               std::vector<reports::ReportJobSettings>& reports) {
  toml::table root;
  try {
    root = toml::parse_file(path.string());
  } catch (const toml::parse_error& e) {
    Fail(path.string() + ":" + std::to_string(e.source().begin.line) + ": " +
         std::string(e.description()));
  }
  if (const toml::node* jobs = root.get(kReportsKey)) {
    reports = ReadReportJobs(*jobs);
    root.erase(kReportsKey);
  }
  ApplyTable(bindings, root, "");
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

template <typename T>
void RequirePositive(const T& value, const char* what) {
  if (!(value > T{})) Fail(std::string(what) + " must be positive");
}

void Validate(const Config& c) {
  RequirePositive(c.database.pool_size, "[database] pool_size");
  RequirePositive(c.database.session.connect_timeout, "[database] connect_timeout_seconds");
  RequirePositive(c.server.http.io_threads, "[server] io_threads");
  RequirePositive(c.server.http.handler_threads, "[server] handler_threads");
  RequirePositive(c.delivery.batch, "[delivery] batch");
  RequirePositive(c.delivery.lease, "[delivery] lease_seconds");
  RequirePositive(c.delivery.max_attempts, "[delivery] max_attempts");
  RequirePositive(c.delivery.concurrency, "[delivery] concurrency");
  RequirePositive(c.scheduler.batch, "[scheduler] batch");
  RequirePositive(c.scheduler.concurrency, "[scheduler] concurrency");
  RequirePositive(c.scheduler.max_sleep, "[scheduler] max_sleep_seconds");
  RequirePositive(c.telegram.bot.max_per_second, "[channels.telegram] max_per_second");
  RequirePositive(c.telegram.bot.timeout, "[channels.telegram] timeout_seconds");
  RequirePositive(c.push.webpush.timeout, "[channels.push] timeout_seconds");
  if (c.telegram.updates != "webhook" && c.telegram.updates != "polling" &&
      c.telegram.updates != "off") {
    Fail("[channels.telegram] updates must be webhook, polling or off");
  }
  for (core::ChannelKind kind : core::kAllChannels) {
    if (c.delivery.hourly_limits[kind] < 0) {
      Fail("[limits.hourly] " + std::string(core::ChannelName(kind)) + " must be >= 0");
    }
  }
  try {
    (void)reports::CompileReportJobs(c.reports);
  } catch (const reports::JobConfigError& e) {
    Fail("[[reports]] " + std::string(e.what()));
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
  if (path) ApplyFile(bindings, *path, config.reports);
  ApplyEnvironment(bindings, environment);
  Validate(config);
  return config;
}

Config LoadConfig(const std::optional<std::filesystem::path>& path) {
  return LoadConfig(path, ProcessEnvironment());
}

}  // namespace chopar::app
