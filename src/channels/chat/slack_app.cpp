#include "channels/chat/slack_app.hpp"

#include <algorithm>
#include <stdexcept>

#include "channels/chat/chat_format.hpp"
#include "channels/chat/queries.hpp"
#include "channels/provider_secret.hpp"
#include "channels/render.hpp"
#include "core/encoding.hpp"
#include "core/key_derivation.hpp"
#include "core/request_error.hpp"
#include "core/sealed_box.hpp"

namespace chopar::channels::chat {
namespace {

using std::chrono::system_clock;

constexpr std::size_t kMinTokenKeyChars = 32;
// Slack's codes and the emails chopar sends are short; a longer one is not
// Slack's.
constexpr std::size_t kMaxCode = 256;

const std::string& Get(const ProviderValues& values, const std::string& key) {
  static const std::string kEmpty;
  const auto it = values.find(key);
  return it == values.end() ? kEmpty : it->second;
}

std::string HttpUrl(const ProviderValues& values, const std::string& key) {
  std::string url = Get(values, key);
  while (url.ends_with('/')) url.pop_back();
  if (!url.starts_with("https://") && !url.starts_with("http://")) {
    throw std::invalid_argument(key + " must be an http(s) URL, not \"" + url + "\"");
  }
  return url;
}

bool IsScopeList(std::string_view scopes) {
  return !scopes.empty() && scopes.size() <= 1000 &&
         std::all_of(scopes.begin(), scopes.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || c == ':' || c == '.' || c == '_' || c == ',';
         });
}

std::string SealContext(std::string_view team_id) { return "slack:" + std::string(team_id); }

std::string StateMac(const SlackAppSettings& settings, std::string_view signed_part) {
  return core::Base64UrlEncode(core::HmacSha256(settings.state_key, signed_part));
}

// A workspace's row, as the API shows it.
SlackWorkspace WorkspaceOf(const db::Result& rows, int row) {
  SlackWorkspace workspace;
  workspace.team_id = rows.String(row, "team_id");
  workspace.team_name = rows.String(row, "team_name");
  workspace.bot_user_id = rows.String(row, "bot_user_id");
  workspace.installed_at = rows.String(row, "installed_at");
  workspace.updated_at = rows.String(row, "updated_at");
  return workspace;
}

// What an error of Slack's answer to chopar's own calls means for the
// caller: Slack unreachable or refusing chopar's app is chopar's problem.
[[noreturn]] void SlackUnavailable(const std::string& method, const net::HttpResponse& response,
                                   const std::string& error) {
  std::string detail = response.status == 0 ? response.error_message : error;
  throw core::Unavailable("Slack's " + method + " failed: " + detail);
}

}  // namespace

std::vector<ProviderKey> SlackAppKeys() {
  return {
      {.name = "client_id",
       .default_value = "",
       .doc = "the Slack app's client id (empty: webhooks only)"},
      {.name = "client_secret", .default_value = "", .doc = "the app's client secret (a secret)"},
      {.name = "client_secret_file", .default_value = "", .doc = "or a file holding it"},
      {.name = "token_key",
       .default_value = "",
       .doc = "seals the workspaces' bot tokens at rest: 32 or more random characters (a secret)"},
      {.name = "token_key_file", .default_value = "", .doc = "or a file holding it"},
      {.name = "scopes",
       .default_value = "chat:write,im:write,users:read,users:read.email",
       .doc = "the bot scopes an install asks for"},
      {.name = "api_url", .default_value = "https://slack.com/api", .doc = "Slack's Web API"},
      {.name = "authorize_url",
       .default_value = "https://slack.com/oauth/v2/authorize",
       .doc = "where an install sends the browser"},
  };
}

SlackAppSettings SlackAppSettingsFrom(const ProviderValues& values, std::string_view public_url) {
  SlackAppSettings settings;
  settings.api_url = HttpUrl(values, "api_url");
  settings.authorize_url = HttpUrl(values, "authorize_url");
  settings.scopes = Get(values, "scopes");
  std::erase(settings.scopes, ' ');
  if (!IsScopeList(settings.scopes)) {
    throw std::invalid_argument("scopes must be Slack scopes separated by commas (\"chat:write\")");
  }
  settings.timeout = ParseTimeoutSeconds(Get(values, "timeout_seconds"));
  settings.client_id = Get(values, "client_id");
  const std::string client_secret = SecretValue(values, "client_secret");
  const std::string token_key = SecretValue(values, "token_key");
  if (settings.client_id.empty()) {
    if (!client_secret.empty() || !token_key.empty()) {
      throw std::invalid_argument("client_secret and token_key need client_id");
    }
    return settings;
  }
  if (client_secret.empty()) {
    throw std::invalid_argument("client_secret (or client_secret_file) must be set with client_id");
  }
  if (token_key.size() < kMinTokenKeyChars) {
    throw std::invalid_argument(
        "token_key (or token_key_file) must be set with client_id: 32 or more random characters");
  }
  settings.client_secret = client_secret;
  settings.token_key = core::HkdfSha256(token_key, "", "chopar slack bot tokens", 32);
  settings.state_key = core::HkdfSha256(token_key, "", "chopar slack install state", 32);
  std::string base(public_url);
  while (base.ends_with('/')) base.pop_back();
  settings.redirect_uri = base + "/v1/slack/oauth/callback";
  return settings;
}

std::string MakeSlackInstallState(const SlackAppSettings& settings, system_clock::time_point now) {
  const auto expiry = std::chrono::duration_cast<std::chrono::seconds>(
                          (now + kSlackInstallStateLifetime).time_since_epoch())
                          .count();
  const std::string signed_part =
      std::to_string(expiry) + "." + core::Base64UrlEncode(core::RandomBytes(12));
  return signed_part + "." + StateMac(settings, signed_part);
}

bool SlackInstallStateValid(const SlackAppSettings& settings, std::string_view state,
                            system_clock::time_point now) {
  if (settings.state_key.empty() || state.size() > 200) return false;
  const auto last_dot = state.rfind('.');
  if (last_dot == std::string_view::npos) return false;
  const std::string_view signed_part = state.substr(0, last_dot);
  if (!core::ConstantTimeEquals(StateMac(settings, signed_part), state.substr(last_dot + 1))) {
    return false;
  }
  const std::string expiry(signed_part.substr(0, signed_part.find('.')));
  if (expiry.empty() || expiry.size() > 12 ||
      !std::all_of(expiry.begin(), expiry.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  const auto now_seconds =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  return std::stoll(expiry) >= now_seconds;
}

std::string SlackAuthorizeUrl(const SlackAppSettings& settings, std::string_view state) {
  return settings.authorize_url + "?client_id=" + core::PercentEncode(settings.client_id) +
         "&scope=" + core::PercentEncode(settings.scopes) +
         "&redirect_uri=" + core::PercentEncode(settings.redirect_uri) +
         "&state=" + core::PercentEncode(state);
}

SlackApp::SlackApp(SlackAppSettings settings, db::Pool& pool, net::HttpClient& http)
    : settings_(std::move(settings)), pool_(pool), http_(http) {}

net::HttpResponse SlackApp::CallSlack(const std::string& method, std::string form_body,
                                      const std::string& bearer) {
  net::HttpRequest request;
  request.url = settings_.api_url + "/" + method;
  request.headers = {"Content-Type: application/x-www-form-urlencoded"};
  if (!bearer.empty()) request.headers.push_back("Authorization: Bearer " + bearer);
  request.body = std::move(form_body);
  request.timeout = settings_.timeout;
  return http_.Perform(request);
}

std::string SlackApp::InstallUrl(system_clock::time_point now) const {
  return SlackAuthorizeUrl(settings_, MakeSlackInstallState(settings_, now));
}

SlackWorkspace SlackApp::CompleteInstall(std::string_view code, std::string_view state,
                                         system_clock::time_point now) {
  if (!SlackInstallStateValid(settings_, state, now)) {
    throw core::InvalidField("state",
                             "state is not one GET /v1/slack/install made in the last 10 minutes");
  }
  if (code.empty() || code.size() > kMaxCode) {
    throw core::InvalidField("code", "code must be the one Slack's redirect carries");
  }
  const net::HttpResponse response = CallSlack(
      "oauth.v2.access", "client_id=" + core::PercentEncode(settings_.client_id) +
                             "&client_secret=" + core::PercentEncode(settings_.client_secret) +
                             "&code=" + core::PercentEncode(code) +
                             "&redirect_uri=" + core::PercentEncode(settings_.redirect_uri));
  const SlackInstallResult result = ParseSlackOAuthAccess(response);
  if (!result.install) {
    if (result.error == "invalid_code" || result.error == "code_already_used" ||
        result.error == "code_expired") {
      throw core::InvalidField("code", "Slack did not take the code: " + result.error);
    }
    SlackUnavailable("oauth.v2.access", response, result.error);
  }
  SlackInstall install = *result.install;
  if (!ParseSlackConversation(install.team_id + "/U00000000")) {
    SlackUnavailable("oauth.v2.access", response, "a team id that is not Slack's");
  }
  install.team_name = CutCodePoints(install.team_name, 255);
  // The bot's own id is shown, never used: one that is not Slack's is left out.
  if (!ParseSlackConversation(install.team_id + "/" + install.bot_user_id) ||
      install.bot_user_id[0] == 'C' || install.bot_user_id[0] == 'G' ||
      install.bot_user_id[0] == 'D') {
    install.bot_user_id.clear();
  }
  const std::string sealed =
      core::Seal(settings_.token_key, SealContext(install.team_id), install.bot_token);
  auto conn = pool_.Acquire();
  const auto rows = conn->Exec(queries::kSlackSaveWorkspace, install.team_id, install.team_name,
                               install.bot_user_id, core::Base64Encode(sealed));
  SlackWorkspace workspace;
  workspace.team_id = install.team_id;
  workspace.team_name = install.team_name;
  workspace.bot_user_id = install.bot_user_id;
  workspace.installed_at = rows.String(0, "installed_at");
  workspace.updated_at = rows.String(0, "updated_at");
  workspace.created = rows.Bool(0, "created");
  return workspace;
}

std::vector<SlackWorkspace> SlackApp::Workspaces() {
  auto conn = pool_.Acquire();
  const auto rows = conn->Exec(queries::kSlackWorkspaces);
  std::vector<SlackWorkspace> workspaces;
  for (int row = 0; row < rows.Rows(); ++row) workspaces.push_back(WorkspaceOf(rows, row));
  return workspaces;
}

bool SlackApp::Remove(std::string_view team_id) {
  auto conn = pool_.Acquire();
  const auto removed = conn->Exec(queries::kSlackRemoveWorkspace, std::string(team_id));
  return removed.AffectedRows() > 0;
}

std::optional<std::string> SlackApp::BotToken(std::string_view team_id) const {
  auto conn = pool_.Acquire();
  const auto rows = conn->Exec(queries::kSlackWorkspaceToken, std::string(team_id));
  if (rows.Empty()) return std::nullopt;
  const auto sealed = core::Base64Decode(rows.Text(0, "token_sealed"));
  std::optional<std::string> token;
  if (sealed) token = core::Open(settings_.token_key, SealContext(team_id), *sealed);
  if (!token) {
    throw SlackTokenUnreadable("the bot token of Slack workspace " + std::string(team_id) +
                               " does not open with this token_key: install the app again");
  }
  return token;
}

std::string SlackApp::Connect(std::int64_t user_id, std::string_view team_id) {
  if (!ParseSlackConversation(std::string(team_id) + "/U00000000")) {
    throw core::InvalidField("team_id", "team_id must be a Slack team id (\"T0123ABCD\")");
  }
  std::optional<std::string> email;
  {
    auto conn = pool_.Acquire();
    const auto rows = conn->Exec(queries::kSlackUserEmail, user_id);
    if (rows.Empty()) throw core::UserNotFound(user_id);
    email = rows.OptString(0, "email");
  }
  if (!email) {
    throw core::RequestError(core::ErrorCode::kConflict,
                             "user " + std::to_string(user_id) +
                                 " has no email to find them in Slack by (PUT /v1/users/{id})");
  }
  const auto token = BotToken(team_id);
  if (!token) {
    throw core::NotFound("Slack workspace " + std::string(team_id) +
                         " has not installed the app (GET /v1/slack/install)");
  }
  const net::HttpResponse response =
      CallSlack("users.lookupByEmail", "email=" + core::PercentEncode(*email), *token);
  const SlackLookup lookup = ParseSlackLookupByEmail(response);
  if (!lookup.user_id) {
    if (lookup.error == "users_not_found") {
      throw core::NotFound("no member of Slack workspace " + std::string(team_id) +
                           " has the email of user " + std::to_string(user_id));
    }
    SlackUnavailable("users.lookupByEmail", response, lookup.error);
  }
  const std::string address = std::string(team_id) + "/" + *lookup.user_id;
  if (!ParseSlackConversation(address)) {
    SlackUnavailable("users.lookupByEmail", response, "a user id that is not Slack's");
  }
  auto conn = pool_.Acquire();
  conn->Exec(queries::kSlackConnectUser, user_id, address);
  return address;
}

}  // namespace chopar::channels::chat
