// Users' own preferences and one-click unsubscribe links (docs/api.md
// "Preferences by category and type").
#include "http/preference_routes.hpp"

#include "channels/render.hpp"
#include "channels/unsubscribe.hpp"
#include "core/request_error.hpp"
#include "http/message.hpp"
#include "hub/preferences.hpp"

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
  const char* done;  // before the scope's name
  const char* kept;  // after a one-click POST: what stays
};
constexpr PageWords kEnglishPage{"en",
                                 "Unsubscribe",
                                 "Stop emails about",
                                 "Unsubscribe",
                                 "You will no longer get emails about",
                                 "Your other notifications stay as they are."};
constexpr PageWords kUzbekPage{"uz",
                               "Obunani bekor qilish",
                               "Shu mavzudagi xatlar to‘xtatilsinmi:",
                               "Obunani bekor qilish",
                               "Endi sizga shu mavzuda xat kelmaydi:",
                               "Boshqa bildirishnomalaringiz o‘zgarmaydi."};

const PageWords& PageWordsFor(const std::string& locale) {
  return locale == "uz" || locale.starts_with("uz-") ? kUzbekPage : kEnglishPage;
}

Response Page(int status, const std::string& lang, const std::string& title,
              const std::string& inner) {
  Response response;
  response.status = status;
  response.content_type = "text/html; charset=utf-8";
  response.headers.emplace_back("Cache-Control", "no-store");
  response.headers.emplace_back("Referrer-Policy", "no-referrer");
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

// The link's values when its signature is right, else nullopt.
std::optional<UnsubscribeLink> VerifiedLink(const Request& request, const std::string& secret) {
  UnsubscribeLink link;
  const auto user = request.query.Get("user");
  const auto category = request.query.Get("category");
  const auto type = request.query.Get("type");
  const auto channel = request.query.Get("channel");
  const auto signature = request.query.Get("sig");
  if (!user || !channel || !signature || category.has_value() == type.has_value())
    return std::nullopt;
  try {
    std::size_t used = 0;
    link.user_id = std::stoll(*user, &used);
    if (used != user->size() || link.user_id <= 0) return std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
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
            words.button + "</button></form>\n");
  }
};

struct Unsubscribe {
  hub::UserService& users;
  std::string secret;
  Response operator()(const Request& request) const {
    const auto link = VerifiedLink(request, secret);
    if (!link) return Refused();
    const auto after =
        users.TurnOff(link->user_id, link->scope.kind == "category" ? "categories" : "types",
                      link->scope.name, link->channel);
    const PageWords& words = PageWordsFor(after.locale);
    return Page(200, words.lang, words.title,
                "<h1 style=\"font-size:20px;margin:0 0 12px;\">" + std::string(words.title) +
                    "</h1>\n<p>" + words.done + " <strong>" +
                    channels::HtmlEscape(link->scope.name) + "</strong>.</p>\n<p>" + words.kept +
                    "</p>\n");
  }
};

}  // namespace

void RegisterPreferenceRoutes(Router& router, hub::UserService& users, std::string inbox_secret) {
  router.Add("GET", "/v1/inbox/preferences", Auth::kSubscriber, GetInboxPreferences{users});
  router.Add("PUT", "/v1/inbox/preferences", Auth::kSubscriber, PutInboxPreferences{users});
  router.Add("GET", "/v1/unsubscribe", Auth::kNone, ShowUnsubscribe{users, inbox_secret});
  router.Add("POST", "/v1/unsubscribe", Auth::kNone, Unsubscribe{users, std::move(inbox_secret)});
}

}  // namespace chopar::http
