#include "app/config.hpp"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <toml++/toml.h>
#include <variant>
#include <vector>

namespace chopar::app {
namespace {

using Target = std::variant<std::string*, int*, double*, bool*>;

struct Binding {
  std::string section;  // "limits.hourly" for nested tables
  std::string key;
  Target target;
};

std::vector<Binding> Bindings(Config& c) {
  std::vector<Binding> b = {
      {"database", "url", &c.database.url},
      {"database", "pool_size", &c.database.pool_size},
      {"database", "pg_bin_dir", &c.database.pg_bin_dir},
      {"server", "listen", &c.server.listen},
      {"server", "api_key", &c.server.api_key},
      {"server", "inbox_secret", &c.server.inbox_secret},
      {"server", "data_dir", &c.server.data_dir},
      {"server", "public_url", &c.server.public_url},
      {"server", "io_threads", &c.server.io_threads},
      {"server", "handler_threads", &c.server.handler_threads},
      {"delivery", "batch", &c.delivery.batch},
      {"delivery", "lease_seconds", &c.delivery.lease_seconds},
      {"delivery", "max_attempts", &c.delivery.max_attempts},
      {"delivery", "backoff_initial_seconds", &c.delivery.backoff_initial_seconds},
      {"delivery", "backoff_max_seconds", &c.delivery.backoff_max_seconds},
      {"delivery", "concurrency", &c.delivery.concurrency},
      {"delivery", "poll_seconds", &c.delivery.poll_seconds},
      {"delivery", "drain_seconds", &c.delivery.drain_seconds},
      {"scheduler", "batch", &c.scheduler.batch},
      {"scheduler", "concurrency", &c.scheduler.concurrency},
      {"scheduler", "max_sleep_seconds", &c.scheduler.max_sleep_seconds},
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
      {"channels.telegram", "bot_token", &c.telegram.bot_token},
      {"channels.telegram", "bot_username", &c.telegram.bot_username},
      {"channels.telegram", "api_base", &c.telegram.api_base},
      {"channels.telegram", "webhook_secret", &c.telegram.webhook_secret},
      {"channels.telegram", "updates", &c.telegram.updates},
      {"channels.telegram", "max_per_second", &c.telegram.max_per_second},
      {"channels.push", "provider", &c.push.provider},
      {"channels.push", "vapid_public_key", &c.push.vapid_public_key},
      {"channels.push", "vapid_private_key", &c.push.vapid_private_key},
      {"channels.push", "subject", &c.push.subject},
      {"channels.push", "allow_http_endpoints", &c.push.allow_http_endpoints},
      {"channels.sms", "provider", &c.sms.provider},
      {"channels.sms", "base_url", &c.sms.base_url},
      {"channels.sms", "email", &c.sms.email},
      {"channels.sms", "password", &c.sms.password},
      {"channels.sms", "from", &c.sms.from},
      {"channels.sms", "callback_secret", &c.sms.callback_secret},
  };
  for (core::ChannelKind kind : core::kAllChannels) {
    b.push_back({"limits.hourly", std::string(core::ChannelName(kind)),
                 &c.hourly_limits[core::ChannelIndex(kind)]});
  }
  return b;
}

std::string Where(const Binding& b) { return "[" + b.section + "] " + b.key; }

void SetFromToml(const Binding& b, const toml::node& node) {
  const bool ok = std::visit(
      [&](auto* target) {
        using T = std::remove_pointer_t<decltype(target)>;
        if constexpr (std::is_same_v<T, double>) {
          if (auto v = node.value<double>()) return (*target = *v, true);
        } else if constexpr (std::is_same_v<T, int>) {
          if (auto v = node.value<int64_t>()) return (*target = static_cast<int>(*v), true);
        } else {
          if (auto v = node.value_exact<T>()) return (*target = *v, true);
        }
        return false;
      },
      b.target);
  if (!ok) throw std::runtime_error("config: " + Where(b) + " has the wrong type");
}

void SetFromText(const Binding& b, const std::string& name, const std::string& text) {
  std::visit(
      [&](auto* target) {
        using T = std::remove_pointer_t<decltype(target)>;
        try {
          if constexpr (std::is_same_v<T, std::string>) {
            *target = text;
          } else if constexpr (std::is_same_v<T, int>) {
            std::size_t used = 0;
            *target = std::stoi(text, &used);
            if (used != text.size()) throw std::invalid_argument(text);
          } else if constexpr (std::is_same_v<T, double>) {
            std::size_t used = 0;
            *target = std::stod(text, &used);
            if (used != text.size()) throw std::invalid_argument(text);
          } else {
            if (text == "true" || text == "1") {
              *target = true;
            } else if (text == "false" || text == "0") {
              *target = false;
            } else {
              throw std::invalid_argument(text);
            }
          }
        } catch (const std::logic_error&) {
          throw std::runtime_error("config: " + name + "=" + text + " is not a valid value for " +
                                   Where(b));
        }
      },
      b.target);
}

std::string EnvName(const Binding& b) {
  std::string name = "CHOPAR_";
  for (char c : b.section + "_" + b.key) name += c == '.' ? '_' : static_cast<char>(std::toupper(c));
  return name;
}

void Validate(const Config& c) {
  auto positive = [](int value, const char* what) {
    if (value <= 0) throw std::runtime_error(std::string("config: ") + what + " must be positive");
  };
  positive(c.database.pool_size, "[database] pool_size");
  positive(c.delivery.batch, "[delivery] batch");
  positive(c.delivery.lease_seconds, "[delivery] lease_seconds");
  positive(c.delivery.max_attempts, "[delivery] max_attempts");
  positive(c.delivery.concurrency, "[delivery] concurrency");
  positive(c.scheduler.batch, "[scheduler] batch");
  positive(c.scheduler.concurrency, "[scheduler] concurrency");
  positive(c.telegram.max_per_second, "[channels.telegram] max_per_second");
  if (c.telegram.updates != "webhook" && c.telegram.updates != "polling" && c.telegram.updates != "off") {
    throw std::runtime_error("config: [channels.telegram] updates must be webhook, polling or off");
  }
  positive(c.server.io_threads, "[server] io_threads");
  positive(c.server.handler_threads, "[server] handler_threads");
  for (int limit : c.hourly_limits) {
    if (limit < 0) throw std::runtime_error("config: [limits.hourly] values must be >= 0");
  }
}

}  // namespace

Config LoadConfig(const std::optional<std::filesystem::path>& path) {
  Config config;
  const std::vector<Binding> bindings = Bindings(config);
  if (path) {
    toml::table root;
    try {
      root = toml::parse_file(path->string());
    } catch (const toml::parse_error& e) {
      throw std::runtime_error("config: " + path->string() + ": " + std::string(e.description()));
    }
    for (const Binding& b : bindings) {
      if (const toml::node* node = root.at_path(b.section + "." + b.key).node()) SetFromToml(b, *node);
    }
  }
  for (const Binding& b : bindings) {
    const std::string name = EnvName(b);
    if (const char* value = std::getenv(name.c_str())) SetFromText(b, name, value);
  }
  Validate(config);
  return config;
}

}  // namespace chopar::app
