#include "http/slack_routes.hpp"

#include "core/request_error.hpp"
#include "http/message.hpp"

namespace chopar::http {
namespace {

using channels::chat::SlackApp;
using channels::chat::SlackWorkspace;

SlackApp& Configured(SlackApp* app) {
  if (app == nullptr) {
    throw core::Unavailable(
        "Slack's app is not configured ([channels.slack] provider = \"slack\", client_id, "
        "client_secret, token_key)");
  }
  return *app;
}

nlohmann::json WorkspaceView(const SlackWorkspace& workspace) {
  return {{"team_id", workspace.team_id},
          {"team_name", workspace.team_name},
          {"bot_user_id", workspace.bot_user_id},
          {"installed_at", workspace.installed_at},
          {"updated_at", workspace.updated_at}};
}

struct Install {
  SlackApp* app;
  const core::Clock& clock;
  Response operator()(const Request&) const {
    const std::string url = Configured(app).InstallUrl(clock.Now());
    Response response = JsonResponse(302, {{"url", url}});
    response.headers.emplace_back("Location", url);
    response.headers.emplace_back("Cache-Control", "no-store");
    return response;
  }
};

struct OAuthCallback {
  SlackApp* app;
  const core::Clock& clock;
  Response operator()(const Request& request) const {
    SlackApp& slack = Configured(app);
    if (const auto error = request.query.Get("error")) {
      throw core::InvalidField("error",
                               "the install was not approved in Slack: " + error->substr(0, 100));
    }
    const auto state = request.query.Get("state");
    const auto code = request.query.Get("code");
    if (!state) throw core::InvalidField("state", "state is required");
    if (!code) throw core::InvalidField("code", "code is required");
    const SlackWorkspace workspace = slack.CompleteInstall(*code, *state, clock.Now());
    Response response = JsonResponse(workspace.created ? 201 : 200, WorkspaceView(workspace));
    response.headers.emplace_back("Cache-Control", "no-store");
    return response;
  }
};

struct ListWorkspaces {
  SlackApp* app;
  Response operator()(const Request&) const {
    nlohmann::json items = nlohmann::json::array();
    for (const SlackWorkspace& workspace : Configured(app).Workspaces()) {
      items.push_back(WorkspaceView(workspace));
    }
    return JsonResponse(200, {{"items", std::move(items)}});
  }
};

struct RemoveWorkspace {
  SlackApp* app;
  Response operator()(const Request& request) const {
    const std::string& team_id = request.String("team_id");
    if (!Configured(app).Remove(team_id)) {
      throw core::NotFound("Slack workspace " + team_id.substr(0, 40) + " is not installed");
    }
    return NoContentResponse();
  }
};

struct ConnectUser {
  SlackApp* app;
  Response operator()(const Request& request) const {
    SlackApp& slack = Configured(app);
    const std::int64_t user_id = request.Id("id");
    const nlohmann::json body = ParseJsonObject(request);
    for (const auto& [key, value] : body.items()) {
      if (key != "team_id") throw core::InvalidField(key, key + " is not a field of this request");
    }
    const auto team = body.find("team_id");
    if (team == body.end() || !team->is_string()) {
      throw core::InvalidField("team_id", "team_id must be an installed workspace's id");
    }
    const std::string address = slack.Connect(user_id, team->get<std::string>());
    return JsonResponse(200, {{"user_id", user_id},
                              {"team_id", team->get<std::string>()},
                              {"slack_user_id", address.substr(address.find('/') + 1)},
                              {"address", address}});
  }
};

}  // namespace

void RegisterSlackRoutes(Router& router, SlackApp* app, const core::Clock& clock) {
  router.Add("GET", "/v1/slack/install", Auth::kServerKey, Install{app, clock});
  router.Add("GET", "/v1/slack/oauth/callback", Auth::kNone, OAuthCallback{app, clock});
  router.Add("GET", "/v1/slack/workspaces", Auth::kServerKey, ListWorkspaces{app});
  router.Add("DELETE", "/v1/slack/workspaces/{team_id:str}", Auth::kServerKey,
             RemoveWorkspace{app});
  router.Add("POST", "/v1/users/{id}/slack/connect", Auth::kServerKey, ConnectUser{app});
}

}  // namespace chopar::http
