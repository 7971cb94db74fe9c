#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "templates/template.hpp"

namespace chopar::templates {

// What the context tells about the recipient: {{user.id}}, {{user.locale}},
// {{user.timezone}}, and their custom attributes as {{user.data.<key>}}.
struct ContextUser {
  std::int64_t id = 0;
  std::string locale;
  std::string timezone;
  nlohmann::json data = nlohmann::json::object();
};

// What the context tells about the notification: {{notification.id}},
// {{notification.type}}, {{notification.link}}, {{notification.created_at}}
// (RFC 3339). Unknown members are null.
struct ContextNotification {
  std::optional<std::int64_t> id;
  std::string type;
  std::optional<std::string> link;
  std::optional<std::string> created_at;
};

// The rendering context (docs/api.md "Templates and localization"): the
// notification's `data` at the top level, plus `user` and `notification`
// when given; those two win over members of `data` with the same names.
// `data` that is not an object is the context as it is (previews only).
nlohmann::json MakeContext(nlohmann::json data, const std::optional<ContextUser>& user,
                           const std::optional<ContextNotification>& notification);

// Every text of `texts` rendered, in the shape of POST /v1/templates/preview:
// {"title", "body", "email": {"subject", "html", "text"}, "telegram":
// {"text"}, "push": {"title", "body"}, "sms": {"text"}, "actions": [{"label",
// "url" | "event"}]}, absent texts left out; {{> name}} from `partials`.
// Throws RenderError.
nlohmann::json RenderAll(const LocaleTexts& texts, const mustache::RenderContext& context,
                         const mustache::PartialSource* partials = nullptr);

}  // namespace chopar::templates
