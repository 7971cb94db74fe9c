#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/channel_kind.hpp"
#include "hub/notify_service.hpp"
#include "templates/rendering.hpp"
#include "templates/template.hpp"

namespace chopar::hub {

// What one notification says to its user: the in-app title and body, and
// each chosen channel's own texts.
struct NotificationContent {
  std::string title;
  std::string body;
  // {"email": {"subject", "html", "text"}, "telegram": {"text"}, "push":
  // {"title", "body"}, "sms": {"text"}} with only the texts the template has
  // for the chosen channels; a channel whose rendering failed holds
  // {"error": reason} instead (its delivery is created failed). Null when
  // there is nothing.
  nlohmann::json channels = nullptr;
  // Its buttons as stored (hub::ActionsJson), null for none, and its tags.
  nlohmann::json actions = nullptr;
  std::vector<std::string> tags;
};

// The title and body of `request`, and with a template (may be null) its
// texts in the user's locale (templates::Template::ResolveLocale), rendered
// with `context` (templates::MakeContext). A non-empty title or body in the
// request wins over the template's wherever it would show: a request title
// replaces the template's title, email.subject and push.title; a request
// body its body, email.html, email.text and push.body; either replaces
// telegram.text and sms.text. The in-app title and body are cut to 500 and
// 10,000 code points. A channel text that cannot be rendered fails that
// channel only. The request's actions, when it has any, replace the
// template's (rendered like the title: label and url); its tags follow the
// template's. The texts' {{> name}} tags come from `partials` (none: they
// render as nothing). With a template that names a layout and email among
// the chosen channels, the email block holds "layout": {"key", "tenant"}
// (the request's tenant or null), which the worker wraps the email in when
// it sends it (the layout as it is then: channels::Message::layout).
//
// Throws core::RequestError kInvalidField: "title" when there is neither a
// template nor a title, "data" when the template's title renders empty or
// cannot be rendered or an action renders to one CheckAction refuses, "tags"
// for more than 10 with the template's. Pure; thread-safe.
NotificationContent ComposeContent(const NotificationRequest& request,
                                   const templates::Template* tmpl, const std::string& user_locale,
                                   const nlohmann::json& context,
                                   const std::vector<core::ChannelKind>& chosen,
                                   const mustache::PartialSource* partials = nullptr);

// `text` cut to at most `max_chars` code points, ending in "…" when cut.
std::string CutToCodePoints(const std::string& text, std::size_t max_chars);

}  // namespace chopar::hub
