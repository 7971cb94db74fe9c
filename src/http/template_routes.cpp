// Notification templates (docs/api.md "Templates and localization").
#include "http/template_routes.hpp"

#include "core/request_error.hpp"
#include "http/message.hpp"
#include "http/preview_layout.hpp"
#include "http/template_view.hpp"
#include "http/tenancy.hpp"
#include "hub/validation.hpp"
#include "templates/rendering.hpp"

namespace chopar::http {
namespace {

const std::string& TypeOf(const Request& request) {
  const std::string& type = request.String("type");
  if (!hub::IsValidType(type)) {
    throw core::InvalidField("type", "type must match ^[a-z]+(\\.[a-z_]+)*$, e.g. task.due");
  }
  return type;
}

struct PutTemplate {
  templates::TemplateStore& store;
  Response operator()(const Request& request) const {
    const auto parsed = templates::ParseTemplate(TypeOf(request), ParseJsonObject(request));
    const auto tenant = QueryTenant(request);
    store.RequireLayout(parsed, tenant);
    return JsonResponse(200, TemplateView(store.Put(parsed, tenant)));
  }
};

struct GetTemplate {
  templates::TemplateStore& store;
  Response operator()(const Request& request) const {
    return JsonResponse(200, TemplateView(store.Get(TypeOf(request), QueryTenant(request))));
  }
};

struct ListTemplates {
  templates::TemplateStore& store;
  Response operator()(const Request& request) const {
    return JsonResponse(200, TemplateListView(store.List(QueryTenant(request))));
  }
};

struct DeleteTemplate {
  templates::TemplateStore& store;
  Response operator()(const Request& request) const {
    store.Delete(TypeOf(request), QueryTenant(request));
    return NoContentResponse();
  }
};

// {"type" | "template", "locale", "data", "user_id", "draft"}: a stored
// type's template (as this process's cache has it, ?tenant='s own when it
// has one) or one locale block sent inline, rendered with `data` as the
// context (any JSON value when there is no user), and the user's id,
// locale and zone when user_id is given. With "draft": true, every draft
// of the scope stands in for what it would replace: the type's, and those
// of the layouts and partials (read from the database; never sent).
struct PreviewTemplate {
  templates::TemplateStore& store;
  hub::UserService& users;
  Response operator()(const Request& request) const {
    const nlohmann::json body = ParseJsonObject(request);
    const auto type = hub::OptionalString(body, "type", 1, 100);
    const auto inline_block = body.find("template");
    const bool has_inline = inline_block != body.end() && !inline_block->is_null();
    if (type.has_value() == has_inline) {
      throw core::InvalidField(
          "type", "give either type (a stored template) or template (one locale block)");
    }
    const auto locale = hub::OptionalString(body, "locale", 2, 16);
    if (locale && !templates::IsValidLocale(*locale)) {
      throw core::InvalidField("locale", "locale must look like uz, en or uz-Cyrl");
    }
    std::optional<templates::ContextUser> user;
    if (const auto it = body.find("user_id"); it != body.end() && !it->is_null()) {
      const std::int64_t user_id = hub::RequireId(body, "user_id");
      const hub::User found = users.GetUser(user_id);
      user = templates::ContextUser{user_id, found.locale, found.timezone, found.data};
    }
    nlohmann::json data = body.value("data", nlohmann::json::object());
    if (data.is_null()) data = nlohmann::json::object();
    if (user && !data.is_object()) throw core::InvalidField("data", "data must be a JSON object");

    // "draft": true renders the drafts (versions), which are never sent.
    const auto draft = body.find("draft");
    if (draft != body.end() && !draft->is_null() && !draft->is_boolean()) {
      throw core::InvalidField("draft", "draft must be true or false");
    }
    const bool of_draft = draft != body.end() && draft->is_boolean() && draft->get<bool>();
    const auto tenant = QueryTenant(request);

    std::shared_ptr<const templates::Template> stored;
    std::optional<templates::LocaleTexts> given;
    const templates::LocaleTexts* texts = nullptr;
    std::optional<templates::ContextNotification> notification;
    if (type) {
      if (!hub::IsValidType(*type)) {
        throw core::InvalidField("type", "type must match ^[a-z]+(\\.[a-z_]+)*$, e.g. task.due");
      }
      stored = of_draft ? store.DraftOrLive(*type, tenant) : store.FindFor(*type, tenant);
      if (!stored) {
        throw core::NotFound("notification type " + *type + " has no template" +
                             (of_draft ? " and no draft" : ""));
      }
      texts = &stored->TextsFor(locale.value_or(user ? user->locale : stored->default_locale));
      notification =
          templates::ContextNotification{std::nullopt, *type, std::nullopt, std::nullopt};
    } else {
      given = templates::LocaleTexts::Parse(*inline_block, "template.");
      texts = &*given;
    }
    if (user && locale) user->locale = *locale;
    const nlohmann::json values = templates::MakeContext(std::move(data), user, notification);
    const mustache::RenderContext context(values);
    // Partials given inline, then the stored ones; the stored template's
    // layout, or one named inline.
    const PreviewPartials partials(
        body, of_draft ? store.LibraryWithDrafts(tenant) : store.Library(tenant));
    std::optional<std::string> layout = stored ? stored->layout : std::nullopt;
    if (const auto it = body.find("layout"); !stored && it != body.end() && !it->is_null()) {
      if (!it->is_string() || !templates::IsValidFragmentKey(it->get_ref<const std::string&>()))
        throw core::InvalidField("layout", "layout must be null or a layout's key");
      layout = it->get<std::string>();
    }
    try {
      nlohmann::json rendered = templates::RenderAll(*texts, context, &partials);
      if (layout) {
        rendered["email_layout"] = EmailInLayout(rendered, *layout, partials, values,
                                                 locale.value_or(user     ? user->locale
                                                                 : stored ? stored->default_locale
                                                                          : "en"));
      }
      return JsonResponse(200, rendered);
    } catch (const templates::RenderError& e) {
      throw core::InvalidField("data", e.what());
    }
  }
};

}  // namespace

void RegisterTemplateRoutes(Router& router, templates::TemplateStore& store,
                            hub::UserService& users) {
  router.Add("POST", "/v1/templates/preview", Auth::kServerKey, PreviewTemplate{store, users});
  router.Add("GET", "/v1/templates", Auth::kServerKey, ListTemplates{store});
  router.Add("PUT", "/v1/templates/{type:str}", Auth::kServerKey, PutTemplate{store});
  router.Add("GET", "/v1/templates/{type:str}", Auth::kServerKey, GetTemplate{store});
  router.Add("DELETE", "/v1/templates/{type:str}", Auth::kServerKey, DeleteTemplate{store});
}

}  // namespace chopar::http
