#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "http/router.hpp"
#include "templates/template_store.hpp"
#include "templates/versions.hpp"

namespace chopar::http {

// What the routes of docs/api.md "Versions and drafts" need of one kind of
// versioned document (templates, layouts, partials). Every function throws
// core::RequestError as the store it calls does.
struct VersionedDocuments {
  templates::DocumentKind kind;
  std::string path;      // the document's own route: "/v1/templates/{type:str}"
  std::string key_name;  // its path parameter and its views' member: "type"
  // Validates a key from the path (400 invalid_field naming key_name).
  std::function<void(const std::string& key)> check_key;
  // Parses a PUT body under the PUT's rules (400 invalid_field).
  std::function<void(const std::string& key, const nlohmann::json& body)> check_body;
  // Whether the document exists (and parses): the newest version is live.
  std::function<bool(const std::string& key, const std::optional<std::string>& tenant)> exists;
  // Restore and publish (templates::TemplateStore::Restore, ::Publish):
  // the document's view as GET shows it.
  std::function<nlohmann::json(const std::string& key, int version,
                               const std::optional<std::string>& tenant)>
      restore;
  std::function<nlohmann::json(const std::string& key, const std::optional<std::string>& tenant)>
      publish;
  templates::VersionStore* versions = nullptr;
};

// Under `documents.path`: GET …/versions, GET …/versions/{n}, POST
// …/versions/{n}/restore, PUT/GET/DELETE …/draft, POST …/publish (server
// key; ?tenant= as the document's own routes). `documents.versions` and
// what the functions hold must outlive the router.
void RegisterVersionRoutes(Router& router, const VersionedDocuments& documents);

// The routes above for templates, and for layouts and partials (under
// /v1/layouts/{key} and /v1/partials/{key}).
void RegisterTemplateVersionRoutes(Router& router, templates::TemplateStore& store);
void RegisterFragmentVersionRoutes(Router& router, templates::TemplateStore& store);

}  // namespace chopar::http
