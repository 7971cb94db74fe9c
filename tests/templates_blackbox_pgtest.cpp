// Black-box, templates and preferences: the built `chopar serve` sending
// email to a fake SMTP server and Telegram to a fake Bot API (SMS and push
// go to the sink). One template in English and Uzbek with per-channel blocks
// reaches users in uz, en, uz-Cyrl and fr in the right language on every
// channel, escaped where the target is HTML; the Mustache specification's
// own test files pass through POST /v1/templates/preview; preferences by
// category and type decide the channels; and the unsubscribe link of a
// received email (read by Python's email package, not chopar's code) turns
// the category off for email in one POST, while a tampered link is refused.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "blackbox_support.hpp"
#include "core/json.hpp"
#include "core/process.hpp"
#include "testing/child_process.hpp"
#include "testing/fake_smtp_server.hpp"
#include "testing/fake_telegram.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

using core::ParseJsonOrDiscarded;
using testing::Api;
using testing::ChildProcess;
using testing::FreeLoopbackPort;
using testing::WaitUntil;
using namespace std::chrono_literals;
using nlohmann::json;

constexpr char kApiKey[] = "templates-key";
constexpr char kBotToken[] = "123456:AAH-fake-token";
constexpr char kHostile[] = "<b>&\"";  // a value that must be escaped in HTML

// One template, two languages, a block per channel (docs/api.md "Templates
// and localization").
const json kTaskDue = {
    {"category", "tasks"},
    {"default_locale", "en"},
    {"locales",
     {{"en",
       {{"title", "Task due: {{task.title}}"},
        {"body", "Due at {{task.due}}"},
        {"email",
         {{"subject", "Due soon: {{task.title}}"},
          {"html", "<p>Your task <strong>{{task.title}}</strong> is due at {{task.due}}.</p>"},
          {"text", "Your task {{task.title}} is due at {{task.due}}."}}},
        {"telegram", {{"text", "<b>{{task.title}}</b> is due at {{task.due}}"}}},
        {"push", {{"title", "{{task.title}}"}, {"body", "Due at {{task.due}}"}}},
        {"sms", {{"text", "Task {{task.title}}: due {{task.due}}"}}}}},
      {"uz",
       {{"title", "Muddat yaqin: {{task.title}}"},
        {"body", "{{task.due}} gacha"},
        {"email",
         {{"subject", "Muddat yaqin: {{task.title}}"},
          {"html", "<p><strong>{{task.title}}</strong> vazifasi {{task.due}} gacha.</p>"}}},
        {"telegram", {{"text", "<b>{{task.title}}</b> vazifasi {{task.due}} gacha"}}},
        {"sms", {{"text", "Vazifa {{task.title}}: {{task.due}} gacha"}}}}}}}};

class TemplatesBlackBox : public testing::ServeBlackBox {
 protected:
  TemplatesBlackBox() : ServeBlackBox(kApiKey) {}

  void SetUp() override {
    ServeBlackBox::SetUp();
    if (IsSkipped()) return;
    serve_ = StartServe("serve.log",
                        {{"CHOPAR_SERVER_INBOX_SECRET", "inbox-secret-for-tests"},
                         {"CHOPAR_SERVER_PUBLIC_URL", base()},
                         {"CHOPAR_CHANNELS_EMAIL_PROVIDER", "smtp"},
                         {"CHOPAR_CHANNELS_EMAIL_SMTP_URL", smtp_.url()},
                         {"CHOPAR_CHANNELS_EMAIL_FROM", "chopar <noreply@chopar.example.uz>"},
                         {"CHOPAR_CHANNELS_TELEGRAM_PROVIDER", "telegram"},
                         {"CHOPAR_CHANNELS_TELEGRAM_BOT_TOKEN", kBotToken},
                         {"CHOPAR_CHANNELS_TELEGRAM_API_BASE", bot_.url()},
                         {"CHOPAR_CHANNELS_TELEGRAM_UPDATES", "off"}});
    ASSERT_TRUE(WaitUntil([&] { return api_->Healthy(); }, 60s)) << serve_->Output();
  }

  [[nodiscard]] std::string base() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // A user with an email address, a phone, SMS on and, when `chat` is not 0,
  // a Telegram chat.
  void MakeUser(std::int64_t id, const std::string& locale, std::int64_t chat,
                json preferences = {{"sms", true}}) {
    const std::string path = "/v1/users/" + std::to_string(id);
    const auto put = api_->Call("PUT", path,
                                {{"email", "user" + std::to_string(id) + "@example.uz"},
                                 {"phone", "+99890123456" + std::to_string(id % 10)},
                                 {"locale", locale},
                                 {"preferences", std::move(preferences)}});
    ASSERT_EQ(put.status, 200) << put.body;
    if (chat != 0) {
      ASSERT_EQ(api_->Call("PUT", path + "/telegram", {{"chat_id", chat}}).status, 200);
    }
  }

  json Notify(const json& body) {
    const auto created = api_->Call("POST", "/v1/notifications", body);
    EXPECT_EQ(created.status, 201) << created.body;
    return ParseJsonOrDiscarded(created.body);
  }

  // The notification once every delivery reached a final status.
  json Settled(std::int64_t id) {
    json notification;
    const bool done = WaitUntil(
        [&] {
          notification = ParseJsonOrDiscarded(
              api_->Call("GET", "/v1/notifications/" + std::to_string(id)).body);
          if (!notification.contains("deliveries")) return false;
          for (const json& d : notification["deliveries"]) {
            if (d["status"] == "queued" || d["status"] == "sending") return false;
          }
          return true;
        },
        30s);
    EXPECT_TRUE(done) << notification.dump() << "\n" << serve_->Output();
    return notification;
  }

  // The email sent to `address`, parsed by Python's email package.
  json ReceivedEmail(const std::string& address) {
    for (const auto& message : smtp_.messages()) {
      if (message.rcpt_to != std::vector<std::string>{address}) continue;
      const auto in = dir_ / ("mail-" + address + ".eml");
      const auto out = dir_ / ("mail-" + address + ".json");
      std::ofstream(in, std::ios::binary) << message.data;
      EXPECT_EQ(core::RunProcess({"python3", std::string(CHOPAR_TESTS_DIR) + "/parse_email.py",
                                  in.string(), out.string()}),
                0);
      std::ifstream parsed(out);
      return json::parse(parsed);
    }
    ADD_FAILURE() << "no email to " << address;
    return json::object();
  }

  // The text the fake Bot API got for `chat`.
  std::string TelegramText(std::int64_t chat) {
    for (const auto& arrival : bot_.arrivals()) {
      if (arrival.body.value("chat_id", std::int64_t{0}) == chat)
        return arrival.body.value("text", "");
    }
    ADD_FAILURE() << "no Telegram message to chat " << chat;
    return "";
  }

  // A request without the server key (a browser, a mail client).
  net::HttpResponse Plain(const std::string& method, const std::string& url,
                          std::vector<std::string> headers = {}, std::string body = "") {
    net::HttpRequest request;
    request.method = method;
    request.url = url;
    request.headers = std::move(headers);
    request.body = std::move(body);
    request.timeout = 10s;
    return client_.Perform(request);
  }

  testing::FakeSmtpServer smtp_;
  std::atomic<int> last_message_id_{0};
  testing::FakeTelegram bot_{[this](const json&) { return testing::BotOk(++last_message_id_); }};
  std::unique_ptr<ChildProcess> serve_;
  net::HttpClient client_;
};

TEST_F(TemplatesBlackBox, MustacheSpecFilesPassThroughPreview) {
  int cases = 0;
  for (const char* file : {"interpolation", "sections", "inverted", "comments", "delimiters"}) {
    std::ifstream in(std::string(CHOPAR_TESTS_DIR) + "/data/mustache-spec/specs/" + file + ".json");
    ASSERT_TRUE(in.good()) << file;
    const json spec = json::parse(in);
    for (const json& test : spec["tests"]) {
      ++cases;
      // email.html: the HTML-escaped target the spec's {{x}} assumes; a
      // case's partials given inline.
      const auto preview =
          api_->Call("POST", "/v1/templates/preview",
                     {{"template", {{"title", "spec"}, {"email", {{"html", test["template"]}}}}},
                      {"partials", test.value("partials", json::object())},
                      {"data", test["data"]}});
      ASSERT_EQ(preview.status, 200) << file << ": " << test["name"] << ": " << preview.body;
      EXPECT_EQ(ParseJsonOrDiscarded(preview.body)["email"]["html"], test["expected"])
          << file << ": " << test["name"].get<std::string>() << " — "
          << test["desc"].get<std::string>();
    }
  }
  EXPECT_GT(cases, 100);
}

TEST_F(TemplatesBlackBox, TemplatesAreStoredValidatedAndPreviewed) {
  const auto put = api_->Call("PUT", "/v1/templates/task.due", kTaskDue);
  ASSERT_EQ(put.status, 200) << put.body;
  json stored = ParseJsonOrDiscarded(put.body);
  EXPECT_EQ(stored["type"], "task.due");
  EXPECT_EQ(stored["locales"], kTaskDue["locales"]);
  EXPECT_EQ(stored["digest"], nullptr);
  EXPECT_EQ(ParseJsonOrDiscarded(api_->Call("GET", "/v1/templates/task.due").body)["locales"],
            kTaskDue["locales"]);
  EXPECT_EQ(ParseJsonOrDiscarded(api_->Call("GET", "/v1/templates").body)["items"].size(), 1u);

  // Workflow settings are kept as given; they must be objects or null.
  json with_digest = kTaskDue;
  with_digest["digest"] = {{"window_seconds", 600}};
  EXPECT_EQ(
      ParseJsonOrDiscarded(api_->Call("PUT", "/v1/templates/task.due", with_digest).body)["digest"],
      json({{"window_seconds", 600}}));
  with_digest["throttle"] = 3;
  EXPECT_EQ(ParseJsonOrDiscarded(
                api_->Call("PUT", "/v1/templates/task.due", with_digest).body)["error"]["field"],
            "throttle");

  // A template that does not parse: 400 naming the field and the position.
  json broken = kTaskDue;
  broken["locales"]["uz"]["email"]["html"] = "<p>\n{{#task}}{{title}}</p>";
  const auto refused = api_->Call("PUT", "/v1/templates/task.due", broken);
  EXPECT_EQ(refused.status, 400);
  const json error = ParseJsonOrDiscarded(refused.body)["error"];
  EXPECT_EQ(error["code"], "invalid_field");
  EXPECT_EQ(error["field"], "locales.uz.email.html");
  EXPECT_NE(error["message"].get<std::string>().find("line 2, column 1"), std::string::npos)
      << error.dump();
  EXPECT_EQ(ParseJsonOrDiscarded(api_->Call("GET", "/v1/templates/task.due").body)["locales"],
            kTaskDue["locales"])
      << "nothing was written";

  // Preview: the stored template in a locale, each target escaped as its own.
  MakeUser(5, "uz-Cyrl", 0);
  const auto preview = api_->Call("POST", "/v1/templates/preview",
                                  {{"type", "task.due"},
                                   {"user_id", 5},
                                   {"data", {{"task", {{"title", kHostile}, {"due", "18:00"}}}}}});
  ASSERT_EQ(preview.status, 200) << preview.body;
  EXPECT_EQ(
      ParseJsonOrDiscarded(preview.body),
      json({{"title", std::string("Muddat yaqin: ") + kHostile},
            {"body", "18:00 gacha"},
            {"email",
             {{"subject", std::string("Muddat yaqin: ") + kHostile},
              {"html", "<p><strong>&lt;b&gt;&amp;&quot;</strong> vazifasi 18:00 gacha.</p>"}}},
            {"telegram", {{"text", "<b>&lt;b&gt;&amp;&quot;</b> vazifasi 18:00 gacha"}}},
            {"sms", {{"text", std::string("Vazifa ") + kHostile + ": 18:00 gacha"}}}}));
  EXPECT_EQ(ParseJsonOrDiscarded(api_->Call("POST", "/v1/templates/preview",
                                            {{"template",
                                              {{"title", "{{{raw}}} {{&raw}} {{raw}}"},
                                               {"telegram", {{"text", "{{{raw}}} {{raw}}"}}}}},
                                             {"data", {{"raw", "<i>"}}}})
                                     .body),
            json({{"title", "<i> <i> <i>"}, {"telegram", {{"text", "<i> &lt;i&gt;"}}}}));

  ASSERT_EQ(api_->Call("DELETE", "/v1/templates/task.due").status, 204);
  EXPECT_EQ(api_->Call("GET", "/v1/templates/task.due").status, 404);
  EXPECT_EQ(api_->Call("DELETE", "/v1/templates/task.due").status, 404);
  const auto untitled =
      api_->Call("POST", "/v1/notifications", {{"user_id", 5}, {"type", "task.due"}});
  EXPECT_EQ(untitled.status, 400) << "no template any more, and no title";
  EXPECT_EQ(ParseJsonOrDiscarded(untitled.body)["error"]["field"], "title");
}

TEST_F(TemplatesBlackBox, EveryUserGetsTheirLanguageOnEveryChannel) {
  ASSERT_EQ(api_->Call("PUT", "/v1/templates/task.due", kTaskDue).status, 200);
  const std::map<std::int64_t, std::string> locales = {
      {1, "uz"}, {2, "en"}, {3, "uz-Cyrl"}, {4, "fr"}};
  std::map<std::int64_t, std::int64_t> notification_of;
  for (const auto& [user, locale] : locales) {
    MakeUser(user, locale, 900000000 + user);
    const json created = Notify({{"user_id", user},
                                 {"type", "task.due"},
                                 {"link", "/tasks/7"},
                                 {"data", {{"task", {{"title", kHostile}, {"due", "18:00"}}}}}});
    EXPECT_EQ(created["channels"], json({"email", "telegram", "sms"}));
    notification_of[user] = created["id"];
  }
  const std::string hostile(kHostile);
  const std::string escaped = "&lt;b&gt;&amp;&quot;";
  for (const auto& [user, locale] : locales) {
    SCOPED_TRACE(locale);
    const bool uzbek = locale.starts_with("uz");
    const json notification = Settled(notification_of[user]);
    for (const json& d : notification["deliveries"]) EXPECT_EQ(d["status"], "sent") << d.dump();

    // In-app: verbatim, in the user's language.
    EXPECT_EQ(notification["title"], (uzbek ? "Muddat yaqin: " : "Task due: ") + hostile);
    EXPECT_EQ(notification["body"], uzbek ? "18:00 gacha" : "Due at 18:00");

    // Email: the subject verbatim, the HTML block escaped inside the layout,
    // the text part verbatim (en has its own; uz falls back to title/body).
    const json email = ReceivedEmail("user" + std::to_string(user) + "@example.uz");
    EXPECT_EQ(email["defects"], json::array()) << email.dump();
    EXPECT_EQ(email["headers"]["subject"], (uzbek ? "Muddat yaqin: " : "Due soon: ") + hostile);
    const std::string html = email["parts"]["text/html"];
    EXPECT_NE(
        html.find(uzbek ? "<p><strong>" + escaped + "</strong> vazifasi 18:00 gacha.</p>"
                        : "<p>Your task <strong>" + escaped + "</strong> is due at 18:00.</p>"),
        std::string::npos)
        << html;
    EXPECT_EQ(html.find(hostile), std::string::npos) << "nothing unescaped in the HTML";
    EXPECT_NE(html.find("href=\"" + base() + "/tasks/7\""), std::string::npos)
        << "the link as a button";
    EXPECT_NE(html.find(uzbek ? ">Ochish</a>" : ">Open</a>"), std::string::npos) << html;
    EXPECT_NE(html.find("name=\"viewport\""), std::string::npos) << "a responsive layout";
    const std::string text = email["parts"]["text/plain"];
    EXPECT_TRUE(text.starts_with(uzbek ? "Muddat yaqin: " + hostile + "\n\n18:00 gacha"
                                       : "Your task " + hostile + " is due at 18:00."))
        << text;

    // Telegram (HTML parse mode): escaped, in the user's language.
    const std::string telegram = TelegramText(900000000 + user);
    EXPECT_TRUE(telegram.starts_with(uzbek ? "<b>" + escaped + "</b> vazifasi 18:00 gacha"
                                           : "<b>" + escaped + "</b> is due at 18:00"))
        << telegram;

    // SMS (the sink records the text as sent, the link last): verbatim, in
    // the user's language.
    EXPECT_EQ(
        db_->Scalar("SELECT body FROM chopar.sink_messages WHERE channel = 'sms' AND user_id = " +
                    std::to_string(user)),
        (uzbek ? "Vazifa " + hostile + ": 18:00 gacha" : "Task " + hostile + ": due 18:00") + " " +
            base() + "/tasks/7");
  }

  // A request's own title and body win over the template's, everywhere: the
  // SMS is then "title: body".
  const json own = Notify({{"user_id", 1},
                           {"type", "task.due"},
                           {"title", "O'z sarlavham"},
                           {"body", "O'z matnim"},
                           {"channels", {"sms"}},
                           {"data", {{"task", {{"title", "x"}, {"due", "y"}}}}}});
  const json settled = Settled(own["id"]);
  EXPECT_EQ(settled["title"], "O'z sarlavham");
  EXPECT_EQ(
      db_->Scalar("SELECT subject || ' | ' || body FROM chopar.sink_messages WHERE channel = 'sms' "
                  "ORDER BY id DESC LIMIT 1"),
      "O'z sarlavham | O'z sarlavham: O'z matnim");
}

TEST_F(TemplatesBlackBox, RenderingTooLongFailsThatDeliveryOnly) {
  json big = kTaskDue;
  big["locales"]["en"]["sms"]["text"] = "{{#items}}{{.}}{{/items}}";
  ASSERT_EQ(api_->Call("PUT", "/v1/templates/task.due", big).status, 200);
  MakeUser(2, "en", 900000002);
  const json created =
      Notify({{"user_id", 2},
              {"type", "task.due"},
              {"data",
               {{"task", {{"title", "T"}, {"due", "D"}}},
                {"items", json::array({std::string(1500, 'x'), std::string(1500, 'y')})}}}});
  EXPECT_EQ(created["channels"], json({"email", "telegram", "sms"}));
  const json notification = Settled(created["id"]);
  for (const json& d : notification["deliveries"]) {
    if (d["channel"] == "sms") {
      EXPECT_EQ(d["status"], "failed");
      EXPECT_NE(d["last_error"].get<std::string>().find("sms.text rendered 3000 bytes"),
                std::string::npos)
          << d.dump();
    } else {
      EXPECT_EQ(d["status"], "sent") << d.dump();
    }
  }
}

// `levels` sections of `a` nested, `inner` in the innermost, and a list of
// 300 items for them: 300^levels times `inner`.
std::string NestedSections(int levels, const std::string& inner) {
  std::string source;
  for (int i = 0; i < levels; ++i) source += "{{#a}}";
  source += inner;
  for (int i = 0; i < levels; ++i) source += "{{/a}}";
  return source;
}
json ThreeHundredItems() {
  json list = json::array();
  for (int i = 0; i < 300; ++i) list.push_back(i);
  return list;
}

TEST_F(TemplatesBlackBox, NestedSectionsBombIsRefusedOnPreviewAndNotify) {
  // 3 levels would render 270 MB: the preview is stopped at the body's limit.
  const auto preview =
      api_->Call("POST", "/v1/templates/preview",
                 {{"template", {{"title", "t"}, {"body", NestedSections(3, "0123456789")}}},
                  {"data", {{"a", ThreeHundredItems()}}}});
  EXPECT_EQ(preview.status, 400) << preview.body;
  json error = ParseJsonOrDiscarded(preview.body)["error"];
  EXPECT_EQ(error["code"], "invalid_field");
  EXPECT_EQ(error["field"], "data");
  EXPECT_NE(error["message"].get<std::string>().find("template body stopped at "),
            std::string::npos)
      << error.dump();

  // A title that writes nothing while it loops 27 million times: stopped at
  // the step budget, and the notification is refused.
  json bomb = kTaskDue;
  bomb["locales"]["en"]["title"] = "x" + NestedSections(3, "");
  ASSERT_EQ(api_->Call("PUT", "/v1/templates/task.due", bomb).status, 200);
  MakeUser(3, "en", 0);
  const auto refused =
      api_->Call("POST", "/v1/notifications",
                 {{"user_id", 3}, {"type", "task.due"}, {"data", {{"a", ThreeHundredItems()}}}});
  EXPECT_EQ(refused.status, 400) << refused.body;
  error = ParseJsonOrDiscarded(refused.body)["error"];
  EXPECT_EQ(error["field"], "data");
  EXPECT_NE(error["message"].get<std::string>().find("template title stopped after 100001 steps"),
            std::string::npos)
      << error.dump();
  EXPECT_EQ(ParseJsonOrDiscarded(api_->Call("GET", "/v1/users/3/notifications").body)["items"],
            json::array())
      << "nothing was created";
}

TEST_F(TemplatesBlackBox, PreferencesByCategoryAndTypeDecideTheChannels) {
  ASSERT_EQ(api_->Call("PUT", "/v1/templates/task.due", kTaskDue).status, 200);
  struct Case {
    const char* name;
    json preferences;
    bool critical;
    json channels;
  };
  const std::vector<Case> cases = {
      {"category off", {{"categories", {{"tasks", false}}}}, false, json::array()},
      {"category-channel off",
       {{"categories", {{"tasks", {{"email", false}}}}}},
       false,
       {"telegram"}},
      {"type-channel off", {{"types", {{"task.due", {{"telegram", false}}}}}}, false, {"email"}},
      // A type on is every channel on, SMS too (the most specific setting wins).
      {"type on beats category off",
       {{"categories", {{"tasks", false}}}, {"types", {{"task.due", true}}}},
       false,
       {"email", "telegram", "sms"}},
      // Critical: every addressable channel, SMS too, whatever the preferences say.
      {"critical bypasses",
       {{"email", false}, {"categories", {{"tasks", false}}}},
       true,
       {"email", "telegram", "sms"}},
  };
  std::int64_t user = 10;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ++user;
    MakeUser(user, "en", 900000000 + user, c.preferences);
    const json created = Notify({{"user_id", user},
                                 {"type", "task.due"},
                                 {"critical", c.critical},
                                 {"data", {{"task", {{"title", "T"}, {"due", "D"}}}}}});
    EXPECT_EQ(created["channels"], c.channels);
    EXPECT_EQ(ParseJsonOrDiscarded(api_->Call("GET", "/v1/users/" + std::to_string(user) +
                                                         "/notifications/unread-count")
                                       .body),
              json({{"count", 1}}))
        << "the in-app row is always stored";
  }

  // A type without a template takes the request's category.
  ++user;
  MakeUser(user, "en", 900000000 + user, {{"categories", {{"marketing", false}}}});
  EXPECT_EQ(Notify({{"user_id", user},
                    {"type", "promo.sale"},
                    {"title", "Sale"},
                    {"category", "marketing"}})["channels"],
            json::array());
  EXPECT_EQ(Notify({{"user_id", user}, {"type", "promo.sale"}, {"title", "Sale"}})["channels"],
            json({"email", "telegram"}));

  // Users set their own, with their subscriber token.
  const std::string token = ParseJsonOrDiscarded(
      api_->Call("GET", "/v1/users/" + std::to_string(user) + "/token").body)["token"];
  const std::vector<std::string> auth = {"Authorization: Bearer " + token,
                                         "Content-Type: application/json"};
  const auto put = Plain("PUT", base() + "/v1/inbox/preferences", auth,
                         json({{"types", {{"promo.sale", {{"telegram", false}}}}}}).dump());
  ASSERT_EQ(put.status, 200) << put.body;
  const json mine = {{"categories", {{"marketing", false}}},
                     {"types", {{"promo.sale", {{"telegram", false}}}}}};
  EXPECT_EQ(ParseJsonOrDiscarded(put.body), mine);
  EXPECT_EQ(ParseJsonOrDiscarded(Plain("GET", base() + "/v1/inbox/preferences", auth).body), mine);
  EXPECT_EQ(Notify({{"user_id", user}, {"type", "promo.sale"}, {"title", "Sale"}})["channels"],
            json({"email"}));
  const auto bad = Plain("PUT", base() + "/v1/inbox/preferences", auth,
                         json({{"categories", {{"tasks", {{"fax", false}}}}}}).dump());
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(ParseJsonOrDiscarded(bad.body)["error"]["field"], "categories.tasks.fax");
  EXPECT_EQ(Plain("GET", base() + "/v1/inbox/preferences").status, 401);
}

TEST_F(TemplatesBlackBox, OneClickUnsubscribeFromTheReceivedEmail) {
  ASSERT_EQ(api_->Call("PUT", "/v1/templates/task.due", kTaskDue).status, 200);
  MakeUser(1, "uz", 0, json::object());
  MakeUser(2, "uz", 0, json::object());
  Settled(Notify({{"user_id", 1},
                  {"type", "task.due"},
                  {"data", {{"task", {{"title", "T"}, {"due", "D"}}}}}})["id"]);

  const json email = ReceivedEmail("user1@example.uz");
  EXPECT_EQ(email["headers"]["list-unsubscribe-post"], "List-Unsubscribe=One-Click");
  const std::string header = email["headers"]["list-unsubscribe"];
  ASSERT_TRUE(header.starts_with("<") && header.ends_with(">")) << header;
  const std::string url = header.substr(1, header.size() - 2);
  EXPECT_TRUE(url.starts_with(base() + "/v1/unsubscribe?user=1&category=tasks&channel=email&sig="))
      << url;
  EXPECT_NE(email["parts"]["text/html"].get<std::string>().find(url.substr(url.find("sig="))),
            std::string::npos)
      << "the footer links to the same place";

  // Tampered: another user, another category, another signature. Nothing changes.
  const std::string sig = url.substr(url.find("sig=") + 4);
  for (const std::string& forged :
       {std::regex_replace(url, std::regex("user=1&"), "user=2&"),
        std::regex_replace(url, std::regex("category=tasks"), "category=billing"),
        url.substr(0, url.size() - 1) + (url.back() == 'A' ? "B" : "A"),
        url.substr(0, url.find("&sig="))}) {
    SCOPED_TRACE(forged);
    EXPECT_EQ(Plain("POST", forged, {"Content-Type: application/x-www-form-urlencoded"},
                    "List-Unsubscribe=One-Click")
                  .status,
              403);
    EXPECT_EQ(Plain("GET", forged).status, 403);
  }
  EXPECT_EQ(ParseJsonOrDiscarded(api_->Call("GET", "/v1/users/2").body)["preferences"],
            json::object());
  EXPECT_EQ(ParseJsonOrDiscarded(api_->Call("GET", "/v1/users/1").body)["preferences"],
            json::object());

  // GET: a page in the user's language with a button that posts back.
  const auto page = Plain("GET", url);
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("<html lang=\"uz\">"), std::string::npos) << page.body;
  EXPECT_NE(page.body.find("<form method=\"post\""), std::string::npos) << page.body;
  EXPECT_EQ(ParseJsonOrDiscarded(api_->Call("GET", "/v1/users/1").body)["preferences"],
            json::object())
      << "GET changes nothing";

  // POST, as a mail client does for RFC 8058: email off for the category, at once.
  const auto done = Plain("POST", url, {"Content-Type: application/x-www-form-urlencoded"},
                          "List-Unsubscribe=One-Click");
  EXPECT_EQ(done.status, 200) << done.body;
  EXPECT_EQ(ParseJsonOrDiscarded(api_->Call("GET", "/v1/users/1").body)["preferences"],
            json({{"categories", {{"tasks", {{"email", false}}}}}}));
  EXPECT_EQ(Notify({{"user_id", 1},
                    {"type", "task.due"},
                    {"data", {{"task", {{"title", "T"}, {"due", "D"}}}}}})["channels"],
            json::array());
  EXPECT_EQ(Notify({{"user_id", 1}, {"type", "other.news"}, {"title", "News"}})["channels"],
            json({"email"}))
      << "other categories keep their email";
}

// A notification in a tenant (docs/tenants-and-access.md): the tenant's own
// template of the type says it, and the email carries the tenant's branding
// — its sender name as the From display name, its logo, colour and footer —
// while a notification outside the tenant is as before.
TEST_F(TemplatesBlackBox, ATenantsTemplateAndBrandingShapeItsEmailAndBell) {
  const auto tenant = api_->Call("PUT", "/v1/tenants/acme",
                                 {{"name", "Acme"},
                                  {"branding",
                                   {{"sender_name", "Acme Support"},
                                    {"logo_url", "https://acme.example/logo.png"},
                                    {"primary_color", "#ff5500"},
                                    {"footer", "Acme Inc., 1 Main St"}}}});
  ASSERT_LT(tenant.status, 300) << tenant.body;
  ASSERT_EQ(api_->Call("PUT", "/v1/templates/task.due", kTaskDue).status, 200);
  json own = kTaskDue;
  own["locales"]["en"]["email"]["subject"] = "Acme: {{task.title}}";
  own["locales"]["en"]["title"] = "Acme task: {{task.title}}";
  const auto put = api_->Call("PUT", "/v1/templates/task.due?tenant=acme", own);
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(ParseJsonOrDiscarded(put.body)["tenant"], "acme");

  MakeUser(1, "en", 0, {{"email", true}});
  MakeUser(2, "en", 0, {{"email", true}});
  ASSERT_EQ(api_->Call("PUT", "/v1/users/1", {{"tenants", {"acme"}}}).status, 200);
  const json data = {{"task", {{"title", "Report"}, {"due", "18:00"}}}};
  const json in_acme = Notify(
      {{"user_id", 1}, {"type", "task.due"}, {"data", data}, {"tenant", "acme"}, {"link", "/t/1"}});
  const json outside =
      Notify({{"user_id", 2}, {"type", "task.due"}, {"data", data}, {"link", "/t/1"}});
  Settled(in_acme["id"]);
  Settled(outside["id"]);

  const json branded = ReceivedEmail("user1@example.uz");
  EXPECT_EQ(branded["headers"]["subject"], "Acme: Report");
  EXPECT_NE(branded["headers"]["from"].get<std::string>().find("Acme Support"), std::string::npos)
      << branded["headers"]["from"];
  EXPECT_NE(branded["headers"]["from"].get<std::string>().find("noreply@chopar.example.uz"),
            std::string::npos)
      << "the address stays the deployment's";
  const std::string html = branded["parts"]["text/html"];
  EXPECT_NE(html.find("https://acme.example/logo.png"), std::string::npos) << html;
  EXPECT_NE(html.find("background:#ff5500"), std::string::npos) << html;
  EXPECT_NE(html.find("Acme Inc., 1 Main St"), std::string::npos) << html;
  EXPECT_NE(branded["parts"]["text/plain"].get<std::string>().find("Acme Inc., 1 Main St"),
            std::string::npos);

  const json plain = ReceivedEmail("user2@example.uz");
  EXPECT_EQ(plain["headers"]["subject"], "Due soon: Report");
  EXPECT_EQ(plain["headers"]["from"].get<std::string>().find("Acme"), std::string::npos);
  const std::string plain_html = plain["parts"]["text/html"];
  EXPECT_EQ(plain_html.find("acme.example"), std::string::npos);
  EXPECT_EQ(plain_html.find("Acme Inc."), std::string::npos);

  // The bell: the item names its tenant, which the user's token may read.
  const auto token = ParseJsonOrDiscarded(api_->Call("GET", "/v1/users/1/token").body)["token"];
  const std::vector<std::string> bearer = {"Authorization: Bearer " + token.get<std::string>()};
  const auto inbox = Plain("GET", base() + "/v1/inbox/notifications?tenant=acme", bearer);
  ASSERT_EQ(inbox.status, 200) << inbox.body;
  const json items = ParseJsonOrDiscarded(inbox.body)["items"];
  ASSERT_EQ(items.size(), 1u) << inbox.body;
  EXPECT_EQ(items[0]["tenant"], "acme");
  EXPECT_EQ(items[0]["title"], "Acme task: Report");
  const auto shown = Plain("GET", base() + "/v1/inbox/tenants/acme", bearer);
  ASSERT_EQ(shown.status, 200) << shown.body;
  EXPECT_EQ(ParseJsonOrDiscarded(shown.body)["branding"]["primary_color"], "#ff5500");
}

}  // namespace
}  // namespace chopar
