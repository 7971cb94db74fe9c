// What access control costs (docs/BENCHMARKS.md, "Tenants and access"):
//
//   1. The dispatcher's check per request: the same route called with the
//      bootstrap key (a constant-time compare, the ceiling) and with a key of
//      POST /v1/api-keys (its SHA-256 and the per-process cache, after the
//      first lookup), in interleaved rounds on one thread; printed as
//      nanoseconds per request and the ratio of the two.
//   2. The audit log's cost per write: the same upsert of a user row that
//      changes it, with an actor (the trigger writes one audit row in the
//      transaction) and without (the trigger's WHEN stops it: the ceiling),
//      in interleaved rounds; printed as microseconds per write and the
//      ratio.
//
// Run under scripts/with-test-pg (it makes its own database):
//   bash scripts/with-test-pg build/bench/access_bench [rounds]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "access/api_keys.hpp"
#include "core/metrics.hpp"
#include "db/actor.hpp"
#include "db/pool.hpp"
#include "http/access_routes.hpp"
#include "http/dispatcher.hpp"
#include "http/http_metrics.hpp"
#include "http/router.hpp"
#include "testing/test_database.hpp"

namespace {

using namespace chopar;
using Clock = std::chrono::steady_clock;

constexpr int kRequests = 200000;
constexpr int kWrites = 2000;
constexpr const char* kBootstrapKey = "access-bench-bootstrap-key-of-43-characters";

double NanosPerRequest(http::Dispatcher& dispatcher, const std::string& key) {
  http::Request request;
  request.method = "GET";
  request.path = "/v1/users/42";
  request.headers["authorization"] = "Bearer " + key;
  const auto start = Clock::now();
  for (int i = 0; i < kRequests; ++i) {
    http::Request copy = request;
    const http::Response response = dispatcher.Dispatch(copy);
    if (response.status != 200) {
      std::fprintf(stderr, "unexpected %d: %s\n", response.status, response.body.c_str());
      std::exit(1);
    }
  }
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count() / kRequests;
}

constexpr db::Query kTouchUser{
    "bench.touch_user",
    "INSERT INTO chopar.users (id, email) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE "
    "SET email = EXCLUDED.email, updated_at = now()",
    db::Plan::kAny};

double MicrosPerWrite(db::Pool& pool, bool audited, int round) {
  std::optional<db::ActorScope> actor;
  if (audited) actor.emplace(R"({"actor":"key:1","name":"bench","address":"127.0.0.1"})");
  const auto start = Clock::now();
  for (int i = 0; i < kWrites; ++i) {
    const std::string email = "u" + std::to_string(i) + "r" + std::to_string(round) +
                              (audited ? "a" : "p") + "@example.com";
    pool.Acquire()->Exec(kTouchUser, 1 + (i % 100), email);
  }
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count() / kWrites;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
  if (!chopar::testing::TestDatabase::Available()) {
    std::fprintf(stderr, "run under scripts/with-test-pg\n");
    return 2;
  }
  chopar::testing::TestDatabase database;
  db::Pool pool(database.url(), 2);
  access::ApiKeyStore keys(pool);
  const std::string key = keys.Create({.name = "bench",
                                       .scopes = {"read"},
                                       .tenant = std::nullopt,
                                       .expires_at = std::nullopt})
                              .secret;

  core::MetricsRegistry metrics;
  http::HttpMetrics http_metrics(metrics);
  http::Router router;
  router.Add("GET", "/v1/users/{id}", http::Auth::kServerKey, [](const http::Request&) {
    return http::JsonResponse(200, {{"ok", true}});
  });
  http::Dispatcher dispatcher(router, http::AuthKeys{kBootstrapKey, "secret", std::nullopt, {}, {}},
                              http_metrics);
  dispatcher.AcceptCredentials({.api_keys = http::ApiKeyResolver(keys), .sessions = {}});
  (void)NanosPerRequest(dispatcher, key);  // warm: the key's first lookup, the caches

  std::printf("round  bootstrap_ns  api_key_ns  ratio  plain_write_us  audited_write_us  ratio\n");
  std::vector<double> request_ratios, write_ratios;
  for (int round = 0; round < rounds; ++round) {
    // Interleaved, alternating which goes first.
    const bool key_first = round % 2 == 1;
    double with_key = key_first ? NanosPerRequest(dispatcher, key) : 0;
    const double bootstrap = NanosPerRequest(dispatcher, kBootstrapKey);
    if (!key_first) with_key = NanosPerRequest(dispatcher, key);
    double audited = key_first ? MicrosPerWrite(pool, true, round) : 0;
    const double plain = MicrosPerWrite(pool, false, round);
    if (!key_first) audited = MicrosPerWrite(pool, true, round);
    request_ratios.push_back(with_key / bootstrap);
    write_ratios.push_back(audited / plain);
    std::printf("%5d  %12.0f  %10.0f  %5.2f  %14.1f  %16.1f  %5.2f\n", round + 1, bootstrap,
                with_key, with_key / bootstrap, plain, audited, audited / plain);
  }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf("median ratios: api key / bootstrap key %.2f; audited / plain write %.2f\n",
              median(request_ratios), median(write_ratios));
  std::printf("audit rows written: %s\n",
              database.Scalar("SELECT count(*) FROM chopar.audit_log").c_str());
  return 0;
}
