// FragmentStore's versions and drafts (templates/versions.hpp).
#include "templates/fragment_store.hpp"
#include "templates/queries.hpp"

namespace chopar::templates {
namespace {

// A stored version or draft of `key` parsed again (ParseAgain).
Fragment ParseStored(FragmentKind kind, const std::string& key, const nlohmann::json& document,
                     const std::string& what) {
  return ParseAgain(
      [kind, &key](const nlohmann::json& body) { return ParseFragment(kind, key, body); }, document,
      what);
}

}  // namespace

StoredFragment FragmentStore::Restore(const std::string& key, int version,
                                      const std::optional<std::string>& tenant) {
  const DocumentVersion old = versions_.Get(DocumentKey{history_kind(), key, tenant}, version);
  return Put(ParseStored(kind_, key, old.document, "version " + std::to_string(version)), tenant);
}

StoredFragment FragmentStore::Publish(const std::string& key,
                                      const std::optional<std::string>& tenant) {
  {
    auto tx = pool_.Begin(kind_ == FragmentKind::kLayout ? "publish_layout" : "publish_partial");
    const auto draft = TakeDraft(tx, DocumentKey{history_kind(), key, tenant});
    if (!draft) {
      throw core::NotFound(std::string(FragmentKindName(kind_)) + " " + key + " has no draft");
    }
    Store(tx, ParseStored(kind_, key, draft->document, "the draft"), tenant);
    tx.Commit();
  }  // its connection back before Stored borrows one
  return Stored(key, tenant);
}

std::shared_ptr<const FragmentStore::Map> FragmentStore::WithDrafts(
    const std::optional<std::string>& tenant) const {
  const auto rows =
      pool_.Acquire()->Exec(queries::kListFragmentDrafts, KindName(history_kind()), tenant);
  auto map = std::make_shared<Map>(*Snapshot());
  for (int i = 0; i < rows.Rows(); ++i) {
    const std::string key = rows.String(i, "key");
    const auto draft_tenant = rows.OptString(i, "tenant");
    (*map)[draft_tenant ? *draft_tenant + "/" + key : key] = std::make_shared<const Fragment>(
        ParseStored(kind_, key, nlohmann::json::parse(rows.Text(i, "document")),
                    "the draft of " + std::string(FragmentKindName(kind_)) + " " + key));
  }
  return map;
}

}  // namespace chopar::templates
