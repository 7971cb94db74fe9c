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
  const json put = store.Put(Titled("A"));
  EXPECT_EQ(put["locales"], json({{"en", {{"title", "A"}}}}));
  EXPECT_EQ(TitleOf(store), "A") << "this process sees its own change at once";
  EXPECT_EQ(store.Get("task.due"), put);
  EXPECT_EQ(store.List()["items"], json::array({put}));
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

}  // namespace
}  // namespace chopar::templates
