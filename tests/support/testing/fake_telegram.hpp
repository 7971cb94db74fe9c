#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "testing/fake_http_server.hpp"

namespace chopar::testing {

// Telegram Bot API answers in the real shape: {"ok":true,"result":{...}}.
FakeHttpServer::Response BotOk(std::int64_t message_id);
// {"ok":false,"error_code":…,"description":…[,"parameters":{"retry_after":…}]}
// with the same HTTP status, as Telegram answers errors.
FakeHttpServer::Response BotError(int code, const std::string& description,
                                  std::optional<int> retry_after = std::nullopt);

// A Bot API on 127.0.0.1: answers each request (sendMessage) as the caller
// says (faults included: FakeHttpServer::Response's delay and reset), after
// an optional latency, and records when each request arrived, the delivery
// it carries and how many were being answered at once; `server()` has every
// request with the answer it got. Thread-safe.
class FakeTelegram {
 public:
  using Answer = std::function<FakeHttpServer::Response(const nlohmann::json& body)>;
  struct Arrival {
    std::string target;  // e.g. "/bot<token>/sendMessage"
    nlohmann::json body;
    std::chrono::steady_clock::time_point at;
    std::optional<std::int64_t> delivery_id{};  // X-Chopar-Delivery-Id
  };

  explicit FakeTelegram(Answer answer,
                        std::chrono::milliseconds latency = std::chrono::milliseconds(0));
  FakeTelegram(const FakeTelegram&) = delete;
  FakeTelegram& operator=(const FakeTelegram&) = delete;

  // Every request so far, in the order they arrived.
  [[nodiscard]] std::vector<Arrival> arrivals() const;
  [[nodiscard]] int max_in_flight() const { return max_in_flight_.load(); }
  [[nodiscard]] std::string url() const { return server_.url(); }
  [[nodiscard]] const FakeHttpServer& server() const { return server_; }

 private:
  FakeHttpServer::Response Handle(const FakeHttpServer::Request& request);

  Answer answer_;
  std::chrono::milliseconds latency_;
  mutable std::mutex mutex_;
  std::vector<Arrival> arrivals_;
  std::atomic<int> in_flight_{0};
  std::atomic<int> max_in_flight_{0};
  FakeHttpServer server_;  // last: its threads use the members above
};

}  // namespace chopar::testing
