#include "app/template_documents.hpp"

#include "core/clock.hpp"
#include "http/template_view.hpp"
#include "hub/validation.hpp"

namespace chopar::app {
namespace {

class Templates final : public DocumentKind {
 public:
  explicit Templates(templates::TemplateStore& store) : store_(store) {}

  [[nodiscard]] std::string_view folder() const override { return "templates"; }
  [[nodiscard]] bool ValidKey(std::string_view key) const override { return hub::IsValidType(key); }
  [[nodiscard]] std::string KeyRule() const override {
    return "a notification type, ^[a-z]+(\\.[a-z_]+)*$ (task.due.json)";
  }

  std::map<std::string, nlohmann::json> List(const std::optional<std::string>& tenant) override {
    std::map<std::string, nlohmann::json> documents;
    for (const templates::StoredTemplate& stored : store_.List(tenant)) {
      documents.emplace(stored.tmpl->type, TemplateDocument(*stored.tmpl));
    }
    return documents;
  }
  nlohmann::json Check(const std::string& key, const nlohmann::json& body) override {
    return TemplateDocument(templates::ParseTemplate(key, body));
  }
  void Put(const std::string& key, const nlohmann::json& body,
           const std::optional<std::string>& tenant) override {
    (void)store_.Put(templates::ParseTemplate(key, body), tenant);
  }

 private:
  templates::TemplateStore& store_;
};

class Fragments final : public DocumentKind {
 public:
  explicit Fragments(templates::FragmentStore& store) : store_(store) {}

  [[nodiscard]] std::string_view folder() const override {
    return store_.kind() == templates::FragmentKind::kLayout ? "layouts" : "partials";
  }
  [[nodiscard]] bool ValidKey(std::string_view key) const override {
    return templates::IsValidFragmentKey(key);
  }
  [[nodiscard]] std::string KeyRule() const override {
    return std::string("a ") + std::string(templates::FragmentKindName(store_.kind())) +
           "'s key, ^[a-z0-9][a-z0-9_.-]{0,99}$ (footer.json)";
  }

  std::map<std::string, nlohmann::json> List(const std::optional<std::string>& tenant) override {
    std::map<std::string, nlohmann::json> documents;
    for (const templates::StoredFragment& stored : store_.List(tenant)) {
      documents.emplace(stored.fragment->key, stored.fragment->document);
    }
    return documents;
  }
  nlohmann::json Check(const std::string& key, const nlohmann::json& body) override {
    return templates::ParseFragment(store_.kind(), key, body).document;
  }
  void Put(const std::string& key, const nlohmann::json& body,
           const std::optional<std::string>& tenant) override {
    (void)store_.Put(templates::ParseFragment(store_.kind(), key, body), tenant);
  }

 private:
  templates::FragmentStore& store_;
};

}  // namespace

nlohmann::json TemplateDocument(const templates::Template& tmpl) {
  // The API's view, so a member it gains is carried without a change here;
  // the store's own members are taken out. The view only reads the
  // template: an aliasing pointer that owns nothing lends it.
  const templates::StoredTemplate stored{
      std::shared_ptr<const templates::Template>(std::shared_ptr<void>(), &tmpl), std::nullopt,
      core::TimePoint{}, core::TimePoint{}};
  nlohmann::json document = http::TemplateView(stored);
  for (const char* member : {"type", "tenant", "version", "created_at", "updated_at"}) {
    document.erase(member);
  }
  // GET shows digest, throttle and escalate also as the steps they amount
  // to; a PUT takes either form, not both, so the document keeps the form
  // it was given in.
  const bool settings =
      !tmpl.digest.is_null() || !tmpl.throttle.is_null() || !tmpl.escalate.is_null();
  if (settings && document.contains("steps")) document["steps"] = nullptr;
  return document;
}

std::unique_ptr<DocumentKind> TemplateDocuments(templates::TemplateStore& store) {
  return std::make_unique<Templates>(store);
}

std::unique_ptr<DocumentKind> FragmentDocuments(templates::FragmentStore& store) {
  return std::make_unique<Fragments>(store);
}

}  // namespace chopar::app
