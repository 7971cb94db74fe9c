// A stored email layout (channels::Message::layout) in RenderEmail: what
// it is given, and the built-in layout when it cannot render.
#include <gtest/gtest.h>

#include <stdexcept>

#include "channels/render.hpp"

namespace chopar::channels {
namespace {

using nlohmann::json;

Message LaidOut(std::vector<json>& seen) {
  Message m;
  m.channel = core::ChannelKind::kEmail;
  m.notification_id = 7;
  m.type = "task.due";
  m.title = "Due";
  m.body = "Today";
  m.link = "/t/1";
  m.locale = "uz";
  m.data = {{"task", "T"}, {"content", "from data"}};
  ApplyChannelTexts(m, {{"html", "<p>T</p>"}, {"layout", {{"key", "brand"}, {"tenant", "acme"}}}});
  m.layout = EmailLayout{[&seen](const json& v) {
                           seen.push_back(v);
                           return "<main>" + v["content"].get<std::string>() + "</main>";
                         },
                         [&seen](const json& v) {
                           seen.push_back(v);
                           return "TEXT " + v["content"].get<std::string>();
                         }};
  return m;
}

TEST(RenderEmailLayout, TheLayoutWrapsTheEmailsOwnHtmlAndText) {
  std::vector<json> seen;
  const Message m = LaidOut(seen);
  EXPECT_EQ(m.layout_key, "brand");
  EXPECT_EQ(m.layout_tenant, "acme");
  const EmailContent email = RenderEmail(m, "https://app.example/", "https://u.example/x");
  EXPECT_EQ(email.html, "<main><p>T</p>\n</main>");
  EXPECT_EQ(email.text, "TEXT Due\n\nToday") << "no email.text: the title and body";
  ASSERT_EQ(seen.size(), 2u);
  const json& values = seen[0];
  EXPECT_EQ(values["task"], "T") << "the notification's data";
  EXPECT_EQ(values["content"], "<p>T</p>\n") << "over data's own content";
  EXPECT_EQ(values["link"], "https://app.example/t/1");
  EXPECT_EQ(values["unsubscribe_url"], "https://u.example/x");
  EXPECT_EQ(values["open"], "Ochish");
  EXPECT_EQ(values["subject"], "Due");
  EXPECT_EQ(values["notification"], json({{"id", 7}, {"type", "task.due"}}));
  EXPECT_EQ(values["branding"], nullptr);
}

TEST(RenderEmailLayout, ALayoutThatCannotRenderLeavesTheBuiltInOne) {
  std::vector<json> seen;
  Message m = LaidOut(seen);
  m.layout->text = [](const json&) -> std::string { throw std::runtime_error("over budget"); };
  const EmailContent email = RenderEmail(m, "https://app.example", "https://u.example/x");
  EXPECT_EQ(email.html.rfind("<!doctype html>", 0), 0u) << email.html;
  EXPECT_NE(email.text.find("https://u.example/x"), std::string::npos) << email.text;
}

}  // namespace
}  // namespace chopar::channels
