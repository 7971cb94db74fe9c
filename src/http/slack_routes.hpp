#pragma once

#include "channels/chat/slack_app.hpp"
#include "core/clock.hpp"
#include "http/router.hpp"

namespace chopar::http {

// Slack's app routes (docs/api.md "Slack: an installed workspace"):
// GET /v1/slack/install (302 to Slack's authorize page), GET
// /v1/slack/oauth/callback (where Slack sends the browser back; keeps the
// workspace's bot token), GET /v1/slack/workspaces, DELETE
// /v1/slack/workspaces/{team_id} and POST /v1/users/{id}/slack/connect.
// With `app` null ([channels.slack] client_id not set) each answers 503.
// `app` must outlive the router.
void RegisterSlackRoutes(Router& router, channels::chat::SlackApp* app, const core::Clock& clock);

}  // namespace chopar::http
