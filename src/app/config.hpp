#pragma once

#include <array>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "core/channel_kind.hpp"

namespace chopar::app {

// Every setting of API.md "Configuration", with its default. Sections and keys
// mirror the TOML file; each is also settable as CHOPAR_<SECTION>_<KEY>.
struct Config {
  struct Database {
    std::string url;  // empty: the embedded cluster in server.data_dir
    int pool_size = 16;
    std::string pg_bin_dir;  // embedded cluster: where initdb/pg_ctl live; empty: found
  } database;

  struct Server {
    std::string listen = "127.0.0.1:8080";
    std::string api_key;       // empty: generated and stored in data_dir
    std::string inbox_secret;  // empty: generated and stored in data_dir
    std::string data_dir = "./var";
    std::string public_url = "http://127.0.0.1:8080";
    int io_threads = 2;
    int handler_threads = 16;  // blocking request handlers (database work)
  } server;

  struct Delivery {
    int batch = 500;
    int lease_seconds = 60;
    int max_attempts = 8;
    double backoff_initial_seconds = 1.0;
    double backoff_max_seconds = 3600;
    int concurrency = 2;          // claim/send/record loops per process
    double poll_seconds = 1.0;    // fallback wake-up when no NOTIFY arrives
    double drain_seconds = 10.0;  // SIGTERM: how long in-flight sends may finish
  } delivery;

  struct Scheduler {
    int batch = 500;                // schedules claimed per firing transaction
    int concurrency = 2;            // firing loops per process
    double max_sleep_seconds = 60;  // idle wake-up when no NOTIFY arrives
  } scheduler;

  // [limits.hourly]: per user per channel, sliding hour.
  std::array<int, 4> hourly_limits = {20, 30, 30, 3};  // indexed by core::ChannelIndex

  struct Email {
    std::string provider;  // "smtp" | "sink"; empty: smtp if smtp_url is set, else sink
    std::string smtp_url;
    std::string from = "chopar <noreply@example.com>";
    std::string username;
    std::string password;
    std::string starttls;  // "required" | "opportunistic" | "off"; empty: required with AUTH
    std::string ca_file;   // CA bundle for TLS verification; empty: the system's
    int timeout_seconds = 30;
    int max_in_flight = 64;  // SMTP sessions at once
  } email;

  struct Telegram {
    std::string provider;  // "telegram" | "sink"; empty: telegram if bot_token set
    std::string bot_token;
    std::string bot_username;
    std::string api_base = "https://api.telegram.org";
    std::string webhook_secret;
    std::string updates = "webhook";  // "webhook" | "polling" | "off"
    int max_per_second = 30;
  } telegram;

  struct Push {
    std::string provider;  // "webpush" | "sink"; empty: webpush if VAPID keys set
    std::string vapid_public_key;
    std::string vapid_private_key;
    std::string subject = "mailto:admin@example.com";
    bool allow_http_endpoints = false;
  } push;

  struct Sms {
    std::string provider;  // "eskiz" | "sink"; empty: eskiz if email+password set
    std::string base_url = "https://notify.eskiz.uz";
    std::string email;
    std::string password;
    std::string from = "4546";
    std::string callback_secret;  // path secret of delivery reports; empty: generated in data_dir
  } sms;

  [[nodiscard]] int HourlyLimit(core::ChannelKind kind) const {
    return hourly_limits[core::ChannelIndex(kind)];
  }
};

// Reads `path` (may be empty: defaults only), then applies CHOPAR_* variables
// from `environ`. Throws std::runtime_error naming the key for a bad value or
// unknown key.
Config LoadConfig(const std::optional<std::filesystem::path>& path);

}  // namespace chopar::app
