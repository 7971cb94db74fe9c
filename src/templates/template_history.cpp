// TemplateStore's versions and drafts (templates/versions.hpp).
#include "templates/queries.hpp"
#include "templates/template_store.hpp"

namespace chopar::templates {
namespace {

// What RequireLayout throws: the template names a layout it cannot find.
[[noreturn]] void ThrowNoLayout(const std::string& layout,
                                const std::optional<std::string>& tenant) {
  throw core::InvalidField("layout",
                           "layout " + layout + " does not exist" +
                               (tenant ? " (neither tenant " + *tenant + "'s own nor a global one)"
                                       : " (a global template names a global layout)"));
}

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
  // The layout it named may have been deleted since.
  RequireLayout(parsed, tenant);
  return Put(parsed, tenant);
}

StoredTemplate TemplateStore::Publish(const std::string& type,
                                      const std::optional<std::string>& tenant) {
  const DocumentKey key{DocumentKind::kTemplate, type, tenant};
  {
    auto tx = pool_.Begin("publish_template");
    const auto draft = TakeDraft(tx, key);
    if (!draft) throw core::NotFound("template " + type + " has no draft");
    const Template parsed = ParseStored(type, draft->document, "the draft");
    // The layout it names may have been deleted since the draft was stored;
    // asked in the transaction that holds its connection. A throw rolls
    // back: the draft stays.
    if (parsed.layout &&
        !tx.Exec(queries::kLayoutExists, *parsed.layout, tenant).Bool(0, "found")) {
      ThrowNoLayout(*parsed.layout, tenant);
    }
    Store(tx, parsed, tenant);
    tx.Commit();
  }  // its connection back before Stored borrows one
  return Stored(type, tenant);
}

void TemplateStore::RequireLayout(const Template& tmpl, const std::optional<std::string>& tenant) {
  if (tmpl.layout && !layouts_.LayoutExists(*tmpl.layout, tenant)) {
    ThrowNoLayout(*tmpl.layout, tenant);
  }
}

std::shared_ptr<const Template> TemplateStore::ParsedDraft(
    const std::string& type, const std::optional<std::string>& tenant) {
  const Draft draft = versions_.GetDraft(DocumentKey{DocumentKind::kTemplate, type, tenant});
  return std::make_shared<const Template>(ParseStored(type, draft.document, "the draft"));
}

std::shared_ptr<const Template> TemplateStore::DraftOrLive(
    const std::string& type, const std::optional<std::string>& tenant) {
  try {
    return ParsedDraft(type, tenant);
  } catch (const core::RequestError& e) {
    if (e.code() != core::ErrorCode::kNotFound) throw;
  }
  return FindFor(type, tenant);
}

RenderLibrary TemplateStore::LibraryWithDrafts(const std::optional<std::string>& tenant) const {
  return RenderLibrary(layouts_.WithDrafts(tenant), partials_.WithDrafts(tenant), tenant);
}

}  // namespace chopar::templates
