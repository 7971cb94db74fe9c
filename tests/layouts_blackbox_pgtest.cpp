// Black-box, email layouts and partials (docs/api.md "Layouts",
// "Partials"): the built `chopar serve` sending email to a fake SMTP
// server. A template naming a stored layout and including partials is
// sent inside that layout; a layout PUT shows in the very next email sent,
// and so does a partial PUT; a layout in use cannot be deleted; preview
// shows the email in its layout and runs the spec's partials cases; a
// restored layout is back in the next email, and drafts are in none.

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "blackbox_support.hpp"
#include "core/json.hpp"
#include "core/process.hpp"
#include "testing/child_process.hpp"
#include "testing/fake_smtp_server.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

using core::ParseJsonOrDiscarded;
using testing::WaitUntil;
using namespace std::chrono_literals;
using nlohmann::json;

constexpr char kApiKey[] = "layouts-key";

const json kTemplate = {{"default_locale", "en"},
                        {"layout", "brand"},
                        {"locales",
                         {{"en",
                           {{"title", "Task {{task}}"},
                            {"email",
                             {{"subject", "Due: {{task}}"},
                              {"html", "<p>{{> greet}} {{task}}</p>"},
                              {"text", "{{> greet}} {{task}}"}}}}}}}};

json BrandLayout(const std::string& version) {
  return {{"html", "<div class=\"brand-" + version + "\">\n{{{content}}}\n{{> sig}}\n</div>"},
          {"text", "BRAND " + version + "\n{{{content}}}\n{{unsubscribe_url}}"}};
}

class LayoutsBlackBox : public testing::ServeBlackBox {
 protected:
  LayoutsBlackBox() : ServeBlackBox(kApiKey) {}

  void SetUp() override {
    ServeBlackBox::SetUp();
    if (IsSkipped()) return;
    serve_ = StartServe("serve.log",
                        {{"CHOPAR_SERVER_INBOX_SECRET", "inbox-secret-for-tests"},
                         {"CHOPAR_SERVER_PUBLIC_URL", "http://127.0.0.1:" + std::to_string(port_)},
                         {"CHOPAR_CHANNELS_EMAIL_PROVIDER", "smtp"},
                         {"CHOPAR_CHANNELS_EMAIL_SMTP_URL", smtp_.url()},
                         {"CHOPAR_CHANNELS_EMAIL_FROM", "chopar <noreply@chopar.example.uz>"}});
    ASSERT_TRUE(WaitUntil([&] { return api_->Healthy(); }, 60s)) << serve_->Output();
  }

  void Put(const std::string& path, const json& body) {
    const auto put = api_->Call("PUT", path, body);
    ASSERT_EQ(put.status, 200) << path << ": " << put.body;
  }

  // Notifies user 1 by email and returns the email it receives, parsed by
  // Python's email package: {"headers", "parts": {type: text}}.
  json SendAndReceive(const std::string& task) {
    const std::size_t before = smtp_.message_count();
    const auto created = api_->Call("POST", "/v1/notifications",
                                    {{"user_id", 1},
                                     {"type", "task.due"},
                                     {"channels", {"email"}},
                                     {"data", {{"task", task}, {"name", "Ali"}, {"team", "Ops"}}}});
    EXPECT_EQ(created.status, 201) << created.body;
    EXPECT_TRUE(WaitUntil([&] { return smtp_.message_count() > before; }, 30s)) << serve_->Output();
    const auto messages = smtp_.messages();
    if (messages.size() <= before) return json::object();
    const auto in = dir_ / ("mail-" + task + ".eml");
    const auto out = dir_ / ("mail-" + task + ".json");
    std::ofstream(in, std::ios::binary) << messages[before].data;
    EXPECT_EQ(core::RunProcess({"python3", std::string(CHOPAR_TESTS_DIR) + "/parse_email.py",
                                in.string(), out.string()}),
              0);
    std::ifstream parsed(out);
    return json::parse(parsed);
  }

  testing::FakeSmtpServer smtp_;
  std::unique_ptr<testing::ChildProcess> serve_;
};

TEST_F(LayoutsBlackBox, LayoutAndPartialChangesShowInTheNextEmailSent) {
  Put("/v1/users/1", {{"email", "user1@example.uz"}, {"locale", "en"}});
  Put("/v1/partials/greet", {{"text", "Hello {{name}},"}});
  Put("/v1/partials/sig", {{"text", "-- {{team}}"}});
  Put("/v1/layouts/brand", BrandLayout("v1"));
  Put("/v1/templates/task.due", kTemplate);

  json email = SendAndReceive("first");
  std::string html = email["parts"]["text/html"].get<std::string>();
  // {{> sig}} alone on its line: the line break goes with the tag (the
  // spec's standalone rule), and the partial has none of its own.
  EXPECT_NE(html.find("<div class=\"brand-v1\">\n<p>Hello Ali, first</p>\n\n-- Ops</div>"),
            std::string::npos)
      << html;
  EXPECT_EQ(html.find("<!doctype html>"), std::string::npos) << "not the built-in layout";
  const std::string text = email["parts"]["text/plain"].get<std::string>();
  EXPECT_EQ(text.rfind("BRAND v1\nHello Ali, first\nhttp://127.0.0.1:", 0), 0u) << text;

  // The layout changed: the very next email has the change.
  Put("/v1/layouts/brand", BrandLayout("v2"));
  html = SendAndReceive("second")["parts"]["text/html"].get<std::string>();
  EXPECT_NE(html.find("brand-v2"), std::string::npos) << html;
  EXPECT_EQ(html.find("brand-v1"), std::string::npos) << html;

  // So does a partial, in the template's texts and in the layout.
  Put("/v1/partials/sig", {{"text", "== {{team}} =="}});
  Put("/v1/partials/greet", {{"text", "Hi {{name}}:"}});
  html = SendAndReceive("third")["parts"]["text/html"].get<std::string>();
  EXPECT_NE(html.find("<p>Hi Ali: third</p>"), std::string::npos) << html;
  EXPECT_NE(html.find("== Ops =="), std::string::npos) << html;

  // The template uses the layout: it stays (409 in_use, naming it).
  const auto refused = api_->Call("DELETE", "/v1/layouts/brand");
  EXPECT_EQ(refused.status, 409) << refused.body;
  const json error = ParseJsonOrDiscarded(refused.body)["error"];
  EXPECT_EQ(error["code"], "in_use");
  EXPECT_NE(error["message"].get<std::string>().find("template task.due"), std::string::npos);

  // Back to the built-in layout; then the layout may go.
  json built_in = kTemplate;
  built_in["layout"] = nullptr;
  Put("/v1/templates/task.due", built_in);
  html = SendAndReceive("fourth")["parts"]["text/html"].get<std::string>();
  EXPECT_NE(html.find("<!doctype html>"), std::string::npos) << html;
  EXPECT_NE(html.find("<p>Hi Ali: fourth</p>"), std::string::npos) << html;
  EXPECT_EQ(api_->Call("DELETE", "/v1/layouts/brand").status, 204);
  EXPECT_EQ(api_->Call("GET", "/v1/layouts/brand").status, 404);
}

// Versions and drafts (docs/api.md "Versions and drafts") in the emails
// sent: a restore brings the old layout back in the next email, a draft of
// a layout or a template is in none until it is published.
TEST_F(LayoutsBlackBox, ARestoreBringsTheOldLayoutBackAndADraftIsNeverSent) {
  Put("/v1/users/1", {{"email", "user1@example.uz"}, {"locale", "en"}});
  Put("/v1/partials/greet", {{"text", "Hello {{name}},"}});
  Put("/v1/partials/sig", {{"text", "-- {{team}}"}});
  Put("/v1/layouts/brand", BrandLayout("v1"));
  Put("/v1/templates/task.due", kTemplate);
  Put("/v1/layouts/brand", BrandLayout("v2"));
  std::string html = SendAndReceive("first")["parts"]["text/html"].get<std::string>();
  EXPECT_NE(html.find("brand-v2"), std::string::npos) << html;

  const auto restored = api_->Call("POST", "/v1/layouts/brand/versions/1/restore");
  ASSERT_EQ(restored.status, 200) << restored.body;
  EXPECT_EQ(ParseJsonOrDiscarded(restored.body)["version"], 3);
  html = SendAndReceive("second")["parts"]["text/html"].get<std::string>();
  EXPECT_NE(html.find("brand-v1"), std::string::npos) << html;
  EXPECT_EQ(html.find("brand-v2"), std::string::npos) << html;

  // Drafts of the layout and of the template: the next email has neither.
  Put("/v1/layouts/brand/draft", BrandLayout("draft"));
  json drafted = kTemplate;
  drafted["locales"]["en"]["email"]["subject"] = "Drafted: {{task}}";
  Put("/v1/templates/task.due/draft", drafted);
  json email = SendAndReceive("third");
  html = email["parts"]["text/html"].get<std::string>();
  EXPECT_NE(html.find("brand-v1"), std::string::npos) << html;
  EXPECT_EQ(html.find("brand-draft"), std::string::npos) << html;
  EXPECT_EQ(email["headers"]["subject"], "Due: third") << email.dump();

  // Published, each is in the next email.
  ASSERT_EQ(api_->Call("POST", "/v1/templates/task.due/publish").status, 200);
  ASSERT_EQ(api_->Call("POST", "/v1/layouts/brand/publish").status, 200);
  email = SendAndReceive("fourth");
  EXPECT_NE(email["parts"]["text/html"].get<std::string>().find("brand-draft"), std::string::npos)
      << email.dump();
  EXPECT_EQ(email["headers"]["subject"], "Drafted: fourth") << email.dump();
}

TEST_F(LayoutsBlackBox, BadInputIsRefusedNamingTheField) {
  const auto field_of = [&](const std::string& method, const std::string& path, const json& body) {
    const auto response = api_->Call(method, path, body);
    EXPECT_EQ(response.status, 400) << path << ": " << response.body;
    return ParseJsonOrDiscarded(response.body)["error"]["field"];
  };
  EXPECT_EQ(field_of("PUT", "/v1/layouts/brand", {{"html", "<p>no content tag</p>"}}), "html");
  EXPECT_EQ(field_of("PUT", "/v1/layouts/Brand", BrandLayout("v1")), "key");
  EXPECT_EQ(field_of("PUT", "/v1/layouts/brand", {{"html", "{{{content}}}"}, {"text", 1}}), "text");
  EXPECT_EQ(field_of("PUT", "/v1/partials/sig", {{"text", "{{#open}}"}}), "text");
  EXPECT_EQ(field_of("PUT", "/v1/partials/sig", json::object()), "text");
  EXPECT_EQ(field_of("PUT", "/v1/templates/task.due", kTemplate), "layout") << "no layout brand";
  EXPECT_EQ(api_->Call("PUT", "/v1/layouts/brand?tenant=nobody", BrandLayout("v1")).status, 404);
}

TEST_F(LayoutsBlackBox, ListsAndTenantsOwn) {
  ASSERT_LT(api_->Call("PUT", "/v1/tenants/acme", {{"name", "Acme"}}).status, 300);
  Put("/v1/layouts/brand", BrandLayout("global"));
  Put("/v1/layouts/brand?tenant=acme", BrandLayout("acme"));
  const json global = ParseJsonOrDiscarded(api_->Call("GET", "/v1/layouts").body);
  ASSERT_EQ(global["items"].size(), 1u) << global.dump();
  EXPECT_EQ(global["items"][0]["key"], "brand");
  EXPECT_EQ(global["items"][0]["tenant"], nullptr);
  EXPECT_EQ(global["items"][0]["html"], BrandLayout("global")["html"]);
  const json own = ParseJsonOrDiscarded(api_->Call("GET", "/v1/layouts/brand?tenant=acme").body);
  EXPECT_EQ(own["tenant"], "acme");
  EXPECT_EQ(own["text"], BrandLayout("acme")["text"]);
  // The preview of a template of acme shows acme's own layout.
  Put("/v1/partials/greet", {{"text", "Hello {{name}},"}});
  Put("/v1/partials/sig", {{"text", "-- {{team}}"}});
  const auto preview = api_->Call(
      "POST", "/v1/templates/preview?tenant=acme",
      {{"template", kTemplate["locales"]["en"]}, {"layout", "brand"}, {"data", {{"name", "Ali"}}}});
  ASSERT_EQ(preview.status, 200) << preview.body;
  const json shown = ParseJsonOrDiscarded(preview.body);
  EXPECT_EQ(shown["email"]["html"], "<p>Hello Ali, </p>");
  EXPECT_NE(shown["email_layout"]["html"].get<std::string>().find("brand-acme"), std::string::npos)
      << shown.dump();
  EXPECT_EQ(ParseJsonOrDiscarded(api_->Call("GET", "/v1/partials").body)["items"].size(), 2u);
}

// The spec's partials cases, their partials given inline.
TEST_F(LayoutsBlackBox, MustacheSpecPartialsPassThroughPreview) {
  std::ifstream in(std::string(CHOPAR_TESTS_DIR) + "/data/mustache-spec/specs/partials.json");
  ASSERT_TRUE(in.good());
  const json spec = json::parse(in);
  int cases = 0;
  for (const json& test : spec["tests"]) {
    ++cases;
    const auto preview =
        api_->Call("POST", "/v1/templates/preview",
                   {{"template", {{"title", "spec"}, {"email", {{"html", test["template"]}}}}},
                    {"partials", test.value("partials", json::object())},
                    {"data", test["data"]}});
    ASSERT_EQ(preview.status, 200) << test["name"] << ": " << preview.body;
    EXPECT_EQ(ParseJsonOrDiscarded(preview.body)["email"]["html"], test["expected"])
        << test["name"].get<std::string>() << " — " << test["desc"].get<std::string>();
  }
  EXPECT_GE(cases, 10);
}

}  // namespace
}  // namespace chopar
