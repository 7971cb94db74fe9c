#include "testing/fake_telegram.hpp"

#include <algorithm>
#include <thread>

namespace chopar::testing {

using nlohmann::json;

FakeHttpServer::Response BotOk(std::int64_t message_id) {
  return {200,
          json{{"ok", true}, {"result", {{"message_id", message_id}, {"date", 1700000000}}}}.dump(),
          {}};
}

FakeHttpServer::Response BotError(int code, const std::string& description,
                                  std::optional<int> retry_after) {
  json body = {{"ok", false}, {"error_code", code}, {"description", description}};
  if (retry_after) body["parameters"] = {{"retry_after", *retry_after}};
  return {code, body.dump(), {}};
}

FakeTelegram::FakeTelegram(Answer answer, std::chrono::milliseconds latency)
    : answer_(std::move(answer)),
      latency_(latency),
      server_([this](const FakeHttpServer::Request& r) { return Handle(r); }) {}

std::vector<FakeTelegram::Arrival> FakeTelegram::arrivals() const {
  std::vector<Arrival> sorted;
  {
    std::lock_guard lock(mutex_);
    sorted = arrivals_;
  }
  // Handlers run on several threads; order by the instant each arrived.
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Arrival& a, const Arrival& b) { return a.at < b.at; });
  return sorted;
}

FakeHttpServer::Response FakeTelegram::Handle(const FakeHttpServer::Request& request) {
  const auto at = std::chrono::steady_clock::now();
  const json body = json::parse(request.body, nullptr, /*allow_exceptions=*/false);
  {
    std::lock_guard lock(mutex_);
    arrivals_.push_back({request.target, body, at, request.delivery_id});
  }
  const int now_in_flight = ++in_flight_;
  int seen = max_in_flight_.load();
  while (now_in_flight > seen && !max_in_flight_.compare_exchange_weak(seen, now_in_flight)) {
  }
  if (latency_.count() > 0) std::this_thread::sleep_for(latency_);  // the provider's response time
  --in_flight_;
  return answer_(body);
}

}  // namespace chopar::testing
