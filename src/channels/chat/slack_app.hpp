#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "channels/chat/slack_api.hpp"
#include "channels/provider_registry.hpp"
#include "db/pool.hpp"
#include "net/http_client.hpp"

namespace chopar::channels::chat {

// chopar's Slack app (docs/api.md "Slack: an installed workspace"): the
// bot-token form of the `slack` channel. A workspace installs the app with
// OAuth v2 (GET /v1/slack/install → Slack → GET /v1/slack/oauth/callback),
// its bot token is kept sealed in chopar.slack_workspaces, and a user is
// connected to their Slack account by their email (users.lookupByEmail).

// [channels.slack]'s keys for the app, beside the webhook ones.
struct SlackAppSettings {
  std::string client_id;      // empty: the app is not configured
  std::string client_secret;  // a secret
  // The 32-byte keys derived from token_key: one seals the bot tokens, the
  // other signs the install's `state`.
  std::string token_key;
  std::string state_key;
  std::string api_url = "https://slack.com/api";
  std::string authorize_url = "https://slack.com/oauth/v2/authorize";
  std::string scopes = "chat:write,im:write,users:read,users:read.email";
  std::string redirect_uri;  // [server] public_url + /v1/slack/oauth/callback
  std::chrono::milliseconds timeout{10000};

  [[nodiscard]] bool configured() const { return !client_id.empty(); }
};

std::vector<ProviderKey> SlackAppKeys();

// The app's settings from [channels.slack]: not configured when client_id
// is empty. Throws std::invalid_argument naming the key for a client_id
// without client_secret or token_key, a token_key shorter than 32
// characters, a URL that is not http(s) or bad scopes.
SlackAppSettings SlackAppSettingsFrom(const ProviderValues& values, std::string_view public_url);

// How long an install's `state` is accepted after GET /v1/slack/install.
inline constexpr std::chrono::minutes kSlackInstallStateLifetime{10};

// A fresh `state` for an install started at `now`: "<expiry>.<nonce>.<mac>",
// the HMAC-SHA256 under state_key of the rest, so the callback knows it
// started here and not long ago (an install link cannot be forged or kept).
std::string MakeSlackInstallState(const SlackAppSettings& settings,
                                  std::chrono::system_clock::time_point now);
bool SlackInstallStateValid(const SlackAppSettings& settings, std::string_view state,
                            std::chrono::system_clock::time_point now);

// Slack's authorize URL for an install with `state`.
std::string SlackAuthorizeUrl(const SlackAppSettings& settings, std::string_view state);

// A workspace's sealed bot token that does not open: token_key changed
// since the install (installing the app again seals it anew).
class SlackTokenUnreadable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An installed workspace, as the API shows it (never the token).
struct SlackWorkspace {
  std::string team_id;
  std::string team_name;
  std::string bot_user_id;
  std::string installed_at;  // RFC 3339
  std::string updated_at;
  bool created = false;  // for the install: a workspace not installed before
};

// The app's work with Slack and with its table. Each call throws
// core::RequestError for what the caller can act on (a bad or expired
// state: 400; a workspace or Slack user not found: 404; a user without an
// email: 409; Slack down, or refusing chopar's app credentials: 503) and
// db errors when the database is lost. Thread-safe; the references must
// outlive it.
class SlackApp {
 public:
  SlackApp(SlackAppSettings settings, db::Pool& pool, net::HttpClient& http);

  [[nodiscard]] const SlackAppSettings& settings() const { return settings_; }

  // Where an install starts (Slack's authorize URL with a fresh state).
  std::string InstallUrl(std::chrono::system_clock::time_point now) const;
  // The callback: checks `state`, trades `code` for the bot token
  // (oauth.v2.access) and keeps the workspace with its token sealed.
  SlackWorkspace CompleteInstall(std::string_view code, std::string_view state,
                                 std::chrono::system_clock::time_point now);
  std::vector<SlackWorkspace> Workspaces();
  // Forgets a workspace's token; false when it was not installed.
  bool Remove(std::string_view team_id);
  // Finds user `user_id` by their email in workspace `team_id` and makes
  // "<team>/<Slack user>" their `slack` address; returns it.
  std::string Connect(std::int64_t user_id, std::string_view team_id);

  // The bot token of an installed workspace, or nullopt: read from the
  // table each time, so an install or a removal holds at once. Throws
  // SlackTokenUnreadable when its sealed token does not open, db errors
  // when the database is lost.
  std::optional<std::string> BotToken(std::string_view team_id) const;

 private:
  net::HttpResponse CallSlack(const std::string& method, std::string form_body,
                              const std::string& bearer = "");

  SlackAppSettings settings_;
  db::Pool& pool_;
  net::HttpClient& http_;
};

}  // namespace chopar::channels::chat
