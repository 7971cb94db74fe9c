// Every route that needs the server's credentials is in the route access
// table, and the table names no route that is not there: a new route
// without a declared scope fails here (and is refused to every caller).
#include "http/route_access.hpp"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/api_routes.hpp"

namespace chopar::app {
namespace {

std::vector<std::string> RouteLines() {
  std::ostringstream out;
  PrintRoutes(out, /*with_access=*/true);
  std::vector<std::string> lines;
  std::istringstream in(out.str());
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(RouteAccessTest, EveryServerCredentialRouteDeclaresItsScope) {
  std::vector<std::string> undeclared;
  for (const auto& line : RouteLines()) {
    if (line.ends_with(" undeclared")) undeclared.push_back(line);
  }
  EXPECT_TRUE(undeclared.empty()) << "routes missing from src/http/route_access.cpp: "
                                  << testing::PrintToString(undeclared);
}

TEST(RouteAccessTest, TheTableNamesOnlyRegisteredServerCredentialRoutes) {
  std::set<std::string> registered;
  for (const auto& line : RouteLines()) {
    if (line.ends_with(" global") || line.ends_with(" tenant")) {
      // "GET /v1/users/{id} read global" → "GET /v1/users/{id}"
      registered.insert(line.substr(0, line.find(' ', line.find(' ') + 1)));
    }
  }
  EXPECT_GT(registered.size(), 50u);
  for (const auto& route : http::DeclaredRoutes()) {
    const std::string name = std::string(route.method) + " " + std::string(route.pattern);
    EXPECT_TRUE(registered.contains(name)) << name << " is declared but not registered";
  }
}

}  // namespace
}  // namespace chopar::app
