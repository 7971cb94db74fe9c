// Users' own preferences and one-click unsubscribe links (docs/api.md
// "Preferences by category and type").
#include "http/preference_routes.hpp"

#include <cstdint>
#include <set>

#include "channels/render.hpp"
#include "channels/unsubscribe.hpp"
#include "core/encoding.hpp"
#include "core/request_error.hpp"
#include "http/message.hpp"
#include "hub/channel_choice.hpp"
#include "hub/preferences.hpp"
#include "templates/template.hpp"

namespace chopar::http {
namespace {

struct GetInboxPreferences {
  hub::UserService& users;
  Response operator()(const Request& request) const {
    return JsonResponse(200, users.GetPreferences(*request.subscriber).preferences);
  }
};

struct PutInboxPreferences {
  hub::UserService& users;
  Response operator()(const Request& request) const {
    const nlohmann::json body = ParseJsonObject(request);
    hub::ValidatePreferences(body, "");
    return JsonResponse(200, users.MergePreferences(*request.subscriber, body));
  }
};

// The words of the unsubscribe pages.
struct PageWords {
  const char* lang;
  const char* title;
  const char* question;  // before the scope's name
  const char* button;
  const char* done;      // before the scope's name
  const char* kept;      // after a one-click POST: what stays
  const char* manage;    // the link to the preferences page, and its title
  const char* category;  // the first column's head
  const char* save;
  const char* saved;
  const char* none;  // no category to show
};
constexpr PageWords kEnglishPage{"en",
                                 "Unsubscribe",
                                 "Stop emails about",
                                 "Unsubscribe",
                                 "You will no longer get emails about",
                                 "Your other notifications stay as they are.",
                                 "Notification settings",
                                 "Category",
                                 "Save",
                                 "Saved.",
                                 "There are no categories of notifications yet."};
constexpr PageWords kUzbekPage{"uz",
                               "Obunani bekor qilish",
                               "Shu mavzudagi xatlar to‘xtatilsinmi:",
                               "Obunani bekor qilish",
                               "Endi sizga shu mavzuda xat kelmaydi:",
                               "Boshqa bildirishnomalaringiz o‘zgarmaydi.",
                               "Bildirishnoma sozlamalari",
                               "Turkum",
                               "Saqlash",
                               "Saqlandi.",
                               "Hozircha bildirishnoma turkumlari yo‘q."};

// The scope a preferences page link is signed for: all of the user's
// category settings, every channel.
const channels::UnsubscribeScope kPreferencesScope{"preferences", "all"};

// The user's preferences page, signed like an unsubscribe link.
std::string PreferencesPageLink(const std::string& secret, std::int64_t user_id) {
  return "/v1/unsubscribe/preferences?user=" + std::to_string(user_id) + "&sig=" +
         channels::SignUnsubscribe(secret, user_id, kPreferencesScope, core::ChannelKind::kEmail);
}

const PageWords& PageWordsFor(const std::string& locale) {
  return locale == "uz" || locale.starts_with("uz-") ? kUzbekPage : kEnglishPage;
}

std::string ManageLink(const PageWords& words, const std::string& secret, std::int64_t user_id) {
  return "<p style=\"margin-top:24px;font-size:14px;\"><a href=\"" +
         channels::HtmlEscape(PreferencesPageLink(secret, user_id)) + "\">" + words.manage +
         "</a></p>\n";
}

Response Page(int status, const std::string& lang, const std::string& title,
              const std::string& inner) {
  Response response;
  response.status = status;
  response.content_type = "text/html; charset=utf-8";
  response.headers.emplace_back("Cache-Control", "no-store");
  response.headers.emplace_back("Referrer-Policy", "no-referrer");
  // A page whose one button changes the user's settings must not be shown
  // inside another site's frame, where a click could be stolen.
  response.headers.emplace_back("Content-Security-Policy", "frame-ancestors 'none'");
  response.headers.emplace_back("X-Frame-Options", "DENY");
  response.body =
      "<!doctype html>\n<html lang=\"" + lang +
      "\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
      "content=\"width=device-width,initial-scale=1\"><title>" +
      channels::HtmlEscape(title) +
      "</title></head>\n<body style=\"margin:0;padding:32px 16px;background:#f4f4f5;"
      "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#18181b;\">\n"
      "<main style=\"max-width:480px;margin:0 auto;background:#fff;border-radius:8px;padding:24px;"
      "line-height:1.5;\">\n" +
      inner + "</main>\n</body></html>\n";
  return response;
}

// A link that is not one chopar signed: both languages, nothing changed.
Response Refused() {
  return Page(
      403, "uz", "Havola yaroqsiz / Invalid link",
      "<h1 style=\"font-size:20px;margin:0 0 12px;\">Havola yaroqsiz</h1>\n"
      "<p>Bu obunani bekor qilish havolasi yaroqsiz yoki buzilgan. Hech narsa o‘zgarmadi.</p>\n"
      "<h1 style=\"font-size:20px;margin:24px 0 12px;\">Invalid link</h1>\n"
      "<p>This unsubscribe link is not valid or was altered. Nothing was changed.</p>\n");
}

struct UnsubscribeLink {
  std::int64_t user_id = 0;
  channels::UnsubscribeScope scope;
  core::ChannelKind channel = core::ChannelKind::kEmail;
};

// A positive int64 in canonical decimal, else nullopt.
std::optional<std::int64_t> UserIn(const std::optional<std::string>& text) {
  if (!text || text->empty() || text->front() == '0' || text->size() > 19) return std::nullopt;
  std::int64_t value = 0;
  for (char c : *text) {
    if (c < '0' || c > '9') return std::nullopt;
    if (value > (INT64_MAX - (c - '0')) / 10) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

// The user of a preferences page link whose signature is right, else nullopt.
std::optional<std::int64_t> VerifiedPageUser(const Request& request, const std::string& secret) {
  const auto user = UserIn(request.query.Get("user"));
  const auto signature = request.query.Get("sig");
  if (!user || !signature ||
      !channels::VerifyUnsubscribe(secret, *user, kPreferencesScope, core::ChannelKind::kEmail,
                                   *signature)) {
    return std::nullopt;
  }
  return user;
}

// The link's values when its signature is right, else nullopt.
std::optional<UnsubscribeLink> VerifiedLink(const Request& request, const std::string& secret) {
  UnsubscribeLink link;
  const auto user = UserIn(request.query.Get("user"));
  const auto category = request.query.Get("category");
  const auto type = request.query.Get("type");
  const auto channel = request.query.Get("channel");
  const auto signature = request.query.Get("sig");
  if (!user || !channel || !signature || category.has_value() == type.has_value())
    return std::nullopt;
  link.user_id = *user;
  const auto kind = core::ParseChannel(*channel);
  if (!kind) return std::nullopt;
  link.channel = *kind;
  link.scope = category ? channels::UnsubscribeScope{"category", *category}
                        : channels::UnsubscribeScope{"type", *type};
  if (!channels::VerifyUnsubscribe(secret, link.user_id, link.scope, link.channel, *signature))
    return std::nullopt;
  return link;
}

struct ShowUnsubscribe {
  hub::UserService& users;
  std::string secret;
  Response operator()(const Request& request) const {
    const auto link = VerifiedLink(request, secret);
    if (!link) return Refused();
    const PageWords& words = PageWordsFor(users.GetPreferences(link->user_id).locale);
    const std::string action = channels::HtmlEscape(request.path + "?" + request.raw_query);
    return Page(
        200, words.lang, words.title,
        "<h1 style=\"font-size:20px;margin:0 0 12px;\">" + std::string(words.title) + "</h1>\n<p>" +
            words.question + " <strong>" + channels::HtmlEscape(link->scope.name) +
            "</strong>?</p>\n" + "<form method=\"post\" action=\"" + action +
            "\"><input type=\"hidden\" name=\"List-Unsubscribe\" value=\"One-Click\">"
            "<button type=\"submit\" style=\"padding:12px 20px;border:0;border-radius:6px;"
            "background:#2563eb;color:#fff;font-size:16px;font-weight:600;cursor:pointer;\">" +
            words.button + "</button></form>\n" + ManageLink(words, secret, link->user_id));
  }
};

struct Unsubscribe {
  hub::UserService& users;
  std::string secret;
  Response operator()(const Request& request) const {
    const auto link = VerifiedLink(request, secret);
    if (!link) return Refused();
    const std::string group = link->scope.kind == "category" ? "categories" : "types";
    const auto after = users.UpdatePreferences(link->user_id, [&](nlohmann::json preferences) {
      return hub::WithChannelOff(std::move(preferences), group, link->scope.name, link->channel);
    });
    const PageWords& words = PageWordsFor(after.locale);
    return Page(200, words.lang, words.title,
                "<h1 style=\"font-size:20px;margin:0 0 12px;\">" + std::string(words.title) +
                    "</h1>\n<p>" + words.done + " <strong>" +
                    channels::HtmlEscape(link->scope.name) + "</strong>.</p>\n<p>" + words.kept +
                    "</p>\n" + ManageLink(words, secret, link->user_id));
  }
};

// "email=on&tasks.email=on&shown=tasks" → its decoded pairs (a browser's
// form: a pair that does not decode was not sent by the page, and is left out).
std::vector<std::pair<std::string, std::string>> FormFields(std::string_view body) {
  return core::DecodeFormPairs(body, core::MalformedEscapes::kSkipPair)
      .value_or(std::vector<std::pair<std::string, std::string>>{});
}

// The categories the preferences page shows, and so the only ones it
// saves: the templates' and those the user has a setting for.
std::set<std::string> PageCategories(const templates::TemplateStore& templates,
                                     const nlohmann::json& preferences) {
  std::set<std::string> categories;
  for (std::string& name : templates.Categories()) categories.insert(std::move(name));
  if (const auto own = preferences.find("categories");
      own != preferences.end() && own->is_object()) {
    for (const auto& [name, value] : own->items()) categories.insert(name);
  }
  return categories;
}

// The page of a user's settings by category: a row per category (the
// templates' and the user's own), a checkbox per channel showing what the
// user gets now, saved by POSTing the form back.
struct PreferencesPage {
  hub::UserService& users;
  const templates::TemplateStore& templates;
  std::string secret;

  Response operator()(const Request& request) const {
    const auto user_id = VerifiedPageUser(request, secret);
    if (!user_id) return Refused();
    hub::UserService::Preferences current = users.GetPreferences(*user_id);
    bool saved = false;
    if (request.method == "POST") {
      std::set<std::string> shown, checked;
      for (const auto& [name, value] : FormFields(request.body)) {
        (name == "shown" ? shown : checked).insert(name == "shown" ? value : name);
      }
      current = users.UpdatePreferences(*user_id, [&](nlohmann::json preferences) {
        const std::set<std::string> known = PageCategories(templates, preferences);
        for (const std::string& category : shown) {
          if (!known.contains(category) || !templates::IsValidCategory(category)) continue;
          core::PerChannel<bool> wanted;
          for (core::ChannelKind kind : core::AllChannels()) {
            wanted[kind] = checked.contains(category + "." + std::string(core::ChannelName(kind)));
          }
          preferences = hub::WithCategoryChannels(std::move(preferences), category, wanted);
        }
        return preferences;
      });
      saved = true;
    }
    const std::set<std::string> categories = PageCategories(templates, current.preferences);

    const PageWords& words = PageWordsFor(current.locale);
    std::string inner =
        "<h1 style=\"font-size:20px;margin:0 0 12px;\">" + std::string(words.manage) + "</h1>\n";
    if (saved) inner += "<p style=\"color:#15803d;\">" + std::string(words.saved) + "</p>\n";
    if (categories.empty())
      return Page(200, words.lang, words.manage, inner + "<p>" + words.none + "</p>\n");
    inner += "<form method=\"post\" action=\"" +
             channels::HtmlEscape(request.path + "?" + request.raw_query) +
             "\">\n<table style=\"border-collapse:collapse;width:100%;\">\n<tr><th "
             "style=\"text-align:left;\">" +
             words.category + "</th>";
    for (core::ChannelKind kind : core::AllChannels()) {
      inner += "<th>" + std::string(core::ChannelName(kind)) + "</th>";
    }
    inner += "</tr>\n";
    for (const std::string& category : categories) {
      const std::string name = channels::HtmlEscape(category);
      inner += "<tr><td style=\"padding:6px 0;\">" + name +
               "<input type=\"hidden\" name=\"shown\" value=\"" + name + "\"></td>";
      for (core::ChannelKind kind : core::AllChannels()) {
        const bool on =
            hub::ChannelEnabled(current.preferences, kind, hub::PreferenceScope{"", category});
        inner += "<td style=\"text-align:center;\"><input type=\"checkbox\" name=\"" + name + "." +
                 std::string(core::ChannelName(kind)) + "\"" + (on ? " checked" : "") + "></td>";
      }
      inner += "</tr>\n";
    }
    inner +=
        "</table>\n<p><button type=\"submit\" style=\"padding:10px 18px;border:0;border-radius:6px;"
        "background:#2563eb;color:#fff;font-size:16px;cursor:pointer;\">" +
        std::string(words.save) + "</button></p>\n</form>\n";
    return Page(200, words.lang, words.manage, inner);
  }
};

}  // namespace

void RegisterPreferenceRoutes(Router& router, hub::UserService& users,
                              const templates::TemplateStore& templates, std::string inbox_secret) {
  router.Add("GET", "/v1/unsubscribe/preferences", Auth::kNone,
             PreferencesPage{users, templates, inbox_secret});
  router.Add("POST", "/v1/unsubscribe/preferences", Auth::kNone,
             PreferencesPage{users, templates, inbox_secret});
  router.Add("GET", "/v1/inbox/preferences", Auth::kSubscriber, GetInboxPreferences{users});
  router.Add("PUT", "/v1/inbox/preferences", Auth::kSubscriber, PutInboxPreferences{users});
  router.Add("GET", "/v1/unsubscribe", Auth::kNone, ShowUnsubscribe{users, inbox_secret});
  router.Add("POST", "/v1/unsubscribe", Auth::kNone, Unsubscribe{users, std::move(inbox_secret)});
}

}  // namespace chopar::http
