#include <gtest/gtest.h>

#include "core/request_error.hpp"
#include "templates/template_store.hpp"
#include "testing/child_process.hpp"
#include "testing/test_database.hpp"

namespace chopar::templates {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

Template Titled(const std::string& title) {
  return ParseTemplate("task.due",
                       {{"default_locale", "en"}, {"locales", {{"en", {{"title", title}}}}}});
}

std::string TitleOf(const TemplateLookup& lookup) {
  const auto found = lookup.Find("task.due");
  return found ? found->locales.at("en").Find(Target::kTitle)->source() : "(none)";
}

class TemplateStoreTest : public testing::PgTest {};

TEST_F(TemplateStoreTest, StoresListsAndDeletes) {
  TemplateStore store(*pool_, db_->url());
  store.Start();
  EXPECT_EQ(store.Find("task.due"), nullptr);
  const StoredTemplate put = store.Put(Titled("A"));
  EXPECT_EQ(put.tmpl->locales.at("en").Sources(), json({{"title", "A"}}));
  EXPECT_EQ(put.created_at, put.updated_at);
  EXPECT_EQ(TitleOf(store), "A") << "this process sees its own change at once";
  const StoredTemplate got = store.Get("task.due");
  EXPECT_EQ(got.tmpl->type, "task.due");
  EXPECT_EQ(got.tmpl->locales.at("en").Sources(), json({{"title", "A"}}));
  EXPECT_EQ(got.created_at, put.created_at);
  const std::vector<StoredTemplate> listed = store.List();
  ASSERT_EQ(listed.size(), 1U);
  EXPECT_EQ(listed[0].tmpl->type, "task.due");
  EXPECT_EQ(listed[0].updated_at, put.updated_at);
  store.Delete("task.due");
  EXPECT_EQ(store.Find("task.due"), nullptr);
  EXPECT_THROW(store.Get("task.due"), core::RequestError);
  EXPECT_THROW(store.Delete("task.due"), core::RequestError);
}

TEST_F(TemplateStoreTest, AnotherProcessSeesEveryChangeWithinASecond) {
  TemplateStore writer(*pool_, db_->url());
  db::Pool other_pool(db_->url(), 2);
  TemplateStore reader(other_pool, db_->url());
  writer.Start();
  reader.Start();
  // Whether the reader is already listening or not: a change made before
  // its LISTEN is read by the reload that follows the LISTEN.
  writer.Put(Titled("first"));
  EXPECT_TRUE(testing::WaitUntil([&] { return TitleOf(reader) == "first"; }, 1s))
      << TitleOf(reader);
  writer.Put(Titled("second"));
  EXPECT_TRUE(testing::WaitUntil([&] { return TitleOf(reader) == "second"; }, 1s))
      << TitleOf(reader);
  writer.Delete("task.due");
  EXPECT_TRUE(testing::WaitUntil([&] { return TitleOf(reader) == "(none)"; }, 1s))
      << TitleOf(reader);
}

// Another process's NOTIFY may still be on the way when a request that
// needs the template arrives: FindFresh reads the database then.
TEST_F(TemplateStoreTest, FindFreshReadsATemplateWhoseNotifyHasNotArrived) {
  TemplateStore writer(*pool_, db_->url());
  db::Pool other_pool(db_->url(), 2);
  TemplateStore reader(other_pool, db_->url());
  reader.Start();
  reader.Stop();  // hears nothing from now on
  writer.Put(Titled("new"));
  EXPECT_EQ(reader.Find("task.due"), nullptr) << "the cache alone has not heard of it";
  const auto fresh = reader.FindFresh("task.due");
  ASSERT_NE(fresh, nullptr);
  EXPECT_EQ(TitleOf(reader), "new") << "and the cache keeps what was read";
  EXPECT_EQ(reader.FindFresh("no.such.type"), nullptr);
}

TEST_F(TemplateStoreTest, StartLoadsWhatIsAlreadyStored) {
  {
    TemplateStore before(*pool_, db_->url());
    before.Put(Titled("stored earlier"));
  }
  TemplateStore later(*pool_, db_->url());
  EXPECT_EQ(later.Find("task.due"), nullptr) << "nothing before Start";
  later.Start();
  EXPECT_EQ(TitleOf(later), "stored earlier");
}

// A row written by an older release under a laxer text rule (here: a
// section never closed) is left out everywhere, not shown half-parsed.
TEST_F(TemplateStoreTest, AStoredTemplateThatNoLongerParsesIsLeftOut) {
  TemplateStore store(*pool_, db_->url());
  store.Start();
  store.Put(Titled("good"));
  db_->Scalar(
      "INSERT INTO chopar.templates (type, default_locale, locales) "
      "VALUES ('task.bad', 'en', '{\"en\": {\"title\": \"{{#open}}\"}}')");
  store.ReloadAll();
  EXPECT_EQ(store.Find("task.bad"), nullptr);
  const std::vector<StoredTemplate> listed = store.List();
  ASSERT_EQ(listed.size(), 1U);
  EXPECT_EQ(listed[0].tmpl->type, "task.due");
  try {
    (void)store.Get("task.bad");
    ADD_FAILURE() << "Get shows a template that does not parse";
  } catch (const core::RequestError& e) {
    EXPECT_EQ(e.code(), core::ErrorCode::kNotFound);
    EXPECT_NE(std::string(e.what()).find("PUT it again"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace chopar::templates
