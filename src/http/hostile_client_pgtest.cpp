// One client must not take the service down: hostile bodies, headers and
// connections get a clear answer (or are dropped) while others are served.
#include <gtest/gtest.h>

#include "http/http_server_fixture.hpp"

namespace chopar::http::testing {
namespace {

using nlohmann::json;

class HostileClientTest : public HttpServerTest {};

TEST_F(HostileClientTest, DeeplyNestedJsonIs400NotAStackOverflow) {
  PutUser(1, {{"email", "a@example.uz"}});
  // Just under the 1 MiB body limit: about half a million levels.
  const std::size_t depth = 500'000;
  const std::string body = R"({"user_id": 1, "type": "task.due", "title": "t", "data": {"x": )" +
                           std::string(depth, '[') + std::string(depth, ']') + "}}";
  ASSERT_LT(body.size(), std::size_t{1} << 20);
  const auto response = client().Post("/v1/notifications", body, {kAuth});
  EXPECT_EQ(response.status, 400) << response.body;
  EXPECT_EQ(response.ErrorCode(), "invalid_json");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), 0);
  EXPECT_EQ(client().Get("/healthz").status, 200);
}

}  // namespace
}  // namespace chopar::http::testing
