// Who may call what, against the built binary: every route that takes the
// server's credentials (`chopar routes --access`, the table the server
// itself enforces) is called with a key of each scope and with keys
// confined to a tenant. A key whose scopes cover the route's is never
// refused with 403; any other key always is, before the handler runs. A
// route missing from the table fails here too (it is refused to everyone).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "blackbox_support.hpp"
#include "testing/child_process.hpp"

namespace chopar {
namespace {

using nlohmann::json;
using testing::WaitUntil;
using namespace std::chrono_literals;

constexpr char kApiKey[] = "access-bootstrap-key";

struct DeclaredRoute {
  std::string method;
  std::string path;  // "/v1/users/{id}"
  std::string scope;
  std::string tenancy;  // "global" or "tenant"
};

// `chopar routes --access`, the routes that take the server's credentials.
std::vector<DeclaredRoute> ServerRoutes() {
  std::unique_ptr<FILE, decltype(&pclose)> out(
      popen((std::string(CHOPAR_BINARY) + " routes --access").c_str(), "r"), pclose);
  std::string text;
  std::array<char, 4096> buffer{};
  while (const std::size_t n = fread(buffer.data(), 1, buffer.size(), out.get())) {
    text.append(buffer.data(), n);
  }
  std::vector<DeclaredRoute> routes;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    DeclaredRoute route;
    words >> route.method >> route.path >> route.scope >> route.tenancy;
    if (route.scope == "public" || route.scope == "subscriber") continue;
    routes.push_back(route);
  }
  return routes;
}

// A path of the route with its parameters filled in.
std::string Concrete(std::string path) {
  const std::map<std::string, std::string> values = {
      // No id names anything: a DELETE /v1/api-keys/{id} must not take a key away.
      {"{id}", "999999"},
      {"{sub_id}", "999999"},
      {"{device_id}", "999999"},
      {"{key}", "nothing"},
      {"{type}", "nothing.here"},
      {"{channel}", "email"},
      {"{address}", "a@b.uz"},
      {"{team_id}", "T00000000"},
      {"{notification_id}", "999999"},
      {"{n}", "0"},
  };
  for (const auto& [name, value] : values) {
    for (auto at = path.find(name); at != std::string::npos; at = path.find(name)) {
      path.replace(at, name.size(), value);
    }
  }
  return path;
}

// What a key's scopes let it do, spelled out as docs/tenants-and-access.md
// does: admin implies every scope, manage implies operate and read, operate
// implies read.
std::set<std::string> Implied(const std::vector<std::string>& scopes) {
  std::set<std::string> all;
  for (const auto& scope : scopes) {
    all.insert(scope);
    if (scope == "admin") all.insert({"notify", "read", "operate", "manage"});
    if (scope == "manage") all.insert({"operate", "read"});
    if (scope == "operate") all.insert("read");
  }
  return all;
}

struct Key {
  std::vector<std::string> scopes;
  std::optional<std::string> tenant;
  std::string secret;
};

class RouteAccess : public testing::ServeBlackBox {
 protected:
  RouteAccess() : ServeBlackBox(kApiKey) {}

  // A call with `key` and an empty JSON object as the body of a method that
  // takes one. Not recorded for tests/openapi/exchanges.test.mjs: its
  // bodies are not meant to be valid requests, only to reach the check.
  net::HttpResponse CallAs(const std::string& key, const std::string& method,
                           const std::string& path) {
    net::HttpRequest request;
    request.method = method;
    request.url = "http://127.0.0.1:" + std::to_string(port_) + path;
    request.headers = {"Authorization: Bearer " + key, "Content-Type: application/json"};
    if (method != "GET" && method != "DELETE") request.body = "{}";
    request.timeout = std::chrono::seconds(10);
    return client_.Perform(request);
  }

  net::HttpClient client_;

  std::string Create(const Key& key) {
    json body = {{"name", "route access"}, {"scopes", key.scopes}};
    if (key.tenant) body["tenant"] = *key.tenant;
    const auto response = api_->Call("POST", "/v1/api-keys", body);
    EXPECT_EQ(response.status, 201) << response.body;
    return json::parse(response.body).value("key", "");
  }
};

TEST_F(RouteAccess, EveryRouteRefusesExactlyTheKeysWhoseScopeOrTenantDoesNotCoverIt) {
  auto serve = StartServe("serve.log");
  ASSERT_TRUE(WaitUntil([&] { return api_->Healthy(); }, 60s)) << serve->Output();
  ASSERT_EQ(api_->Call("PUT", "/v1/tenants/acme", json{{"name", "Acme"}}).status, 201);

  std::vector<Key> keys = {
      {{"notify"}, std::nullopt, ""},         {{"read"}, std::nullopt, ""},
      {{"manage"}, std::nullopt, ""},         {{"admin"}, std::nullopt, ""},
      {{"notify", "read"}, std::nullopt, ""}, {{"read"}, "acme", ""},
      {{"notify", "manage"}, "acme", ""},
  };
  for (Key& key : keys) key.secret = Create(key);

  const std::vector<DeclaredRoute> routes = ServerRoutes();
  ASSERT_GT(routes.size(), 50u);
  int refused = 0, admitted = 0;
  for (const DeclaredRoute& route : routes) {
    ASSERT_NE(route.scope, "undeclared")
        << route.method << " " << route.path << " is not in src/http/route_access.cpp";
    const std::string path = Concrete(route.path);
    for (const Key& key : keys) {
      const bool scoped = Implied(key.scopes).contains(route.scope);
      const bool reachable = !key.tenant || route.tenancy == "tenant";
      const auto response = CallAs(key.secret, route.method, path);
      const std::string label = route.method + " " + route.path + " with " +
                                json(key.scopes).dump() + (key.tenant ? " of " + *key.tenant : "");
      ASSERT_NE(response.status, 0) << label << ": " << response.error_message;
      if (scoped && reachable) {
        EXPECT_NE(response.status, 403) << label << ": " << response.body;
        // The key is good; only the routes of a console session itself
        // (sign-out, the session) then want the session's cookie instead.
        if (response.status == 401) {
          EXPECT_NE(response.body.find("console session"), std::string::npos)
              << label << ": " << response.body;
        }
        ++admitted;
      } else {
        EXPECT_EQ(response.status, 403) << label << ": " << response.body;
        EXPECT_NE(response.body.find("\"forbidden\""), std::string::npos) << label;
        ++refused;
      }
    }
  }
  std::cout << routes.size() << " routes × " << keys.size() << " keys: " << admitted
            << " admitted, " << refused << " refused\n";
}

}  // namespace
}  // namespace chopar
