#include "templates/template.hpp"

#include <gtest/gtest.h>

#include "core/request_error.hpp"
#include "templates/rendering.hpp"

namespace chopar::templates {
namespace {

using nlohmann::json;

const json kValid = {
    {"category", "tasks"},
    {"default_locale", "en"},
    {"locales",
     {{"en",
       {{"title", "Task due: {{task.title}}"},
        {"email",
         {{"subject", "{{task.title}}"}, {"html", "<p>{{task.title}} {{{task.title}}}</p>"}}},
        {"telegram", {{"text", "<b>{{task.title}}</b>"}}},
        {"sms", {{"text", "{{task.title}}"}}}}},
      {"uz", {{"title", "Muddat: {{task.title}}"}, {"body", "{{task.due}} gacha"}}},
      {"uz-Cyrl", {{"title", "Муддат: {{task.title}}"}}}}},
    {"digest", {{"window_seconds", 600}}}};

// The field a body is refused for, or "accepted".
std::string FieldOf(const json& body) {
  try {
    ParseTemplate("task.due", body);
  } catch (const core::RequestError& e) {
    return e.field().value_or("(none)");
  }
  return "accepted";
}

json With(const json& base, const json::json_pointer& at, json value) {
  json out = base;
  out[at] = std::move(value);
  return out;
}

TEST(Template, ParsesAndShowsWhatWasStored) {
  const Template t = ParseTemplate("task.due", kValid);
  EXPECT_EQ(t.category, "tasks");
  json locales = json::object();
  for (const auto& [locale, texts] : t.locales) locales[locale] = texts.Sources();
  EXPECT_EQ(locales, kValid["locales"]);
  EXPECT_EQ(t.digest, kValid["digest"]);
  EXPECT_EQ(t.throttle, nullptr);
  EXPECT_EQ(t.type, "task.due");
}

TEST(Template, RefusesWhatIsNotATemplateNamingTheField) {
  using P = json::json_pointer;
  EXPECT_EQ(FieldOf(With(kValid, P("/locales/en/title"), "{{#task}}")), "locales.en.title");
  EXPECT_EQ(FieldOf(With(kValid, P("/locales/uz/email"), {{"html", "{{/x}}"}})),
            "locales.uz.email.html");
  EXPECT_EQ(FieldOf(With(kValid, P("/locales/uz/email"), {{"fax", "x"}})), "locales.uz.email.fax");
  EXPECT_EQ(FieldOf(With(kValid, P("/locales/uz/fax"), "x")), "locales.uz.fax");
  EXPECT_EQ(FieldOf(With(kValid, P("/locales/uz/body"), 5)), "locales.uz.body");
  EXPECT_EQ(FieldOf(With(kValid, P("/locales/uz"), {{"body", "x"}})), "locales.uz.title");
  EXPECT_EQ(FieldOf(With(kValid, P("/locales/UZ"), {{"title", "x"}})), "locales.UZ");
  EXPECT_EQ(FieldOf(With(kValid, P("/locales/en/sms/text"), std::string(2001, 'x'))),
            "locales.en.sms.text");
  EXPECT_EQ(FieldOf(With(kValid, P("/default_locale"), "ru")), "default_locale");
  EXPECT_EQ(FieldOf(With(kValid, P("/category"), "Tasks")), "category");
  // The grammar of types and categories, which the database's CHECK holds
  // too: '_' only after the first segment.
  EXPECT_EQ(FieldOf(With(kValid, P("/category"), "my_news")), "category");
  EXPECT_EQ(ParseTemplate("task.due", With(kValid, P("/category"), "news._x")).category, "news._x");
  EXPECT_EQ(FieldOf(With(kValid, P("/throttle"), json::array())), "throttle");
  EXPECT_EQ(FieldOf(With(kValid, P("/type"), "other.type")), "type");
  EXPECT_EQ(FieldOf(With(kValid, P("/nickname"), "x")), "nickname");
  EXPECT_EQ(FieldOf(With(kValid, P("/locales"), json::object())), "locales");
  EXPECT_EQ(FieldOf(With(kValid, P("/type"), "task.due")), "accepted");
  EXPECT_EQ(FieldOf(With(kValid, P("/escalate"), nullptr)), "accepted");
}

TEST(Template, SyntaxErrorsSayLineAndColumn) {
  try {
    ParseTemplate("task.due", With(kValid, json::json_pointer("/locales/uz/body"),
                                   "Salom\n  {{#a}} o‘rta {{b"));
    FAIL() << "accepted";
  } catch (const core::RequestError& e) {
    EXPECT_EQ(e.field(), "locales.uz.body");
    EXPECT_EQ(std::string(e.what()), "locales.uz.body: Unclosed tag at line 2, column 16");
  }
}

TEST(Template, LocaleFallsBackToItsLanguageThenTheDefault) {
  const Template t = ParseTemplate("task.due", kValid);
  EXPECT_EQ(t.ResolveLocale("uz"), "uz");
  EXPECT_EQ(t.ResolveLocale("uz-Cyrl"), "uz-Cyrl");
  EXPECT_EQ(t.ResolveLocale("uz-Latn"), "uz");
  EXPECT_EQ(t.ResolveLocale("en-US"), "en");
  EXPECT_EQ(t.ResolveLocale("fr"), "en");
  EXPECT_EQ(t.ResolveLocale("ru-RU"), "en");
}

TEST(Template, EachTargetEscapesAsItsFormatNeeds) {
  const Template t = ParseTemplate("task.due", kValid);
  const mustache::RenderContext context(
      MakeContext({{"task", {{"title", "<b>&\"'"}}}}, std::nullopt, std::nullopt));
  const json rendered = RenderAll(t.TextsFor("en"), context);
  EXPECT_EQ(rendered["title"], "Task due: <b>&\"'");
  EXPECT_EQ(rendered["email"]["subject"], "<b>&\"'");
  EXPECT_EQ(rendered["email"]["html"], "<p>&lt;b&gt;&amp;&quot;&#39; <b>&\"'</p>");
  EXPECT_EQ(rendered["telegram"]["text"], "<b>&lt;b&gt;&amp;&quot;&#39;</b>");
  EXPECT_EQ(rendered["sms"]["text"], "<b>&\"'");
  EXPECT_FALSE(rendered.contains("body")) << "absent texts are left out";
  EXPECT_FALSE(rendered.contains("push"));
}

TEST(Template, ContextHasUserAndNotificationOverData) {
  const json context =
      MakeContext({{"user", "from data"}, {"x", 1}}, ContextUser{7, "uz", "Asia/Tashkent"},
                  ContextNotification{12, "task.due", "/tasks/1", "2026-12-03T10:00:00Z"});
  EXPECT_EQ(
      context,
      json(
          {{"x", 1},
           {"user",
            {{"id", 7}, {"locale", "uz"}, {"timezone", "Asia/Tashkent"}, {"data", json::object()}}},
           {"notification",
            {{"id", 12},
             {"type", "task.due"},
             {"link", "/tasks/1"},
             {"created_at", "2026-12-03T10:00:00Z"}}}}));
  EXPECT_EQ(MakeContext("just a string", std::nullopt, std::nullopt), "just a string");
}

TEST(Template, RenderingOverItsLimitIsAnError) {
  const Template t = ParseTemplate("task.due", kValid);
  const mustache::RenderContext context(
      MakeContext({{"task", {{"title", std::string(2001, 'x')}}}}, std::nullopt, std::nullopt));
  try {
    (void)t.TextsFor("en").Render(Target::kSmsText, context);
    FAIL() << "rendered";
  } catch (const RenderError& e) {
    EXPECT_EQ(e.target(), Target::kSmsText);
    EXPECT_EQ(std::string(e.what()),
              "template sms.text rendered 2001 bytes, more than the 2000 allowed");
  }
}

// Every text of a template goes through the budget of its target: a body
// whose sections nest three deep over 300 items (270 MB) is stopped at the
// body's limit (256 KiB), a title that loops without output at the step
// budget.
TEST(TemplateRenderBudgetTest, TextsAreStoppedAtTheirTargetsLimits) {
  const Template t = ParseTemplate(
      "task.due", {{"default_locale", "en"},
                   {"locales",
                    {{"en",
                      {{"title", "x{{#a}}{{#a}}{{#a}}{{#a}}{{/a}}{{/a}}{{/a}}{{/a}}"},
                       {"body", "{{#a}}{{#a}}{{#a}}0123456789{{/a}}{{/a}}{{/a}}"}}}}}});
  json items = json::array();
  for (int i = 0; i < 300; ++i) items.push_back(i);
  const mustache::RenderContext context(json{{"a", items}});
  try {
    (void)t.TextsFor("en").Render(Target::kBody, context);
    FAIL() << "rendered";
  } catch (const RenderError& e) {
    EXPECT_EQ(e.target(), Target::kBody);
    EXPECT_EQ(std::string(e.what()).rfind("template body stopped at ", 0), 0u) << e.what();
  }
  try {
    (void)t.TextsFor("en").Render(Target::kTitle, context);
    FAIL() << "rendered";
  } catch (const RenderError& e) {
    EXPECT_EQ(e.target(), Target::kTitle);
    EXPECT_EQ(std::string(e.what()).rfind("template title stopped after 100001 steps", 0), 0u)
        << e.what();
  }
}

}  // namespace
}  // namespace chopar::templates
