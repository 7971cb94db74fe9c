// Versions and drafts of templates in the store (templates/versions.hpp),
// against PostgreSQL: numbering under concurrent PUTs, migration 0048's
// backfill, restore and publish.
#include <gtest/gtest.h>

#include <algorithm>
#include <barrier>
#include <functional>
#include <thread>

#include "core/request_error.hpp"
#include "db/migrate.hpp"
#include "templates/template_store.hpp"
#include "testing/test_database.hpp"

namespace chopar::templates {
namespace {

using nlohmann::json;

json Body(const std::string& title) {
  return {{"default_locale", "en"}, {"locales", {{"en", {{"title", title}}}}}};
}

Template Titled(const std::string& title) { return ParseTemplate("task.due", Body(title)); }

std::string LiveTitle(TemplateStore& store) {
  return store.Get("task.due").tmpl->locales.at("en").Find(Target::kTitle)->source();
}

const DocumentKey kTaskDue{DocumentKind::kTemplate, "task.due", std::nullopt};

class TemplateHistoryTest : public testing::PgTest {};

constexpr int kWriters = 8;

// Runs put(i) for i in 0..kWriters-1 on as many threads, released at once;
// expects none to throw.
void PutAtOnce(const std::function<void(int)>& put) {
  std::barrier start(kWriters);
  std::vector<std::string> errors(kWriters);
  std::vector<std::thread> writers;
  for (int i = 0; i < kWriters; ++i) {
    writers.emplace_back([&put, &start, &errors, i] {
      start.arrive_and_wait();
      try {
        put(i);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  }
  for (auto& writer : writers) writer.join();
  for (const std::string& error : errors) EXPECT_EQ(error, "");
}

// The page holds versions kWriters down to 1, one each.
void ExpectConsecutive(const VersionPage& page) {
  ASSERT_EQ(page.items.size(), static_cast<std::size_t>(kWriters));
  for (int i = 0; i < kWriters; ++i) EXPECT_EQ(page.items[i].version, kWriters - i);
  EXPECT_EQ(page.newest, kWriters);
}

TEST_F(TemplateHistoryTest, ConcurrentPutsGetDistinctConsecutiveVersions) {
  TemplateStore store(*pool_, db_->url());
  PutAtOnce([&store](int i) { (void)store.Put(Titled("writer " + std::to_string(i))); });
  ExpectConsecutive(store.versions().List(kTaskDue, 100, std::nullopt));
  // The live template is the newest version's document: the versions
  // were numbered in the order the writes committed.
  EXPECT_EQ(store.versions().Get(kTaskDue, kWriters).document, Body(LiveTitle(store)));
}

TEST_F(TemplateHistoryTest, ConcurrentPutsOfAPartialGetDistinctConsecutiveVersions) {
  TemplateStore store(*pool_, db_->url());
  PutAtOnce([&store](int i) {
    (void)store.partials().Put(
        ParseFragment(FragmentKind::kPartial, "footer", {{"text", "writer " + std::to_string(i)}}));
  });
  const DocumentKey footer{DocumentKind::kPartial, "footer", std::nullopt};
  ExpectConsecutive(store.partials().versions().List(footer, 100, std::nullopt));
  EXPECT_EQ(store.partials().versions().Get(footer, kWriters).document,
            store.partials().Get("footer").fragment->document);
}

TEST_F(TemplateHistoryTest, RestoreMakesTheOldDocumentTheNextVersion) {
  TemplateStore store(*pool_, db_->url());
  store.Start();
  (void)store.Put(Titled("first"));
  (void)store.Put(Titled("second"));
  const StoredTemplate restored = store.Restore("task.due", 1);
  EXPECT_EQ(restored.tmpl->locales.at("en").Sources(), json({{"title", "first"}}));
  EXPECT_EQ(store.Find("task.due")->locales.at("en").Sources(), json({{"title", "first"}}))
      << "the cache has it at once";
  EXPECT_EQ(store.versions().Get(kTaskDue, 3).document, Body("first"));
  EXPECT_EQ(store.versions().List(kTaskDue, 10, std::nullopt).items.size(), 3U);
  try {
    (void)store.Restore("task.due", 4);
    FAIL() << "restored a version that does not exist";
  } catch (const core::RequestError& e) {
    EXPECT_EQ(e.code(), core::ErrorCode::kNotFound);
  }
}

TEST_F(TemplateHistoryTest, ADocumentThatNoLongerParsesIsAConflictNamingItsField) {
  TemplateStore store(*pool_, db_->url());
  (void)store.Put(Titled("first"));
  // Stored when the rules allowed it; an unclosed section does not parse today.
  db_->Scalar(
      "INSERT INTO chopar.template_versions (kind, key, version, document) VALUES "
      "('template', 'task.due', 2, '{\"default_locale\": \"en\", \"locales\": "
      "{\"en\": {\"title\": \"{{#open}}\"}}}') RETURNING 1");
  try {
    (void)store.Restore("task.due", 2);
    FAIL() << "restored a document that does not parse";
  } catch (const core::RequestError& e) {
    EXPECT_EQ(e.code(), core::ErrorCode::kConflict);
    EXPECT_EQ(e.field(), "locales.en.title");
    EXPECT_NE(std::string(e.what()).find("version 2"), std::string::npos) << e.what();
  }
  EXPECT_EQ(LiveTitle(store), "first");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.template_versions"), 2) << "nothing written";
}

TEST_F(TemplateHistoryTest, PublishMakesTheDraftLiveAndDeletesItInOneStep) {
  TemplateStore store(*pool_, db_->url());
  store.Start();
  (void)store.Put(Titled("live"));
  (void)store.versions().PutDraft(kTaskDue, Body("drafted"));
  EXPECT_EQ(LiveTitle(store), "live") << "a draft changes nothing live";
  EXPECT_EQ(store.ParsedDraft("task.due", std::nullopt)->locales.at("en").Sources(),
            json({{"title", "drafted"}}));

  const StoredTemplate published = store.Publish("task.due");
  EXPECT_EQ(published.tmpl->locales.at("en").Sources(), json({{"title", "drafted"}}));
  EXPECT_EQ(store.Find("task.due")->locales.at("en").Sources(), json({{"title", "drafted"}}));
  EXPECT_EQ(store.versions().Get(kTaskDue, 2).document, Body("drafted"));
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.template_drafts"), 0);
  try {
    (void)store.Publish("task.due");
    FAIL() << "published without a draft";
  } catch (const core::RequestError& e) {
    EXPECT_EQ(e.code(), core::ErrorCode::kNotFound);
  }
  EXPECT_EQ(store.versions().List(kTaskDue, 10, std::nullopt).newest, 2);
}

TEST_F(TemplateHistoryTest, ATenantsHistoryIsItsOwnAndGoesWithTheTenant) {
  TemplateStore store(*pool_, db_->url());
  db_->Scalar("INSERT INTO chopar.tenants (key, name) VALUES ('acme', 'Acme') RETURNING 1");
  (void)store.Put(Titled("global"));
  (void)store.Put(Titled("acme 1"), "acme");
  (void)store.Put(Titled("acme 2"), "acme");
  const DocumentKey acme{DocumentKind::kTemplate, "task.due", "acme"};
  EXPECT_EQ(store.versions().List(acme, 10, std::nullopt).newest, 2);
  EXPECT_EQ(store.versions().List(kTaskDue, 10, std::nullopt).newest, 1);
  (void)store.versions().PutDraft(acme, Body("acme draft"));
  try {
    (void)store.versions().PutDraft(DocumentKey{DocumentKind::kTemplate, "task.due", "nobody"},
                                    Body("x"));
    FAIL() << "a draft for a tenant that does not exist";
  } catch (const core::RequestError& e) {
    EXPECT_EQ(e.code(), core::ErrorCode::kNotFound);
  }
  db_->Scalar("DELETE FROM chopar.tenants WHERE key = 'acme' RETURNING 1");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.template_versions WHERE tenant IS NOT NULL"),
            0);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.template_drafts"), 0);
}

TEST_F(TemplateHistoryTest, VersionsOutliveADeleteAndTheNumberingGoesOn) {
  TemplateStore store(*pool_, db_->url());
  (void)store.Put(Titled("first"));
  store.Delete("task.due");
  (void)store.Put(Titled("again"));
  EXPECT_EQ(store.versions().List(kTaskDue, 10, std::nullopt).newest, 2);
  store.Delete("task.due");
  (void)store.Restore("task.due", 1);
  EXPECT_EQ(LiveTitle(store), "first") << "a restore brings a deleted template back";
}

TEST_F(TemplateHistoryTest, PagesGoBackwardsByVersion) {
  TemplateStore store(*pool_, db_->url());
  for (int i = 1; i <= 5; ++i) (void)store.Put(Titled("v" + std::to_string(i)));
  VersionPage page = store.versions().List(kTaskDue, 2, std::nullopt);
  ASSERT_EQ(page.items.size(), 2U);
  EXPECT_EQ(page.items[0].version, 5);
  ASSERT_TRUE(page.next_cursor);
  page = store.versions().List(kTaskDue, 2, page.next_cursor);
  EXPECT_EQ(page.items[0].version, 3);
  EXPECT_EQ(page.newest, 5);
  page = store.versions().List(kTaskDue, 2, page.next_cursor);
  ASSERT_EQ(page.items.size(), 1U);
  EXPECT_EQ(page.items[0].version, 1);
  EXPECT_FALSE(page.next_cursor);
  for (const std::string bad : {"x", "0", "-1", "1x", ""}) {
    try {
      (void)store.versions().List(kTaskDue, 2, bad);
      ADD_FAILURE() << "cursor " << bad;
    } catch (const core::RequestError& e) {
      EXPECT_EQ(e.field(), "cursor");
    }
  }
}

TEST_F(TemplateHistoryTest, AHistoryKeepsItsNewestVersionsOnly) {
  TemplateStore store(*pool_, db_->url());
  db_->Scalar(
      "INSERT INTO chopar.template_versions (kind, key, version, document) "
      "SELECT 'template', 'task.due', n, '{}' FROM generate_series(1, " +
      std::to_string(kMaxVersions) + ") AS n RETURNING 1");
  (void)store.Put(Titled("newest"));
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.template_versions"), kMaxVersions);
  EXPECT_EQ(db_->Count("SELECT min(version) FROM chopar.template_versions"), 2);
  EXPECT_EQ(store.versions().List(kTaskDue, 1, std::nullopt).newest, kMaxVersions + 1);
}

TEST_F(TemplateHistoryTest, AScopeHoldsABoundedNumberOfDrafts) {
  TemplateStore store(*pool_, db_->url());
  db_->Scalar(
      "INSERT INTO chopar.template_drafts (kind, key, document) "
      "SELECT 'template', 'type.n' || n, '{}' FROM generate_series(1, " +
      std::to_string(kMaxDrafts) + ") AS n RETURNING 1");
  try {
    (void)store.versions().PutDraft(kTaskDue, Body("one too many"));
    FAIL() << "a draft past the bound";
  } catch (const core::RequestError& e) {
    EXPECT_EQ(e.code(), core::ErrorCode::kInvalidField);
    EXPECT_EQ(e.field(), "type");
  }
  // A layout's drafts are another scope; a draft already there may change.
  (void)store.versions().PutDraft(DocumentKey{DocumentKind::kLayout, "brand", std::nullopt},
                                  {{"html", "{{{content}}}"}});
  (void)store.versions().PutDraft(DocumentKey{DocumentKind::kTemplate, "type.n1", std::nullopt},
                                  Body("changed"));
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.template_drafts"), kMaxDrafts + 1);
}

// Migration 0048 gives every template stored before it a version 1.
class TemplateHistoryBackfillTest : public ::testing::Test {};

TEST_F(TemplateHistoryBackfillTest, TemplatesStoredBeforeVersionsGetVersionOne) {
  if (!testing::TestDatabase::Available()) GTEST_SKIP() << "CHOPAR_TEST_DATABASE_URL is not set";
  testing::TestDatabase db(testing::TestDatabase::Contents::kEmpty);
  const std::span<const db::Migration> all = db::EmbeddedMigrations();
  const auto before = static_cast<std::size_t>(
      std::ranges::count_if(all, [](const db::Migration& m) { return m.version < 48; }));
  db::Connection conn = db.Connect();
  db::Migrate(conn, all.first(before));
  conn.ExecScript(
      "INSERT INTO chopar.tenants (key, name) VALUES ('acme', 'Acme');"
      "INSERT INTO chopar.templates (type, category, default_locale, locales, digest, tags) "
      "VALUES ('task.due', 'tasks', 'en', '{\"en\": {\"title\": \"Due\"}}', "
      "'{\"window_seconds\": 600, \"max_items\": 50}', '{billing}');"
      "INSERT INTO chopar.tenant_templates (tenant, type, default_locale, locales) "
      "VALUES ('acme', 'task.due', 'uz', '{\"uz\": {\"title\": \"Muddat\"}}');");
  db::Migrate(conn, all);

  db::Pool pool(db.url(), 2);
  TemplateStore store(pool, db.url());
  const DocumentVersion global = store.versions().Get(kTaskDue, 1);
  EXPECT_EQ(global.document, json({{"category", "tasks"},
                                   {"default_locale", "en"},
                                   {"locales", {{"en", {{"title", "Due"}}}}},
                                   {"tags", {"billing"}},
                                   {"digest", {{"window_seconds", 600}, {"max_items", 50}}},
                                   {"throttle", nullptr},
                                   {"escalate", nullptr}}));
  EXPECT_EQ(global.summary.created_by, std::nullopt);
  const DocumentKey acme{DocumentKind::kTemplate, "task.due", "acme"};
  EXPECT_EQ(store.versions().Get(acme, 1).document["locales"],
            json({{"uz", {{"title", "Muddat"}}}}));
  // The backfilled document is a PUT body today: it restores, as version 2.
  const StoredTemplate restored = store.Restore("task.due", 1);
  EXPECT_EQ(restored.tmpl->tags, std::vector<std::string>{"billing"});
  EXPECT_EQ(store.versions().List(kTaskDue, 10, std::nullopt).newest, 2);
}

}  // namespace
}  // namespace chopar::templates
