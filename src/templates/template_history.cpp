// TemplateStore's versions and drafts (templates/versions.hpp).
#include "templates/template_store.hpp"

namespace chopar::templates {
namespace {

// A stored version or draft of `type` parsed again (ParseAgain).
Template ParseStored(const std::string& type, const nlohmann::json& document,
                     const std::string& what) {
  return ParseAgain([&type](const nlohmann::json& body) { return ParseTemplate(type, body); },
                    document, what);
}

}  // namespace

StoredTemplate TemplateStore::Restore(const std::string& type, int version,
                                      const std::optional<std::string>& tenant) {
  const DocumentVersion old =
      versions_.Get(DocumentKey{DocumentKind::kTemplate, type, tenant}, version);
  const Template parsed = ParseStored(type, old.document, "version " + std::to_string(version));
  return Put(parsed, tenant);
}

StoredTemplate TemplateStore::Publish(const std::string& type,
                                      const std::optional<std::string>& tenant) {
  const DocumentKey key{DocumentKind::kTemplate, type, tenant};
  {
    auto tx = pool_.Begin("publish_template");
    const auto draft = TakeDraft(tx, key);
    if (!draft) throw core::NotFound("template " + type + " has no draft");
    Store(tx, ParseStored(type, draft->document, "the draft"), tenant);
    tx.Commit();
  }  // its connection back before Stored borrows one
  return Stored(type, tenant);
}

std::shared_ptr<const Template> TemplateStore::ParsedDraft(
    const std::string& type, const std::optional<std::string>& tenant) {
  const Draft draft = versions_.GetDraft(DocumentKey{DocumentKind::kTemplate, type, tenant});
  return std::make_shared<const Template>(ParseStored(type, draft.document, "the draft"));
}

}  // namespace chopar::templates
