// Email layouts and Mustache partials (docs/api.md "Layouts", "Partials").
#include "http/fragment_routes.hpp"

#include "core/request_error.hpp"
#include "http/json_view.hpp"
#include "http/tenancy.hpp"

namespace chopar::http {
namespace {

const std::string& KeyOf(const Request& request) {
  const std::string& key = request.String("key");
  if (!templates::IsValidFragmentKey(key)) {
    throw core::InvalidField("key", "key must match ^[a-z0-9][a-z0-9_.-]{0,99}$, e.g. footer");
  }
  return key;
}

struct PutFragment {
  templates::FragmentStore& store;
  Response operator()(const Request& request) const {
    const auto parsed =
        templates::ParseFragment(store.kind(), KeyOf(request), ParseJsonObject(request));
    return JsonResponse(200, FragmentView(store.Put(parsed, QueryTenant(request))));
  }
};

struct GetFragment {
  templates::FragmentStore& store;
  Response operator()(const Request& request) const {
    return JsonResponse(200, FragmentView(store.Get(KeyOf(request), QueryTenant(request))));
  }
};

struct ListFragments {
  templates::FragmentStore& store;
  Response operator()(const Request& request) const {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& stored : store.List(QueryTenant(request)))
      items.push_back(FragmentView(stored));
    return JsonResponse(200, {{"items", std::move(items)}});
  }
};

struct DeleteFragment {
  templates::FragmentStore& store;
  Response operator()(const Request& request) const {
    store.Delete(KeyOf(request), QueryTenant(request));
    return NoContentResponse();
  }
};

void Register(Router& router, templates::FragmentStore& store, const std::string& base) {
  router.Add("GET", base, Auth::kServerKey, ListFragments{store});
  router.Add("PUT", base + "/{key:str}", Auth::kServerKey, PutFragment{store});
  router.Add("GET", base + "/{key:str}", Auth::kServerKey, GetFragment{store});
  router.Add("DELETE", base + "/{key:str}", Auth::kServerKey, DeleteFragment{store});
}

}  // namespace

nlohmann::json FragmentView(const templates::StoredFragment& stored) {
  nlohmann::json view = {{"key", stored.fragment->key}, {"tenant", OrNull(stored.tenant)}};
  for (const auto& [name, value] : stored.fragment->document.items()) view[name] = value;
  view["version"] = OrNull(stored.version);
  view["created_at"] = TimeView(stored.created_at);
  view["updated_at"] = TimeView(stored.updated_at);
  return view;
}

void RegisterFragmentRoutes(Router& router, templates::TemplateStore& store) {
  Register(router, store.layouts(), "/v1/layouts");
  Register(router, store.partials(), "/v1/partials");
}

}  // namespace chopar::http
