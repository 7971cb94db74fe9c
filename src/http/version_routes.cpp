// Versions and drafts of templates, layouts and partials (docs/api.md
// "Versions and drafts").
#include "http/version_routes.hpp"

#include <limits>

#include "core/request_error.hpp"
#include "http/fragment_routes.hpp"
#include "http/json_view.hpp"
#include "http/message.hpp"
#include "http/page_params.hpp"
#include "http/template_view.hpp"
#include "http/tenancy.hpp"
#include "hub/validation.hpp"

namespace chopar::http {
namespace {

// The most versions one page of GET …/versions shows, and its default.
constexpr int kMaxVersionPage = 100;
constexpr int kDefaultVersionPage = 50;

templates::DocumentKey KeyOf(const VersionedDocuments& documents, const Request& request) {
  const std::string& key = request.String(documents.key_name);
  documents.check_key(key);
  return templates::DocumentKey{documents.kind, key, QueryTenant(request)};
}

int VersionOf(const Request& request) {
  const std::int64_t n = request.Id("n");
  if (n > std::numeric_limits<int>::max()) {
    throw core::InvalidField("n", "n must be a version number, 1 to 2147483647");
  }
  return static_cast<int>(n);
}

nlohmann::json SummaryView(const templates::VersionSummary& summary) {
  return {{"version", summary.version},
          {"created_at", TimeView(summary.created_at)},
          {"created_by", OrNull(summary.created_by)}};
}

nlohmann::json DraftView(const VersionedDocuments& documents, const templates::DocumentKey& key,
                         const templates::Draft& draft) {
  return {{documents.key_name, key.key},
          {"tenant", OrNull(key.tenant)},
          {"document", draft.document},
          {"created_at", TimeView(draft.created_at)},
          {"updated_at", TimeView(draft.updated_at)},
          {"updated_by", OrNull(draft.updated_by)}};
}

struct ListVersions {
  VersionedDocuments documents;
  Response operator()(const Request& request) const {
    const auto key = KeyOf(documents, request);
    const auto page =
        documents.versions->List(key, LimitParam(request, kDefaultVersionPage, kMaxVersionPage),
                                 request.query.Get("cursor"));
    const bool exists = page.newest && documents.exists(key.key, key.tenant);
    nlohmann::json items = nlohmann::json::array();
    for (const auto& summary : page.items) {
      nlohmann::json item = SummaryView(summary);
      item["live"] = exists && summary.version == *page.newest;
      items.push_back(std::move(item));
    }
    return JsonResponse(
        200, {{"versions", std::move(items)}, {"next_cursor", OrNull(page.next_cursor)}});
  }
};

struct GetVersion {
  VersionedDocuments documents;
  Response operator()(const Request& request) const {
    const auto version = documents.versions->Get(KeyOf(documents, request), VersionOf(request));
    nlohmann::json view = SummaryView(version.summary);
    view["document"] = version.document;
    return JsonResponse(200, view);
  }
};

struct RestoreVersion {
  VersionedDocuments documents;
  Response operator()(const Request& request) const {
    const auto key = KeyOf(documents, request);
    return JsonResponse(200, documents.restore(key.key, VersionOf(request), key.tenant));
  }
};

struct PutDraft {
  VersionedDocuments documents;
  Response operator()(const Request& request) const {
    const auto key = KeyOf(documents, request);
    const nlohmann::json body = ParseJsonObject(request);
    documents.check_body(key.key, body);
    return JsonResponse(200, DraftView(documents, key, documents.versions->PutDraft(key, body)));
  }
};

struct GetDraft {
  VersionedDocuments documents;
  Response operator()(const Request& request) const {
    const auto key = KeyOf(documents, request);
    return JsonResponse(200, DraftView(documents, key, documents.versions->GetDraft(key)));
  }
};

struct DeleteDraft {
  VersionedDocuments documents;
  Response operator()(const Request& request) const {
    documents.versions->DeleteDraft(KeyOf(documents, request));
    return NoContentResponse();
  }
};

// Whether `find` finds the document: core::RequestError kNotFound is no.
template <typename Find>
bool Exists(const Find& find) {
  try {
    find();
    return true;
  } catch (const core::RequestError& e) {
    if (e.code() != core::ErrorCode::kNotFound) throw;
    return false;
  }
}

struct Publish {
  VersionedDocuments documents;
  Response operator()(const Request& request) const {
    const auto key = KeyOf(documents, request);
    return JsonResponse(200, documents.publish(key.key, key.tenant));
  }
};

}  // namespace

void RegisterVersionRoutes(Router& router, const VersionedDocuments& documents) {
  const std::string& path = documents.path;
  router.Add("GET", path + "/versions", Auth::kServerKey, ListVersions{documents});
  router.Add("GET", path + "/versions/{n}", Auth::kServerKey, GetVersion{documents});
  router.Add("POST", path + "/versions/{n}/restore", Auth::kServerKey, RestoreVersion{documents});
  router.Add("PUT", path + "/draft", Auth::kServerKey, PutDraft{documents});
  router.Add("GET", path + "/draft", Auth::kServerKey, GetDraft{documents});
  router.Add("DELETE", path + "/draft", Auth::kServerKey, DeleteDraft{documents});
  router.Add("POST", path + "/publish", Auth::kServerKey, Publish{documents});
}

void RegisterTemplateVersionRoutes(Router& router, templates::TemplateStore& store) {
  RegisterVersionRoutes(
      router, VersionedDocuments{
                  .kind = templates::DocumentKind::kTemplate,
                  .path = "/v1/templates/{type:str}",
                  .key_name = "type",
                  .check_key =
                      [](const std::string& type) {
                        if (!hub::IsValidType(type)) {
                          throw core::InvalidField(
                              "type", "type must match ^[a-z]+(\\.[a-z_]+)*$, e.g. task.due");
                        }
                      },
                  .check_body =
                      [](const std::string& type, const nlohmann::json& body) {
                        (void)templates::ParseTemplate(type, body);
                      },
                  .exists =
                      [&store](const std::string& type, const std::optional<std::string>& tenant) {
                        return Exists([&] { (void)store.Get(type, tenant); });
                      },
                  .restore =
                      [&store](const std::string& type, int version,
                               const std::optional<std::string>& tenant) {
                        return TemplateView(store.Restore(type, version, tenant));
                      },
                  .publish =
                      [&store](const std::string& type, const std::optional<std::string>& tenant) {
                        return TemplateView(store.Publish(type, tenant));
                      },
                  .versions = &store.versions()});
}

void RegisterFragmentVersionRoutes(Router& router, templates::TemplateStore& store) {
  for (templates::FragmentStore* fragments : {&store.layouts(), &store.partials()}) {
    const std::string base =
        fragments->kind() == templates::FragmentKind::kLayout ? "/v1/layouts" : "/v1/partials";
    RegisterVersionRoutes(
        router,
        VersionedDocuments{
            .kind = fragments->history_kind(),
            .path = base + "/{key:str}",
            .key_name = "key",
            .check_key =
                [](const std::string& key) {
                  if (!templates::IsValidFragmentKey(key)) {
                    throw core::InvalidField("key", "key must match ^[a-z0-9][a-z0-9_.-]{0,99}$");
                  }
                },
            .check_body =
                [fragments](const std::string& key, const nlohmann::json& body) {
                  (void)templates::ParseFragment(fragments->kind(), key, body);
                },
            .exists =
                [fragments](const std::string& key, const std::optional<std::string>& tenant) {
                  return Exists([&] { (void)fragments->Get(key, tenant); });
                },
            .restore =
                [fragments](const std::string& key, int version,
                            const std::optional<std::string>& tenant) {
                  return FragmentView(fragments->Restore(key, version, tenant));
                },
            .publish =
                [fragments](const std::string& key, const std::optional<std::string>& tenant) {
                  return FragmentView(fragments->Publish(key, tenant));
                },
            .versions = &fragments->versions()});
  }
}

}  // namespace chopar::http
