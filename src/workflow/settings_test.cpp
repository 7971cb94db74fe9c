#include "workflow/settings.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/request_error.hpp"

namespace chopar::workflow {
namespace {

// The settings of a template's members {"digest", "throttle", "escalate"}
// as `settings` gives them (absent: null).
WorkflowSettings WithSettings(const nlohmann::json& settings) {
  auto member = [&](const char* name) {
    return settings.contains(name) ? settings[name] : nlohmann::json(nullptr);
  };
  return ParseWorkflowSettings(member("digest"), member("throttle"), member("escalate"));
}

TEST(WorkflowSettingsTest, ParsesEachSetting) {
  const auto s = WithSettings(
      {{"digest", {{"window_seconds", 600}, {"key", "{{project.id}}"}, {"max_items", 10}}},
       {"throttle", {{"limit", 3}, {"window_seconds", 3600}}},
       {"escalate", {{"after_seconds", 900}, {"channels", {"email", "sms"}}}}});
  ASSERT_TRUE(s.digest && s.throttle && s.escalate);
  EXPECT_EQ(s.digest->window, std::chrono::seconds(600));
  EXPECT_EQ(s.digest->key.source(), "{{project.id}}");
  EXPECT_EQ(s.digest->max_items, 10);
  EXPECT_EQ(s.throttle->limit, 3);
  EXPECT_EQ(s.throttle->window, std::chrono::seconds(3600));
  EXPECT_EQ(s.escalate->after, std::chrono::seconds(900));
  EXPECT_EQ(s.escalate->channels,
            (std::vector{core::ChannelKind::kEmail, core::ChannelKind::kSms}));
}

TEST(WorkflowSettingsTest, AbsentOrNullIsNone) {
  const auto s = WithSettings({{"digest", nullptr}});
  EXPECT_FALSE(s.digest || s.throttle || s.escalate);
}

TEST(WorkflowSettingsTest, DigestDefaults) {
  const auto s = WithSettings({{"digest", {{"window_seconds", 60}}}});
  ASSERT_TRUE(s.digest);
  EXPECT_EQ(s.digest->key.source(), "");
  EXPECT_EQ(s.digest->max_items, 50);
}

TEST(WorkflowSettingsTest, RefusalsNameTheField) {
  struct Case {
    nlohmann::json settings;
    std::string field;
  };
  const std::vector<Case> cases = {
      {{{"digest", {{"max_items", 5}}}}, "digest.window_seconds"},
      {{{"digest", {{"window_seconds", 0}}}}, "digest.window_seconds"},
      {{{"digest", {{"window_seconds", 1.5}}}}, "digest.window_seconds"},
      {{{"digest", {{"window_seconds", 60}, {"max_items", 0}}}}, "digest.max_items"},
      {{{"digest", {{"window_seconds", 60}, {"key", "{{#a}}"}}}}, "digest.key"},
      {{{"digest", {{"window_seconds", 60}, {"key", 7}}}}, "digest.key"},
      {{{"digest", {{"window_seconds", 60}, {"windows", 1}}}}, "digest.windows"},
      {{{"throttle", {{"limit", 3}}}}, "throttle.window_seconds"},
      {{{"throttle", {{"limit", -1}, {"window_seconds", 60}}}}, "throttle.limit"},
      {{{"escalate", {{"after_seconds", 60}}}}, "escalate.channels"},
      {{{"escalate", {{"after_seconds", 60}, {"channels", {"fax"}}}}}, "escalate.channels"},
      {{{"escalate", {{"after_seconds", 60}, {"channels", {"email", "email"}}}}},
       "escalate.channels"},
      {{{"escalate", {{"after_seconds", 700000}, {"channels", {"email"}}}}},
       "escalate.after_seconds"},
  };
  for (const Case& c : cases) {
    try {
      WithSettings(c.settings);
      ADD_FAILURE() << c.settings.dump() << " was accepted";
    } catch (const core::RequestError& e) {
      EXPECT_EQ(e.code(), core::ErrorCode::kInvalidField) << c.settings.dump();
      EXPECT_EQ(e.field(), c.field) << c.settings.dump();
    }
  }
}

}  // namespace
}  // namespace chopar::workflow
