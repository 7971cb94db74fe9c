#include "templates/versions.hpp"

#include <charconv>
#include <limits>

#include "db/time_column.hpp"
#include "templates/queries.hpp"

namespace chopar::templates {
namespace {

VersionSummary ReadSummary(const db::Result& rows, int row) {
  return VersionSummary{static_cast<int>(rows.Int(row, "version")),
                        db::TimeColumn(rows, row, "created_at"), rows.OptString(row, "created_by")};
}

Draft ReadDraft(const db::Result& rows, int row) {
  return Draft{nlohmann::json::parse(rows.Text(row, "document")),
               db::TimeColumn(rows, row, "created_at"), db::TimeColumn(rows, row, "updated_at"),
               rows.OptString(row, "updated_by")};
}

// A page's cursor is the last version it shows: the next page holds those
// below it.
std::optional<int> ParseCursor(const std::optional<std::string>& cursor) {
  if (!cursor) return std::nullopt;
  int version = 0;
  const char* end = cursor->data() + cursor->size();
  const auto [ptr, ec] = std::from_chars(cursor->data(), end, version);
  if (ec != std::errc() || ptr != end || version < 1) {
    throw core::InvalidField("cursor", "cursor must be the next_cursor of a previous page");
  }
  return version;
}

std::string Describe(const DocumentKey& key) {
  std::string text(KindName(key.kind));
  text += ' ';
  text += key.key;
  if (key.tenant) text += " of tenant " + *key.tenant;
  return text;
}

}  // namespace

std::string_view KindName(DocumentKind kind) {
  switch (kind) {
    case DocumentKind::kTemplate:
      return "template";
    case DocumentKind::kLayout:
      return "layout";
    case DocumentKind::kPartial:
      return "partial";
  }
  return "";
}

nlohmann::json VersionDocument(const nlohmann::json& body) {
  nlohmann::json document = body;
  for (const char* shown : {"type", "key", "tenant", "version", "created_at", "updated_at"}) {
    document.erase(shown);
  }
  return document;
}

void RecordVersion(db::Transaction& tx, const DocumentKey& key, const nlohmann::json& document) {
  tx.Defer(queries::kRecordTemplateVersion, KindName(key.kind), key.key, key.tenant,
           VersionDocument(document).dump(), kMaxVersions);
}

std::optional<Draft> TakeDraft(db::Transaction& tx, const DocumentKey& key) {
  const auto rows = tx.Exec(queries::kDeleteTemplateDraft, KindName(key.kind), key.key, key.tenant);
  if (rows.Empty()) return std::nullopt;
  return ReadDraft(rows, 0);
}

VersionPage VersionStore::List(const DocumentKey& key, int limit,
                               const std::optional<std::string>& cursor) {
  const auto before = ParseCursor(cursor);
  // One more than the page: whether there is a next page.
  const auto rows = pool_.Acquire()->Exec(queries::kListTemplateVersions, KindName(key.kind),
                                          key.key, key.tenant, before, limit + 1);
  VersionPage page;
  for (int i = 0; i < rows.Rows() && i < limit; ++i) page.items.push_back(ReadSummary(rows, i));
  if (!rows.Empty()) page.newest = static_cast<int>(rows.Int(0, "newest"));
  if (rows.Rows() > limit) page.next_cursor = std::to_string(page.items.back().version);
  return page;
}

DocumentVersion VersionStore::Get(const DocumentKey& key, int version) {
  const auto rows = pool_.Acquire()->Exec(queries::kGetTemplateVersion, KindName(key.kind), key.key,
                                          key.tenant, version);
  if (rows.Empty()) {
    throw core::NotFound(Describe(key) + " has no version " + std::to_string(version));
  }
  return DocumentVersion{ReadSummary(rows, 0), nlohmann::json::parse(rows.Text(0, "document"))};
}

Draft VersionStore::PutDraft(const DocumentKey& key, const nlohmann::json& document) {
  const auto rows = pool_.Acquire()->Exec(queries::kPutTemplateDraft, KindName(key.kind), key.key,
                                          key.tenant, VersionDocument(document).dump(), kMaxDrafts);
  if (!rows.Bool(0, "tenant_exists")) {
    throw core::NotFound("tenant " + key.tenant.value_or("") + " does not exist");
  }
  if (rows.IsNull(0, "document")) {
    throw core::InvalidField(key.kind == DocumentKind::kTemplate ? "type" : "key",
                             "at most " + std::to_string(kMaxDrafts) + " " +
                                 std::string(KindName(key.kind)) +
                                 " drafts per tenant and globally: publish or delete one");
  }
  return ReadDraft(rows, 0);
}

Draft VersionStore::GetDraft(const DocumentKey& key) {
  const auto rows =
      pool_.Acquire()->Exec(queries::kGetTemplateDraft, KindName(key.kind), key.key, key.tenant);
  if (rows.Empty()) throw core::NotFound(Describe(key) + " has no draft");
  return ReadDraft(rows, 0);
}

void VersionStore::DeleteDraft(const DocumentKey& key) {
  const auto rows =
      pool_.Acquire()->Exec(queries::kDeleteTemplateDraft, KindName(key.kind), key.key, key.tenant);
  if (rows.Empty()) throw core::NotFound(Describe(key) + " has no draft");
}

}  // namespace chopar::templates
