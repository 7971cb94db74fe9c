#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "templates/fragment_store.hpp"
#include "templates/template.hpp"
#include "templates/template_store.hpp"

namespace chopar::app {

// A kind of document `chopar templates export` and `import` carry (a
// folder of their directory, app/template_files.hpp), and what they do with
// it on a database. Each works through the store the API's routes use, so
// an import is recorded as a PUT is. Not thread-safe (one command's).
class DocumentKind {
 public:
  virtual ~DocumentKind() = default;

  // The folder's name: "templates", …
  [[nodiscard]] virtual std::string_view folder() const = 0;
  // Whether `key` may name one (its file's name without ".json"); when not,
  // KeyRule() says what it must look like.
  [[nodiscard]] virtual bool ValidKey(std::string_view key) const = 0;
  [[nodiscard]] virtual std::string KeyRule() const = 0;

  // The live documents of `tenant` (none: the global ones), by key, each
  // as Check gives it. Throws db::DbError.
  virtual std::map<std::string, nlohmann::json> List(const std::optional<std::string>& tenant) = 0;
  // The document `body` becomes when it is stored as `key`: what GET shows
  // of it without what the store adds (times, the key, the tenant). Writes
  // nothing. Throws core::RequestError naming the field, as PUT refuses it.
  virtual nlohmann::json Check(const std::string& key, const nlohmann::json& body) = 0;
  // Stores `body` as `key` as PUT does. Throws core::RequestError (one
  // Check refuses; kNotFound for a tenant that does not exist), db::DbError.
  virtual void Put(const std::string& key, const nlohmann::json& body,
                   const std::optional<std::string>& tenant) = 0;
};

// A template's document: GET /v1/templates/{type} without "type",
// "tenant", "created_at" and "updated_at" (and any other member the store
// keeps of it rather than the PUT body). A PUT of it stores the same template.
nlohmann::json TemplateDocument(const templates::Template& tmpl);

// The templates of `store` (PUT /v1/templates/{type}).
std::unique_ptr<DocumentKind> TemplateDocuments(templates::TemplateStore& store);
// The layouts or the partials of `store` (PUT /v1/layouts/{key},
// /v1/partials/{key}): folder "layouts" or "partials", the document
// {"html", "text"} or {"text"} as GET shows it without its key, tenant,
// version and times.
std::unique_ptr<DocumentKind> FragmentDocuments(templates::FragmentStore& store);

}  // namespace chopar::app
