#include "chaos_lab.hpp"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <fstream>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "channels/webpush/crypto.hpp"
#include "channels/webpush/vapid.hpp"
#include "core/encoding.hpp"
#include "core/time_format.hpp"
#include "db/connection.hpp"
#include "db/pool.hpp"
#include "failover_fault.hpp"
#include "net/http_client.hpp"
#include "outbox/emit.hpp"
#include "testing/child_process.hpp"
#include "testing/fake_http_server.hpp"
#include "testing/fake_smtp_server.hpp"
#include "testing/fake_telegram.hpp"
#include "testing/test_server.hpp"

namespace chopar::faults {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using std::chrono::milliseconds;
using SteadyClock = std::chrono::steady_clock;
using testing::FakeHttpServer;
using testing::FakeSmtpServer;

constexpr char kApiKey[] = "chaos-api-key";
constexpr char kBotToken[] = "424242:chaos-bot";
constexpr std::int64_t kFirstChat = 7'000'000'000;
// chopar waits this long for a provider (an SMTP session, an HTTP request).
constexpr auto kProviderTimeout = 15s;
// A slow provider that still answers in time, and one that never does.
constexpr auto kStall = 10s;
constexpr auto kHang = kProviderTimeout + 5s;
// The outbox relay's batch, and the secret its webhook signs with.
constexpr int kRelayBatch = 20;
constexpr char kWebhookSecret[] = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
// The slow receiver (ChaosSettings::slow_receiver): each answer this late,
// drawn at random, and the listen backlog of a modest threaded server.
constexpr auto kSlowAnswerMin = 1000ms;
constexpr auto kSlowAnswerMax = 3000ms;
constexpr int kSlowReceiverBacklog = 16;

enum class Fault { kNone, kError, kTooMany, kTimeout, kReset, kStall };
constexpr Fault kProviderFaults[] = {Fault::kError, Fault::kTooMany, Fault::kTimeout, Fault::kReset,
                                     Fault::kStall};

std::string FaultName(Fault fault) {
  switch (fault) {
    case Fault::kError:
      return "500 (SMTP 451)";
    case Fault::kTooMany:
      return "429 + Retry-After (SMTP 450)";
    case Fault::kTimeout:
      return "no answer within the timeout";
    case Fault::kReset:
      return "connection reset";
    case Fault::kStall:
      return "10 s stall, then accepted";
    case Fault::kNone:
      break;
  }
  return "none";
}

// A seeded source of randomness shared by the lab's threads.
class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}
  double Uniform(double low, double high) {
    std::lock_guard lock(mutex_);
    return std::uniform_real_distribution<double>(low, high)(engine_);
  }
  milliseconds Between(milliseconds low, milliseconds high) {
    return milliseconds(
        static_cast<std::int64_t>(Uniform(double(low.count()), double(high.count()))));
  }
  std::size_t Index(std::size_t size) {
    std::lock_guard lock(mutex_);
    return std::uniform_int_distribution<std::size_t>(0, size - 1)(engine_);
  }

 private:
  std::mutex mutex_;
  std::mt19937_64 engine_;
};

// What the lab did, with the time: faults and restarts, for the timelines
// of duplicates. Thread-safe.
class EventLog {
 public:
  void Add(std::string what) {
    std::lock_guard lock(mutex_);
    events_.emplace_back(std::chrono::system_clock::now(), std::move(what));
  }
  [[nodiscard]] std::vector<std::pair<core::TimePoint, std::string>> Between(
      core::TimePoint from, core::TimePoint to) const {
    std::lock_guard lock(mutex_);
    std::vector<std::pair<core::TimePoint, std::string>> out;
    for (const auto& event : events_) {
      if (event.first >= from && event.first <= to) out.push_back(event);
    }
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::pair<core::TimePoint, std::string>> events_;
};

// A provider's fault episode: until `until`, a `share` of its requests get
// `fault`. Thread-safe.
class FaultSwitch {
 public:
  explicit FaultSwitch(Random& random) : random_(random) {}
  void Begin(Fault fault, SteadyClock::time_point until, double share) {
    std::lock_guard lock(mutex_);
    fault_ = fault;
    until_ = until;
    share_ = share;
  }
  void End() { Begin(Fault::kNone, {}, 0); }
  Fault Next() {
    Fault fault;
    double share;
    {
      std::lock_guard lock(mutex_);
      if (fault_ == Fault::kNone || SteadyClock::now() >= until_) return Fault::kNone;
      fault = fault_;
      share = share_;
    }
    return random_.Uniform(0, 1) < share ? fault : Fault::kNone;
  }

 private:
  Random& random_;
  std::mutex mutex_;
  Fault fault_ = Fault::kNone;
  SteadyClock::time_point until_;
  double share_ = 0;
};

// The provider fakes, and the receiver of the outbox's webhook, answering
// as their faults say; with `slow_webhook`, the webhook is a modest receiver
// that answers everything 1-3 s late and has a listen backlog of 16.
class Providers {
  // Before the servers, whose handlers use them.
  Random& random_;
  const bool slow_webhook_;

 public:
  Providers(Random& random, bool slow_webhook)
      : random_(random),
        slow_webhook_(slow_webhook),
        email_faults(random),
        postmark_faults(random),
        telegram_faults(random),
        push_faults(random),
        webhook_faults(random),
        webhook([this](const FakeHttpServer::Request&) { return Webhook(); },
                FakeHttpServer::Options{slow_webhook ? kSlowReceiverBacklog : 0}) {}

  FaultSwitch email_faults, postmark_faults, telegram_faults, push_faults, webhook_faults;
  FakeSmtpServer smtp{[this](FakeSmtpServer::Stage stage, const FakeSmtpServer::Session& session) {
    return Smtp(stage, session);
  }};
  testing::FakeTelegram telegram{[this](const json&) { return Telegram(); }};
  FakeHttpServer push{[this](const FakeHttpServer::Request&) { return Push(); }};
  // Email's second provider ([[channels.email.providers]] after SMTP): a
  // Postmark-speaking API with faults of its own. A message either may take
  // counts for its delivery: once across both, or it is a duplicate.
  FakeHttpServer postmark{[this](const FakeHttpServer::Request& r) { return Postmark(r); }};
  // The application's webhook that chopar's outbox relay publishes to.
  FakeHttpServer webhook;

 private:
  // Decided (and recorded as accepted, or not) at once; a slow receiver
  // only answers later — what it took stays taken.
  FakeHttpServer::Response Webhook() {
    FakeHttpServer::Response answer = HttpAnswer(webhook_faults, {200, "ok", {}, "text/plain"});
    if (slow_webhook_) answer.delay += random_.Between(kSlowAnswerMin, kSlowAnswerMax);
    return answer;
  }

  // A message's fault is drawn at MAIL FROM and kept for its end of DATA.
  FakeSmtpServer::Action Smtp(FakeSmtpServer::Stage stage, const FakeSmtpServer::Session& session) {
    using Stage = FakeSmtpServer::Stage;
    if (stage == Stage::kMailFrom) {
      const Fault fault = email_faults.Next();
      {
        std::lock_guard lock(mutex_);
        smtp_fault_[session.connection] = fault;
      }
      if (fault == Fault::kTooMany) return {"450 4.2.1 Too many messages, slow down", false, 0ms};
      if (fault == Fault::kTimeout) return {"", false, kHang};
      if (fault == Fault::kReset) return {"", true, 0ms};
    } else if (stage == Stage::kDataEnd) {
      Fault fault = Fault::kNone;
      {
        std::lock_guard lock(mutex_);
        if (const auto found = smtp_fault_.find(session.connection); found != smtp_fault_.end()) {
          fault = found->second;
          smtp_fault_.erase(found);
        }
      }
      if (fault == Fault::kError)
        return {"451 4.3.0 Temporary failure, try again later", false, 0ms};
      if (fault == Fault::kStall) return {"", false, kStall};
    }
    return {};
  }

  FakeHttpServer::Response Telegram() {
    FakeHttpServer::Response response;
    switch (telegram_faults.Next()) {
      case Fault::kError:
        return testing::BotError(500, "Internal Server Error");
      case Fault::kTooMany:
        return testing::BotError(429, "Too Many Requests: retry after 2", 2);
      case Fault::kTimeout:
        response.delay = kHang;
        response.reset = true;
        return response;
      case Fault::kReset:
        response.reset = true;
        return response;
      case Fault::kStall:
        response = testing::BotOk(++message_ids_);
        response.delay = kStall;
        return response;
      case Fault::kNone:
        break;
    }
    return testing::BotOk(++message_ids_);
  }

  FakeHttpServer::Response Postmark(const FakeHttpServer::Request& request) {
    return HttpAnswer(postmark_faults,
                      {200,
                       json({{"ErrorCode", 0},
                             {"Message", "OK"},
                             {"MessageID", "pm-" + std::to_string(request.delivery_id.value_or(0)) +
                                               "-" + std::to_string(++message_ids_)}})
                           .dump(),
                       {},
                       "application/json"});
  }

  FakeHttpServer::Response Push() {
    return HttpAnswer(push_faults,
                      {201,
                       "",
                       {{"Location", push.url() + "/m/" + std::to_string(++message_ids_)}},
                       "text/plain"});
  }

  // `accepted`, unless `faults` draw a fault for this request.
  static FakeHttpServer::Response HttpAnswer(FaultSwitch& faults,
                                             FakeHttpServer::Response accepted) {
    switch (faults.Next()) {
      case Fault::kError:
        return {500, "internal error", {}, "text/plain"};
      case Fault::kTooMany:
        return {429, "slow down", {{"Retry-After", "2"}}, "text/plain"};
      case Fault::kTimeout:
        accepted.delay = kHang;
        accepted.reset = true;
        break;
      case Fault::kReset:
        accepted.reset = true;
        break;
      case Fault::kStall:
        accepted.delay = kStall;
        break;
      case Fault::kNone:
        break;
    }
    return accepted;
  }

  std::mutex mutex_;
  std::map<int, Fault> smtp_fault_;  // SMTP connection → its current message's fault
  std::atomic<std::int64_t> message_ids_{0};
};

// The chopar processes, each on its own port and data folder; a process
// killed is started again by Supervise(). Used by one thread at a time.
class Fleet {
 public:
  // Each process runs `chopar --config <config_file> serve` with `env`.
  Fleet(const ChaosSettings& settings, std::filesystem::path config_file,
        std::map<std::string, std::string> env, EventLog& events)
      : settings_(settings),
        config_file_(std::move(config_file)),
        env_(std::move(env)),
        events_(events) {
    for (int i = 0; i < settings.processes; ++i) {
      members_.push_back({testing::FreeLoopbackPort(), nullptr, 0, {}});
      std::filesystem::create_directories(DataDir(i));
    }
  }

  void Start(int i) {
    Member& m = members_[i];
    std::map<std::string, std::string> env = env_;
    env["CHOPAR_SERVER_LISTEN"] = "127.0.0.1:" + std::to_string(m.port);
    env["CHOPAR_SERVER_DATA_DIR"] = DataDir(i).string();
    const auto log = settings_.work_dir /
                     ("chopar-" + std::to_string(i) + "." + std::to_string(++m.starts) + ".log");
    m.process = std::make_unique<testing::ChildProcess>(
        std::vector<std::string>{settings_.chopar_binary, "--config", config_file_.string(),
                                 "serve"},
        env, log, DataDir(i));
    m.restart_at.reset();
    events_.Add("chopar " + std::to_string(i) + " started (pid " +
                std::to_string(m.process->pid()) + ")");
  }
  void Kill(int i, milliseconds restart_after) {
    Member& m = members_[i];
    events_.Add("kill -9 of chopar " + std::to_string(i) + " (pid " +
                std::to_string(m.process->pid()) + ")");
    m.process->Signal(SIGKILL);
    m.process->Wait(10s);
    m.restart_at = SteadyClock::now() + restart_after;
  }
  // Starts again the processes whose restart time has come (`now`: all).
  // A process that exited by itself (chopar gives up when the database is
  // down while it starts) is started again 2 s later, as the service
  // manager does (packaging/chopar.service: Restart=on-failure,
  // RestartSec=2s); `exited` counts those.
  void Supervise(bool now = false) {
    for (int i = 0; i < size(); ++i) {
      Member& m = members_[i];
      if (!m.restart_at && m.process && !m.process->Running()) {
        const int code = m.process->Wait(0ms);
        events_.Add("chopar " + std::to_string(i) + " exited by itself with " +
                    std::to_string(code) + "; restarted in 2 s");
        ++exited_;
        m.restart_at = SteadyClock::now() + 2s;
      }
      if (m.restart_at && (now || SteadyClock::now() >= *m.restart_at)) Start(i);
    }
  }
  [[nodiscard]] int exited() const { return exited_; }
  [[nodiscard]] bool Alive(int i) { return members_[i].process && members_[i].process->Running(); }
  [[nodiscard]] int size() const { return static_cast<int>(members_.size()); }
  [[nodiscard]] std::vector<int> Ports() const {
    std::vector<int> ports;
    for (const Member& m : members_) ports.push_back(m.port);
    return ports;
  }
  // SIGTERM to each; their exit codes (-1: still running after `timeout`).
  std::vector<int> Stop(std::chrono::seconds timeout) {
    for (Member& m : members_) m.process->Signal(SIGTERM);
    std::vector<int> codes;
    for (Member& m : members_) codes.push_back(m.process->Wait(timeout));
    return codes;
  }

 private:
  struct Member {
    int port;
    std::unique_ptr<testing::ChildProcess> process;
    int starts;
    std::optional<SteadyClock::time_point> restart_at;
  };
  std::filesystem::path DataDir(int i) const {
    return settings_.work_dir / ("chopar-" + std::to_string(i));
  }

  const ChaosSettings& settings_;
  std::filesystem::path config_file_;
  std::map<std::string, std::string> env_;
  EventLog& events_;
  std::vector<Member> members_;
  int exited_ = 0;
};

// An API client that goes to any process of the fleet and keeps trying
// (another process, a moment later) until it gets an answer that is not a
// failure of the service. Thread-safe.
class Client {
 public:
  Client(std::vector<int> ports, Random& random) : ports_(std::move(ports)), random_(random) {}

  // The answer's body, or nullopt when none came within `give_up` or the
  // request was refused (4xx other than 429; `refusal` says why).
  std::optional<json> Call(const std::string& method, const std::string& path, const json& body,
                           milliseconds give_up, std::string* refusal = nullptr) {
    const auto deadline = SteadyClock::now() + give_up;
    for (;;) {
      net::HttpRequest request;
      request.method = method;
      request.url =
          "http://127.0.0.1:" + std::to_string(ports_[random_.Index(ports_.size())]) + path;
      request.headers = {"Authorization: Bearer " + std::string(kApiKey),
                         "Content-Type: application/json"};
      if (!body.is_null()) request.body = body.dump();
      request.timeout = 10s;
      const net::HttpResponse response = http_.Perform(request);
      if (response.status >= 200 && response.status < 300) {
        if (method == "POST" && path.starts_with("/v1/notifications")) {
          std::lock_guard lock(mutex_);
          write_ends_.push_back(SteadyClock::now());
        }
        return response.body.empty() ? json::object() : json::parse(response.body, nullptr, false);
      }
      if (response.status >= 400 && response.status < 500 && response.status != 429) {
        if (refusal != nullptr) *refusal = std::to_string(response.status) + " " + response.body;
        return std::nullopt;
      }
      if (SteadyClock::now() >= deadline) return std::nullopt;
      std::this_thread::sleep_for(random_.Between(50ms, 300ms));
    }
  }

  // When each notify request (single or batch) that succeeded got its
  // answer: what a failover's write outage is measured on.
  [[nodiscard]] std::vector<SteadyClock::time_point> write_ends() const {
    std::lock_guard lock(mutex_);
    return write_ends_;
  }

 private:
  const std::vector<int> ports_;
  Random& random_;
  net::HttpClient http_;
  mutable std::mutex mutex_;
  std::vector<SteadyClock::time_point> write_ends_;
};

// The mixed workload: notifications over HTTP (single and batch, each with
// its own dedup key, retried with the same key until accepted), schedules
// firing every minute, broadcasts to every user when the settings ask for
// them (each with its dedup key, retried until accepted), and outbox events that an application of
// the lab's own (schema chaos_app in the same database) writes in the transactions of its orders,
// for chopar's relay to publish to a webhook. Thread-safe where it says so.
class Workload {
 public:
  Workload(const ChaosSettings& settings, Client& client, const std::string& database_url)
      : settings_(settings), client_(client), app_(database_url, 2, 2s) {}

  // The application's table: one order per event, its event id written in
  // the same transaction as the event (docs/outbox.md, "Writing an event").
  void CreateApplication() {
    auto tx = app_.Begin("chaos_app_schema");
    tx.ExecText("CREATE SCHEMA chaos_app");
    tx.ExecText(
        "CREATE TABLE chaos_app.orders (id bigserial PRIMARY KEY, tick bigint NOT NULL, "
        "event_id uuid NOT NULL UNIQUE, created_at timestamptz NOT NULL DEFAULT now())");
    tx.Commit();
  }

  void CreateUsers(const std::string& push_url) {
    const auto browser = channels::webpush::GenerateP256KeyPair();
    const json keys = {{"p256dh", core::Base64UrlEncode(browser.public_key)},
                       {"auth", core::Base64UrlEncode(core::RandomBytes(16))}};
    std::atomic<int> next{1};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        for (int id = next++; id <= settings_.users; id = next++) {
          const std::string user = "/v1/users/" + std::to_string(id);
          Require(
              client_.Call("PUT", user, {{"email", "u" + std::to_string(id) + "@chaos.test"}}, 60s),
              user);
          Require(client_.Call("PUT", user + "/telegram", {{"chat_id", kFirstChat + id}}, 60s),
                  user);
          Require(client_.Call(
                      "POST", user + "/push-subscriptions",
                      {{"endpoint", push_url + "/p/" + std::to_string(id)}, {"keys", keys}}, 60s),
                  user);
        }
      });
    }
    for (auto& thread : threads) thread.join();
  }

  void CreateSchedules() {
    for (int k = 1; k <= settings_.schedules; ++k) {
      const std::string key = "chaos-" + std::to_string(k);
      const json body = {{"user_id", k},
                         {"cron", "* * * * *"},
                         {"timezone", "UTC"},
                         {"notification",
                          {{"type", "chaos.tick"},
                           {"title", "tick " + key},
                           {"channels", {"email", "telegram", "push"}}}},
                         {"catchup", {{"policy", "all"}, {"window_seconds", 3600}}}};
      const auto answer = client_.Call("PUT", "/v1/schedules/" + key, body, 60s);
      Require(answer, key);
      first_due_[key] = *core::ParseRfc3339((*answer)["next_fire_at"].get<std::string>());
    }
  }
  void DeleteSchedules() {
    for (const auto& [key, first] : first_due_)
      client_.Call("DELETE", "/v1/schedules/" + key, nullptr, 60s);
  }
  [[nodiscard]] const std::map<std::string, core::TimePoint>& schedules() const {
    return first_due_;
  }

  // Sends notifications at the settings' rate until Stop(), on two threads,
  // and broadcasts on a third.
  void Start() {
    for (int t = 0; t < 2; ++t) senders_.emplace_back([this] { Send(); });
    if (settings_.broadcast_every.count() > 0) senders_.emplace_back([this] { Broadcast(); });
  }
  // Stops sending; requests in flight keep trying until accepted.
  void Stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    stop_wake_.notify_all();
    for (auto& thread : senders_) thread.join();
  }
  // The broadcasts the API accepted, by id.
  [[nodiscard]] std::set<std::int64_t> broadcasts() const {
    std::lock_guard lock(mutex_);
    return broadcasts_;
  }

  // One order and its event in one transaction of the application's; every
  // tenth transaction rolls back instead, and its event must never reach the
  // webhook. A transaction cut by a crash is the database's to decide: the
  // checks read which orders exist. Returns how many events it committed
  // (0 or 1). Called by the sender threads.
  int EmitOutboxEvents(std::int64_t tick) {
    const bool roll_back = tick % 10 == 9;
    try {
      auto tx = app_.Begin("chaos_app_order");
      const std::string event_id =
          outbox::Emit(tx, "chaos.order", tick % settings_.users + 1, {{"tick", tick}});
      tx.ExecText("INSERT INTO chaos_app.orders (tick, event_id) VALUES ($1, $2::uuid)",
                  db::Params(tick, event_id));
      if (roll_back) {
        std::lock_guard lock(mutex_);
        rolled_back_.insert(event_id);
        return 0;  // the transaction's destructor rolls it back
      }
      tx.Commit();
      return 1;
    } catch (const std::exception&) {
      ++emits_failed_;  // the database is down or restarting
      return 0;
    }
  }
  // Event ids whose transaction the application rolled back.
  [[nodiscard]] std::set<std::string> rolled_back() const {
    std::lock_guard lock(mutex_);
    return rolled_back_;
  }
  // Order transactions that failed (the database down); they may have
  // committed all the same when the connection broke at COMMIT.
  [[nodiscard]] std::int64_t emits_failed() const { return emits_failed_; }

  [[nodiscard]] std::set<std::string> accepted() const {
    std::lock_guard lock(mutex_);
    return accepted_;
  }
  [[nodiscard]] std::int64_t gave_up() const { return gave_up_; }
  [[nodiscard]] std::vector<std::string> problems() const {
    std::lock_guard lock(mutex_);
    return problems_;
  }

 private:
  void Require(const std::optional<json>& answer, const std::string& what) {
    if (!answer) throw std::runtime_error("chaos lab: set-up request failed: " + what);
  }

  // A broadcast to every user every broadcast_every, the first after half of it.
  void Broadcast() {
    auto due = SteadyClock::now() + settings_.broadcast_every / 2;
    for (int n = 1;; ++n) {
      {
        std::unique_lock lock(mutex_);
        if (stop_wake_.wait_until(lock, due, [this] { return stopping_.load(); })) return;
      }
      const json body = {{"audience", "all"},
                         {"dedup_key", "chaos-broadcast-" + std::to_string(n)},
                         {"notification",
                          {{"type", "chaos.broadcast"},
                           {"title", "broadcast " + std::to_string(n)},
                           {"channels", {"email", "telegram", "push"}}}}};
      std::string refusal;
      const auto answer = client_.Call("POST", "/v1/broadcasts", body, 120s, &refusal);
      std::lock_guard lock(mutex_);
      if (answer && answer->contains("id")) {
        broadcasts_.insert((*answer)["id"].get<std::int64_t>());
      } else {
        problems_.push_back("broadcast " + std::to_string(n) +
                            " not accepted: " + (refusal.empty() ? "no answer in 120 s" : refusal));
      }
      due += settings_.broadcast_every;
    }
  }

  void Send() {
    const auto period = std::chrono::duration<double>(2.0 / settings_.notifications_per_second);
    auto due = SteadyClock::now();
    while (!stopping_) {
      const std::int64_t seq = next_seq_.fetch_add(1);
      EmitOutboxEvents(seq);
      std::vector<json> items;
      const int count = seq % 8 == 0 ? 4 : 1;  // every eighth request is a batch
      for (int i = 0; i < count; ++i) {
        const std::int64_t n = seq * 8 + i;
        items.push_back({{"user_id", static_cast<int>(n % settings_.users) + 1},
                         {"type", "chaos.note"},
                         {"title", "note " + std::to_string(n)},
                         {"body", "chaos lab"},
                         {"dedup_key", "chaos-" + std::to_string(n)},
                         {"channels", {"email", "telegram", "push"}}});
      }
      std::string refusal;
      const auto answer = count == 1
                              ? client_.Call("POST", "/v1/notifications", items[0], 120s, &refusal)
                              : client_.Call("POST", "/v1/notifications/batch",
                                             {{"notifications", items}}, 120s, &refusal);
      {
        std::lock_guard lock(mutex_);
        if (answer && (count == 1 || AllAccepted(*answer, count))) {
          for (const json& item : items) accepted_.insert(item["dedup_key"].get<std::string>());
        } else {
          gave_up_ += count;
          problems_.push_back("notification request " + std::to_string(seq) + " not accepted: " +
                              (refusal.empty() ? "no answer in 120 s" : refusal));
        }
      }
      due += std::chrono::duration_cast<SteadyClock::duration>(period);
      std::this_thread::sleep_until(due);
    }
  }
  static bool AllAccepted(const json& answer, int count) {
    if (!answer.contains("results") || answer["results"].size() != static_cast<std::size_t>(count))
      return false;
    for (const json& result : answer["results"]) {
      if (!result.contains("id")) return false;
    }
    return true;
  }

  const ChaosSettings& settings_;
  Client& client_;
  db::Pool app_;  // the application's connections, for its orders and events
  std::map<std::string, core::TimePoint> first_due_;  // schedule key → its first due time
  std::atomic<bool> stopping_{false};
  std::atomic<std::int64_t> next_seq_{0};
  std::vector<std::thread> senders_;
  mutable std::mutex mutex_;
  std::condition_variable stop_wake_;
  std::set<std::int64_t> broadcasts_;
  std::set<std::string> accepted_;
  std::int64_t gave_up_ = 0;
  std::vector<std::string> problems_;
  std::set<std::string> rolled_back_;
  std::atomic<std::int64_t> emits_failed_{0};
};

// Injects one fault at random: kill -9 of a live chopar (started again
// after 0.5-3 s), a PostgreSQL crash and restart (at most one every 8 s;
// none without `database_crashes`: the failover fault replaces them), or
// an episode of 2-6 s in which 80 % of the requests to one provider (or to
// the outbox webhook) fail one way.
void InjectFault(Fleet& fleet, Providers& providers, Random& random, ChaosReport& report,
                 EventLog& events, SteadyClock::time_point& last_crash, bool database_crashes) {
  const double draw = random.Uniform(0, 1);
  if (draw < 0.3) {
    std::vector<int> alive;
    for (int i = 0; i < fleet.size(); ++i) {
      if (fleet.Alive(i)) alive.push_back(i);
    }
    if (!alive.empty()) {
      fleet.Kill(alive[random.Index(alive.size())], random.Between(500ms, 3000ms));
      ++report.faults["kill -9 of a chopar process"];
      return;
    }
  }
  if (database_crashes && draw < 0.45 && SteadyClock::now() - last_crash > 8s) {
    events.Add("PostgreSQL crash (pg_ctl restart -m immediate)");
    testing::TestServer::CrashAndRestart();
    events.Add("PostgreSQL back");
    last_crash = SteadyClock::now();
    ++report.faults["PostgreSQL crash and restart (pg_ctl restart -m immediate)"];
    return;
  }
  FaultSwitch* switches[] = {&providers.email_faults, &providers.postmark_faults,
                             &providers.telegram_faults, &providers.push_faults,
                             &providers.webhook_faults};
  const char* names[] = {"email (SMTP, first)", "email (Postmark, second)", "telegram", "push",
                         "webhook"};
  const std::size_t which = random.Index(std::size(switches));
  const Fault fault = kProviderFaults[random.Index(std::size(kProviderFaults))];
  const milliseconds length = random.Between(2000ms, 6000ms);
  switches[which]->Begin(fault, SteadyClock::now() + length, 0.8);
  const std::string kind = std::string(names[which]) + " provider: " + FaultName(fault);
  ++report.faults[kind];
  events.Add(kind + " for " + std::to_string(length.count()) + " ms");
}

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(
      std::min<double>(values.size() - 1, std::floor(p * values.size())))];
}

// Waits until `query` (a count) is 0, reconnecting as needed; false on timeout.
bool WaitForZero(const std::string& url, const std::string& query,
                 SteadyClock::time_point deadline) {
  while (SteadyClock::now() < deadline) {
    try {
      auto conn = db::Connection::Open(url);
      while (SteadyClock::now() < deadline) {
        if (conn.ExecText(query, {}).Int(0, 0) == 0) return true;
        std::this_thread::sleep_for(500ms);
      }
    } catch (const std::exception&) {
      std::this_thread::sleep_for(500ms);
    }
  }
  return false;
}

// Every message a provider fake accepted, by channel and delivery id.
struct Received {
  std::map<std::pair<std::string, std::int64_t>, int> count;  // (channel, delivery) → times
  std::int64_t without_id = 0;
  std::int64_t requests = 0;
  // (channel, delivery) → every request for it: when, and what it was.
  std::map<std::pair<std::string, std::int64_t>,
           std::vector<std::pair<core::TimePoint, std::string>>>
      sends;
};

Received CountReceived(const Providers& providers) {
  Received received;
  for (const auto& message : providers.smtp.messages()) {
    if (message.delivery_id) {
      ++received.count[{"email", *message.delivery_id}];
      received.sends[{"email", *message.delivery_id}].emplace_back(
          message.accepted_at,
          "smtp: accepted on connection " + std::to_string(message.connection));
    } else {
      ++received.without_id;
    }
  }
  received.requests += static_cast<std::int64_t>(providers.smtp.connections());
  auto count_http = [&](const FakeHttpServer& server, const char* channel, int accepted_status) {
    for (const auto& request : server.requests()) {
      ++received.requests;
      if (request.delivery_id) {
        received.sends[{channel, *request.delivery_id}].emplace_back(
            request.received_at,
            std::string(channel) + " request from pid " +
                (request.instance ? std::to_string(*request.instance) : "?") + ", answered " +
                (request.answer_status == 0 ? "with a reset/no answer"
                                            : std::to_string(request.answer_status)));
      }
      if (request.answer_status != accepted_status) continue;
      if (request.delivery_id) {
        ++received.count[{channel, *request.delivery_id}];
      } else {
        ++received.without_id;
      }
    }
  };
  count_http(providers.postmark, "email", 200);
  count_http(providers.telegram.server(), "telegram", 200);
  count_http(providers.push, "push", 201);
  return received;
}

// The timeline of one duplicate: its row, the requests for it and the
// lab's events from a minute before the first to the last.
std::vector<std::string> Timeline(db::Connection& conn, const std::string& channel, std::int64_t id,
                                  const Received& received, const EventLog& events) {
  std::vector<std::string> lines;
  const auto row = conn.ExecText(
      "SELECT status, attempts, coalesce(last_error, ''), coalesce(claimed_at::text, '-'), "
      "coalesce(send_started_at::text, '-'), coalesce(sent_at::text, '-'), created_at::text "
      "FROM chopar.deliveries WHERE id = $1",
      db::Params(id));
  if (row.Rows() == 1) {
    lines.push_back(channel + " delivery " + std::to_string(id) + ": " + row.String(0, 0) +
                    " after " + row.String(0, 1) + " attempts; created " + row.String(0, 6) +
                    ", last claimed " + row.String(0, 3) + ", send started " + row.String(0, 4) +
                    ", sent " + row.String(0, 5) + "; last_error: " + row.String(0, 2));
  }
  std::vector<std::pair<core::TimePoint, std::string>> all;
  const auto found = received.sends.find({channel, id});
  if (found != received.sends.end()) all = found->second;
  if (!all.empty()) {
    const auto [first, last] = std::minmax_element(all.begin(), all.end());
    auto around = events.Between(first->first - 60s, last->first + 5s);
    all.insert(all.end(), around.begin(), around.end());
  }
  std::sort(all.begin(), all.end());
  for (const auto& [at, what] : all) lines.push_back(core::FormatRfc3339Micros(at) + " " + what);
  return lines;
}

// Why a delivery failed as "outcome unknown", from its reason and the faults after its send started
// (`started`, seconds since the epoch; a send is cut short within the
// provider's timeout and the lease after it).
std::string UnknownCause(const std::string& reason, double started, const EventLog& events,
                         const std::vector<FailoverRun>& failovers) {
  if (!reason.starts_with("outcome unknown: attempt")) {
    return "the provider reset, dropped or stalled the request past the timeout";
  }
  const core::TimePoint from = core::FromUnixMicros(static_cast<std::int64_t>(started * 1e6)) - 1s;
  const core::TimePoint to = from + kProviderTimeout + 15s;
  // A kill -9 first: they are frequent, and one falls within most
  // failovers' windows too.
  for (const auto& [at, what] : events.Between(from, to)) {
    if (what.starts_with("kill -9")) return "taken back, a kill -9 of a chopar process around it";
  }
  for (const FailoverRun& run : failovers) {
    if (run.began_wall <= to && run.promoted_wall >= from) {
      return "taken back, only a failover of the primary around it";
    }
  }
  for (const auto& [at, what] : events.Between(from, to)) {
    if (what.starts_with("PostgreSQL crash")) return "taken back, a PostgreSQL crash around it";
  }
  return "taken back, no fault of the lab's around it";
}

void Check(const std::string& url, const Workload& workload, const Received& received,
           const EventLog& events, const std::vector<FailoverRun>& failovers,
           core::TimePoint stopped_at, ChaosReport& report) {
  auto conn = db::Connection::Open(url);
  auto problem = [&](const std::string& line) {
    if (report.problems.size() < 200) report.problems.push_back(line);
  };

  // Notifications: every request the client had accepted is there.
  const std::set<std::string> accepted = workload.accepted();
  report.notifications_requested = static_cast<std::int64_t>(accepted.size());
  std::set<std::string> stored;
  const auto notes = conn.ExecText(
      "SELECT dedup_key FROM chopar.notifications WHERE dedup_key LIKE 'chaos-%'", {});
  for (int i = 0; i < notes.Rows(); ++i) stored.insert(notes.String(i, 0));
  for (const std::string& key : accepted) {
    if (!stored.contains(key)) {
      ++report.notifications_lost;
      problem("notification " + key + " accepted by the API but not in the database");
    }
  }
  report.client_gave_up = workload.gave_up();
  for (const std::string& line : workload.problems()) problem(line);

  // Schedules: each minute up to the end of the faults fired exactly once.
  const auto fired = conn.ExecText(
      "SELECT dedup_key, extract(epoch FROM created_at)::float8 FROM chopar.notifications "
      "WHERE dedup_key LIKE 'schedule:chaos-%'",
      {});
  std::map<std::string, std::map<std::int64_t, int>> fired_by_key;  // key → due → times
  for (int i = 0; i < fired.Rows(); ++i) {
    const std::string dedup = fired.String(i, 0);  // schedule:<key>:<due>
    const auto colon = dedup.rfind(':');
    const std::string key = dedup.substr(9, colon - 9);
    const std::int64_t due = std::stoll(dedup.substr(colon + 1));
    ++fired_by_key[key][due];
    report.schedule_lateness_max =
        std::max(report.schedule_lateness_max, fired.Double(i, 1) - double(due));
  }
  const std::int64_t stop = core::ToUnixMicros(stopped_at) / 1'000'000;
  for (const auto& [key, first] : workload.schedules()) {
    const std::int64_t first_due = core::ToUnixMicros(first) / 1'000'000;
    std::set<std::int64_t> expected;
    for (std::int64_t due = first_due; due <= stop; due += 60) expected.insert(due);
    report.schedule_occurrences_expected += static_cast<std::int64_t>(expected.size());
    const auto& got = fired_by_key[key];
    for (const std::int64_t due : expected) {
      const auto found = got.find(due);
      if (found == got.end()) {
        ++report.schedule_occurrences_lost;
        problem("schedule " + key + ": occurrence " + std::to_string(due) + " never fired");
      }
    }
    for (const auto& [due, times] : got) {
      if (due > stop) continue;  // fired while draining, after the window
      if (!expected.contains(due) || times > 1) {
        ++report.schedule_occurrences_doubled;
        problem("schedule " + key + ": unexpected or repeated occurrence " + std::to_string(due));
      }
    }
  }

  // Deliveries, against what the providers received.
  const auto deliveries = conn.ExecText(
      "SELECT d.id, d.channel, d.status, coalesce(d.last_error, ''), "
      "extract(epoch FROM d.sent_at - d.created_at)::float8, "
      "extract(epoch FROM d.send_started_at)::float8 FROM chopar.deliveries d",
      {});
  report.notifications_in_database =
      std::stoll(conn.ExecText("SELECT count(*) FROM chopar.notifications", {}).String(0, 0));
  const auto by_provider = conn.ExecText(
      "SELECT coalesce(provider, 'none'), count(*) FROM chopar.deliveries WHERE channel = 'email' "
      "GROUP BY 1",
      {});
  for (int i = 0; i < by_provider.Rows(); ++i) {
    report.email_by_provider[by_provider.String(i, 0)] = by_provider.Int(i, 1);
  }
  std::set<std::pair<std::string, std::int64_t>> known;
  std::vector<double> latencies;
  report.deliveries = deliveries.Rows();
  for (int i = 0; i < deliveries.Rows(); ++i) {
    const std::int64_t id = deliveries.Int(i, 0);
    const std::string channel = deliveries.String(i, 1);
    const std::string status = deliveries.String(i, 2);
    const std::string reason = deliveries.String(i, 3);
    known.insert({channel, id});
    ++report.deliveries_by_status[status];
    if (!deliveries.IsNull(i, 4)) latencies.push_back(deliveries.Double(i, 4));
    const auto found = received.count.find({channel, id});
    const int times = found == received.count.end() ? 0 : found->second;
    const std::string what = channel + " delivery " + std::to_string(id) + " (" + status +
                             (reason.empty() ? "" : ": " + reason) + ")";
    if (status == "queued" || status == "sending") {
      ++report.unsettled;
      problem(what + " not settled after the drain");
    }
    if (times > 1) {
      ++report.duplicates;
      problem(what + " received " + std::to_string(times) + " times");
      if (report.duplicate_timelines.size() < 100)
        report.duplicate_timelines.push_back(Timeline(conn, channel, id, received, events));
    } else if (times == 0 && status == "failed" && reason.starts_with("outcome unknown")) {
      // Its process was killed while the batch was being handed over, before
      // the provider accepted it: failed, and said so, rather than risk a
      // second delivery (docs/RELIABILITY.md, "At most once after a crash").
      ++report.unknown_not_received;
      ++report.unknown_causes[UnknownCause(
          reason, deliveries.IsNull(i, 5) ? 0 : deliveries.Double(i, 5), events, failovers)];
    } else if (times == 0 && status != "queued" && status != "sending") {
      ++report.lost;
      problem(what + " never received");
    } else if (times == 1 && status == "failed") {
      ++report.unknown_but_received;
      ++report.unknown_received_causes[UnknownCause(
          reason, deliveries.IsNull(i, 5) ? 0 : deliveries.Double(i, 5), events, failovers)];
      if (!reason.starts_with("outcome unknown")) problem(what + " received, yet recorded failed");
    }
  }
  for (const auto& [key, times] : received.count) {
    if (!known.contains(key)) {
      report.phantoms += times;
      problem(key.first + " message for delivery " + std::to_string(key.second) +
              ", which does not exist");
    }
  }
  report.phantoms += received.without_id;
  report.received = 0;
  for (const auto& [key, times] : received.count) report.received += times;
  report.provider_requests = received.requests;
  report.delivery_latency_p50 = Percentile(latencies, 0.5);
  report.delivery_latency_p99 = Percentile(latencies, 0.99);
  report.delivery_latency_max = Percentile(latencies, 1.0);
}

// The cluster's PostgreSQL and how it commits, for the report.
std::string DescribeCluster(const std::string& url) {
  auto conn = db::Connection::Open(url);
  const auto row = conn.ExecText(
      "SELECT current_setting('server_version'), current_setting('synchronous_commit'), "
      "current_setting('synchronous_standby_names')",
      {});
  return "pg_auto_failover cluster, PostgreSQL " + row.String(0, 0) +
         ", synchronous_commit = " + row.String(0, 1) + ", synchronous_standby_names = '" +
         row.String(0, 2) + "'";
}

// What the chopar processes' logs (chopar-*.log in `work_dir`) say of
// sends the database cut short: batches whose outcomes could not be
// recorded before their lease ran out (their holder alive), and batches
// whose start failed, by their count of deliveries.
void CountCutShortSends(const std::filesystem::path& work_dir, ChaosReport& report) {
  // The number right after `prefix` in `line`, 0 if none.
  auto number_after = [](const std::string& line, const std::string& prefix) -> std::int64_t {
    const auto at = line.find(prefix);
    if (at == std::string::npos) return 0;
    try {
      return std::stoll(line.substr(at + prefix.size()));
    } catch (const std::exception&) {
      return 0;
    }
  };
  for (const auto& entry : std::filesystem::directory_iterator(work_dir)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("chopar-") || !name.ends_with(".log")) continue;
    std::ifstream log(entry.path());
    for (std::string line; std::getline(log, line);) {
      if (line.find("their lease ran out meanwhile") != std::string::npos) {
        report.outcomes_unrecorded_in_lease += number_after(line, "recording ");
      } else if (line.find("starting the send of") != std::string::npos) {
        report.sends_not_started += number_after(line, "starting the send of ");
      }
    }
  }
}

// Each failover's figures; a write outage counts up to the next failover
// (or the end of the workload, `workload_end`).
std::vector<FailoverFigure> FailoverFigures(const std::vector<FailoverRun>& runs,
                                            const std::vector<SteadyClock::time_point>& write_ends,
                                            SteadyClock::time_point workload_end) {
  std::vector<FailoverFigure> figures;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const FailoverRun& run = runs[i];
    const auto window_end = i + 1 < runs.size() ? runs[i + 1].began : workload_end;
    const Recovery recovery = MeasureRecovery(run.began, run.promoted, window_end, write_ends);
    figures.push_back({run.kind, std::chrono::duration<double>(run.promoted - run.began).count(),
                       recovery.recovery_seconds, recovery.outage_seconds,
                       std::chrono::duration<double>(run.healthy - run.began).count(), run.error});
  }
  return figures;
}

double EpochSeconds(core::TimePoint at) { return double(core::ToUnixMicros(at)) / 1e6; }

// The outbox events against what the webhook accepted, by event id: every
// order the application committed has its event accepted at least once, no
// other event is, and an event accepted twice had a relay loop cut short
// (a kill -9, a PostgreSQL crash, or a failover — from its command until
// the new primary took writes) between its acceptances — the
// at-least-once of docs/outbox.md, "What the relay does". A loop's request
// may be read long after it was sent (queued behind a stalled one, up to the
// relay's timeout), so a crash that far before the first acceptance may
// have cut short the loop that sent it, before its commit.
void CheckOutbox(db::Connection& conn, const Workload& workload, const FakeHttpServer& webhook,
                 const EventLog& events, const std::vector<FailoverRun>& failovers,
                 ChaosReport& report) {
  auto problem = [&](const std::string& line) {
    if (report.problems.size() < 200) report.problems.push_back(line);
  };
  std::map<std::string, std::vector<const FakeHttpServer::Request*>> accepted;  // event id →
  const std::vector<FakeHttpServer::Request> requests = webhook.requests();
  report.outbox_requests = static_cast<std::int64_t>(requests.size());
  for (const auto& request : requests) {
    if (request.answer_status < 200 || request.answer_status >= 300) continue;
    const auto id = request.headers.find("webhook-id");
    accepted[id == request.headers.end() ? "" : id->second].push_back(&request);
  }
  const auto orders = conn.ExecText(
      "SELECT event_id::text, extract(epoch FROM created_at)::float8 FROM chaos_app.orders", {});
  std::set<std::string> committed;
  std::vector<double> latencies;
  for (int i = 0; i < orders.Rows(); ++i) {
    const std::string id = orders.String(i, 0);
    committed.insert(id);
    const auto found = accepted.find(id);
    if (found == accepted.end()) {
      ++report.outbox_lost;
      problem("outbox event " + id + " committed but never accepted by the webhook");
      continue;
    }
    latencies.push_back(EpochSeconds(found->second.front()->received_at) - orders.Double(i, 1));
  }
  report.outbox_events = static_cast<std::int64_t>(committed.size());
  const std::set<std::string> rolled_back = workload.rolled_back();
  report.outbox_rolled_back = static_cast<std::int64_t>(rolled_back.size());
  for (const auto& [id, times] : accepted) {
    if (!committed.contains(id)) {
      report.outbox_phantoms += static_cast<std::int64_t>(times.size());
      problem("outbox event " + id + " accepted by the webhook but " +
              (rolled_back.contains(id) ? "its transaction rolled back" : "never emitted"));
      continue;
    }
    ++report.outbox_received;
    if (times.size() < 2) continue;
    ++report.outbox_repeated;
    report.outbox_repeats += static_cast<std::int64_t>(times.size()) - 1;
    bool explained = true;
    for (std::size_t k = 1; k < times.size(); ++k) {
      bool cut_short = false;
      const core::TimePoint from = times[k - 1]->received_at - kProviderTimeout - 1s;
      const core::TimePoint to = times[k]->received_at;
      for (const auto& [at, what] : events.Between(from, to)) {
        if (what.starts_with("kill -9") || what.starts_with("PostgreSQL crash")) cut_short = true;
      }
      for (const FailoverRun& run : failovers) {
        if (run.began_wall <= to && run.promoted_wall >= from) cut_short = true;
      }
      explained = explained && cut_short;
    }
    if (explained) continue;
    ++report.outbox_unexplained_repeats;
    problem("outbox event " + id + " accepted " + std::to_string(times.size()) +
            " times with no relay loop cut short between");
    if (report.duplicate_timelines.size() >= 100) continue;
    std::vector<std::pair<core::TimePoint, std::string>> all;
    for (const auto* request : times) all.emplace_back(request->received_at, "webhook accepted it");
    auto around = events.Between(times.front()->received_at - 60s, times.back()->received_at + 5s);
    all.insert(all.end(), around.begin(), around.end());
    std::sort(all.begin(), all.end());
    std::vector<std::string> lines{"outbox event " + id};
    for (const auto& [at, what] : all) lines.push_back(core::FormatRfc3339Micros(at) + " " + what);
    report.duplicate_timelines.push_back(std::move(lines));
  }
  report.outbox_latency_p99 = Percentile(latencies, 0.99);
  report.outbox_latency_max = Percentile(latencies, 1.0);
}

// Each broadcast the API accepted walked every user and gave each one
// notification: none missing, none twice.
void CheckBroadcasts(db::Connection& conn, const Workload& workload, int users,
                     ChaosReport& report) {
  auto problem = [&](const std::string& line) {
    if (report.problems.size() < 200) report.problems.push_back(line);
  };
  const std::set<std::int64_t> accepted = workload.broadcasts();
  report.broadcasts = static_cast<std::int64_t>(accepted.size());
  const auto rows = conn.ExecText(
      "SELECT b.id, b.status, count(n.id), count(DISTINCT n.user_id) "
      "FROM chopar.broadcasts b LEFT JOIN chopar.notifications n "
      "ON n.dedup_key = 'broadcast:' || b.id WHERE b.dedup_key LIKE 'chaos-broadcast-%' "
      "GROUP BY b.id, b.status",
      {});
  std::set<std::int64_t> stored;
  for (int i = 0; i < rows.Rows(); ++i) {
    const std::int64_t id = rows.Int(i, 0);
    const std::string name = "broadcast " + std::to_string(id);
    stored.insert(id);
    const std::int64_t notifications = rows.Int(i, 2), recipients = rows.Int(i, 3);
    report.broadcast_recipients += recipients;
    if (rows.String(i, 1) != "done") {
      ++report.broadcasts_unfinished;
      problem(name + " is " + rows.String(i, 1) + " after the drain");
    }
    if (recipients < users) {
      report.broadcast_recipients_lost += users - recipients;
      problem(name + ": " + std::to_string(users - recipients) + " users without its notification");
    }
    if (notifications > recipients) {
      report.broadcast_recipients_doubled += notifications - recipients;
      problem(name + ": " + std::to_string(notifications - recipients) + " notifications twice");
    }
  }
  for (const std::int64_t id : accepted) {
    if (stored.contains(id)) continue;
    ++report.broadcasts_unfinished;
    problem("broadcast " + std::to_string(id) + " accepted by the API but not in the database");
  }
}

std::string Format(double value) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(1);
  out << value;
  return out.str();
}

}  // namespace

std::string ChaosReport::Markdown() const {
  std::ostringstream out;
  out << "| | |\n|---|---:|\n";
  out << "| seed | " << seed << " |\n";
  if (!cluster.empty()) out << "| database | " << cluster << " |\n";
  if (slow_receiver) {
    out << "| outbox webhook | slow receiver: every answer 1-3 s late, listen backlog "
        << kSlowReceiverBacklog << " |\n";
  }
  out << "| faults and workload, then drain (s) | " << Format(seconds) << " |\n";
  int total = 0;
  for (const auto& [kind, count] : faults) total += count;
  out << "| **faults injected** | **" << total << "** |\n";
  for (const auto& [kind, count] : faults) out << "| … " << kind << " | " << count << " |\n";
  out << "| notifications accepted by the API (client) | " << notifications_requested << " |\n";
  out << "| notifications in the database (with schedule firings) | " << notifications_in_database
      << " |\n";
  out << "| schedule occurrences due in the window | " << schedule_occurrences_expected << " |\n";
  out << "| deliveries | " << deliveries << " |\n";
  for (const auto& [status, count] : deliveries_by_status) {
    out << "| … " << status << " | " << count << " |\n";
  }
  for (const auto& [provider, count] : email_by_provider) {
    out << "| email deliveries answered by " << provider << " | " << count << " |\n";
  }
  out << "| chopar processes that exited by themselves (restarted, as by the service manager) | "
      << processes_exited << " |\n";
  out << "| requests / SMTP sessions the providers saw | " << provider_requests << " |\n";
  out << "| messages the providers accepted | " << received << " |\n";
  out << "| … of deliveries failed as \"outcome unknown\" (killed mid-send, or answered after "
         "the timeout) | "
      << unknown_but_received << " |\n";
  for (const auto& [cause, count] : unknown_received_causes) {
    out << "| … … " << cause << " | " << count << " |\n";
  }
  out << "| … failed as \"outcome unknown\", never received (killed, reset or dropped after the "
         "request left) | "
      << unknown_not_received << " |\n";
  for (const auto& [cause, count] : unknown_causes) {
    out << "| … … " << cause << " | " << count << " |\n";
  }
  out << "| deliveries whose outcomes chopar could not record before their lease ran out (holder "
         "alive; its log) / whose send failed to start (claimed again) | "
      << outcomes_unrecorded_in_lease << " / " << sends_not_started << " |\n";
  out << "| delivery latency p50 / p99 / max (s, created → sent) | " << Format(delivery_latency_p50)
      << " / " << Format(delivery_latency_p99) << " / " << Format(delivery_latency_max) << " |\n";
  out << "| schedule lateness max (s, due → notification) | " << Format(schedule_lateness_max)
      << " |\n";
  out << "| outbox events committed with their order / rolled back with it | " << outbox_events
      << " / " << outbox_rolled_back << " |\n";
  out << "| … webhook requests / events accepted | " << outbox_requests << " / " << outbox_received
      << " |\n";
  out << "| … events accepted again after a relay loop was cut short (same webhook-id; the "
         "receiver drops them) / repeats | "
      << outbox_repeated << " / " << outbox_repeats << " |\n";
  out << "| … event latency p99 / max (s, commit → accepted) | " << Format(outbox_latency_p99)
      << " / " << Format(outbox_latency_max) << " |\n";
  if (broadcasts > 0 || broadcasts_unfinished > 0) {
    out << "| broadcasts to every user accepted / their notifications | " << broadcasts << " / "
        << broadcast_recipients << " |\n";
    out << "| **broadcast recipients lost / given it twice / broadcasts unfinished** | **"
        << broadcast_recipients_lost << " / " << broadcast_recipients_doubled << " / "
        << broadcasts_unfinished << "** |\n";
  }
  out << "| **duplicates** (received more than once) | **" << duplicates << "** |\n";
  out << "| **lost deliveries** (never received) | **" << lost << "** |\n";
  out << "| **lost notifications** | **" << notifications_lost << "** |\n";
  out << "| **schedule occurrences lost / doubled** | **" << schedule_occurrences_lost << " / "
      << schedule_occurrences_doubled << "** |\n";
  out << "| phantom messages / unsettled deliveries / requests never accepted | " << phantoms
      << " / " << unsettled << " / " << client_gave_up << " |\n";
  out << "| **outbox events lost / phantom / accepted again unexplained** | **" << outbox_lost
      << " / " << outbox_phantoms << " / " << outbox_unexplained_repeats << "** |\n";
  if (!failovers.empty()) {
    out << "\n| failover | kind | cluster.sh (s) | recovery: fault → first commit after the pause "
           "(s) "
           "| longest pause of commits (s) | in sync again (s) |\n|---:|---|---:|---:|---:|---:|\n";
    for (std::size_t n = 0; n < failovers.size(); ++n) {
      const FailoverFigure& f = failovers[n];
      auto seconds = [](double value) { return value < 0 ? std::string("none") : Format(value); };
      out << "| " << n + 1 << " | " << f.kind << (f.error.empty() ? "" : " (" + f.error + ")")
          << " | " << Format(f.command_seconds) << " | " << seconds(f.recovery_seconds) << " | "
          << seconds(f.outage_seconds) << " | " << Format(f.healthy_seconds) << " |\n";
    }
    out << "\nTotals across the failovers: " << notifications_lost << " notifications lost, "
        << lost << " deliveries lost, " << duplicates << " duplicates, "
        << schedule_occurrences_lost << " / " << schedule_occurrences_doubled
        << " schedule occurrences lost / doubled, " << broadcast_recipients_lost << " / "
        << broadcast_recipients_doubled << " broadcast recipients lost / doubled, " << outbox_lost
        << " outbox events lost; " << unknown_not_received
        << " deliveries failed as \"outcome unknown\" and never received.\n";
  }
  for (const auto& timeline : duplicate_timelines) {
    out << "\nDuplicate:\n\n";
    for (const std::string& line : timeline) out << "    " << line << "\n";
  }
  return out.str();
}

ChaosReport RunChaos(const ChaosSettings& settings, const std::string& database_url) {
  ChaosReport report;
  report.seed = settings.seed;
  report.slow_receiver = settings.slow_receiver;
  Random random(settings.seed);
  if (settings.failover) {
    report.cluster = DescribeCluster(database_url);
  } else {
    testing::TestServer::KeepCommitsThroughCrashes(database_url);
  }
  Providers providers(random, settings.slow_receiver);
  const auto vapid = channels::webpush::GenerateVapidKeys();
  const auto provider_timeout = std::to_string(kProviderTimeout.count());
  std::map<std::string, std::string> env = {
      {"CHOPAR_DATABASE_URL", database_url},
      {"CHOPAR_SERVER_API_KEY", kApiKey},
      {"CHOPAR_SERVER_INBOX_SECRET", "chaos-inbox-secret"},
      {"CHOPAR_CHANNELS_SMS_CALLBACK_SECRET", "chaos-callback-secret"},
      {"CHOPAR_DELIVERY_LEASE_SECONDS", std::to_string(settings.lease.count())},
      {"CHOPAR_DELIVERY_MAX_ATTEMPTS", "100"},
      {"CHOPAR_DELIVERY_BACKOFF_INITIAL_SECONDS", "0.5"},
      {"CHOPAR_DELIVERY_BACKOFF_MAX_SECONDS", "5"},
      {"CHOPAR_DELIVERY_DRAIN_SECONDS", "5"},
      {"CHOPAR_LIMITS_HOURLY_EMAIL", "1000000"},
      {"CHOPAR_LIMITS_HOURLY_TELEGRAM", "1000000"},
      {"CHOPAR_LIMITS_HOURLY_PUSH", "1000000"},
      {"CHOPAR_CHANNELS_EMAIL_FROM", "chopar <noreply@chaos.test>"},
      {"CHOPAR_CHANNELS_EMAIL_TIMEOUT_SECONDS", provider_timeout},
      {"CHOPAR_CHANNELS_TELEGRAM_PROVIDER", "telegram"},
      {"CHOPAR_CHANNELS_TELEGRAM_BOT_TOKEN", kBotToken},
      {"CHOPAR_CHANNELS_TELEGRAM_API_BASE", providers.telegram.url()},
      {"CHOPAR_CHANNELS_TELEGRAM_UPDATES", "off"},
      {"CHOPAR_CHANNELS_TELEGRAM_MAX_PER_SECOND", "1000"},
      {"CHOPAR_CHANNELS_TELEGRAM_TIMEOUT_SECONDS", provider_timeout},
      {"CHOPAR_CHANNELS_PUSH_PROVIDER", "webpush"},
      {"CHOPAR_CHANNELS_PUSH_VAPID_PUBLIC_KEY", vapid.public_key},
      {"CHOPAR_CHANNELS_PUSH_VAPID_PRIVATE_KEY", vapid.private_key},
      {"CHOPAR_CHANNELS_PUSH_ALLOW_HTTP_ENDPOINTS", "true"},
      {"CHOPAR_CHANNELS_PUSH_TIMEOUT_SECONDS", provider_timeout},
  };
  // The relay publishes chopar's outbox (the application's events) to the
  // application's webhook; small batches, so a loop cut short repeats few.
  const std::filesystem::path config_file = settings.work_dir / "chopar.toml";
  std::ofstream(config_file) << "[relay]\nbatch = " << kRelayBatch
                             << "\nconcurrency = 2\nbackoff_initial_seconds = 0.5\n"
                                "backoff_max_seconds = 5\n\n[[relay.targets]]\n"
                                "kind = \"webhook\"\nurl = \""
                             << providers.webhook.url() << "/events\"\nsecret = \""
                             << kWebhookSecret << "\"\ntimeout_seconds = " << provider_timeout
                             << "\n\n"
                             // Two email providers: SMTP first, Postmark when SMTP does not
                             // take a message (docs/configuration.md, "Several providers per
                             // channel"); short circuits, so faults open and close them.
                             << "[[channels.email.providers]]\nkind = \"smtp\"\nsmtp_url = \""
                             << providers.smtp.url()
                             << "\"\nfailure_threshold = 3\nopen_seconds = 5\n\n"
                                "[[channels.email.providers]]\nkind = \"postmark\"\n"
                                "postmark_server_token = \"chaos\"\npostmark_base_url = \""
                             << providers.postmark.url()
                             << "\"\nfailure_threshold = 3\nopen_seconds = 5\n"
                             // Small batches, so a broadcast's fan-out spans faults.
                             << (settings.broadcast_every.count() > 0
                                     ? "\n[broadcast]\nbatch = 50\n"
                                     : "");
  EventLog events;
  Fleet fleet(settings, config_file, env, events);
  for (int i = 0; i < fleet.size(); ++i) fleet.Start(i);
  Client client(fleet.Ports(), random);
  Workload workload(settings, client, database_url);
  workload.CreateApplication();
  workload.CreateUsers(providers.push.url());
  workload.CreateSchedules();

  // Faults and workload.
  const auto started = SteadyClock::now();
  const auto end = started + settings.duration;
  workload.Start();
  std::unique_ptr<FailoverDriver> failovers;
  if (settings.failover) {
    failovers = std::make_unique<FailoverDriver>(
        settings.failover->cluster_script, settings.failover->cluster_dir, settings.failover->every,
        [&events](const std::string& what) {
          events.Add(what);
          std::cerr << "chaos lab: " << what << std::endl;
        });
    failovers->Start();
  }
  auto last_crash = started - 1h;
  auto next_fault = started + random.Between(settings.fault_every_min, settings.fault_every_max);
  while (SteadyClock::now() < end) {
    fleet.Supervise();
    if (SteadyClock::now() >= next_fault) {
      InjectFault(fleet, providers, random, report, events, last_crash, !settings.failover);
      next_fault =
          SteadyClock::now() + random.Between(settings.fault_every_min, settings.fault_every_max);
    }
    std::this_thread::sleep_for(50ms);
  }
  const core::TimePoint stopped_at = std::chrono::system_clock::now();
  if (failovers) {
    // A failover in progress goes on to a healthy cluster, the fleet
    // supervised and the workload running meanwhile.
    failovers->RequestStop();
    while (failovers->Running()) {
      fleet.Supervise();
      std::this_thread::sleep_for(50ms);
    }
    failovers->Stop();
  }
  for (FaultSwitch* faults : {&providers.email_faults, &providers.telegram_faults,
                              &providers.push_faults, &providers.webhook_faults})
    faults->End();
  fleet.Supervise(/*now=*/true);
  workload.Stop();
  const auto workload_end = SteadyClock::now();
  std::vector<FailoverRun> runs;
  if (failovers) {
    runs = failovers->runs();
    report.failovers = FailoverFigures(runs, client.write_ends(), workload_end);
    for (const FailoverRun& run : runs) {
      ++report.faults["PostgreSQL failover: " + run.kind];
      if (!run.ok) {
        report.problems.push_back("failover " + std::to_string(run.number) + ": " + run.error);
      }
    }
  }

  // Drain: every occurrence due by the end fired, then every delivery settled.
  const auto drain_deadline = SteadyClock::now() + settings.drain_timeout;
  const bool fired = WaitForZero(
      database_url,
      "SELECT count(*) FROM chopar.schedules WHERE key LIKE 'chaos-%' AND next_fire_at <= '" +
          core::FormatRfc3339Micros(stopped_at) + "'",
      drain_deadline);
  workload.DeleteSchedules();
  const bool fanned_out =
      WaitForZero(database_url, "SELECT count(*) FROM chopar.broadcasts WHERE status = 'running'",
                  drain_deadline);
  const bool settled = WaitForZero(
      database_url, "SELECT count(*) FROM chopar.deliveries WHERE status IN ('queued', 'sending')",
      drain_deadline);
  const bool relayed =
      WaitForZero(database_url, "SELECT count(*) FROM chopar.outbox WHERE dispatched_at IS NULL",
                  drain_deadline);
  report.seconds = std::chrono::duration<double>(SteadyClock::now() - started).count();
  fleet.Supervise(/*now=*/true);  // one that exited while draining stops like the others
  report.processes_exited = fleet.exited();
  const std::vector<int> exit_codes = fleet.Stop(60s);
  if (!fired) report.problems.push_back("schedules still due when the drain timed out");
  if (!fanned_out) report.problems.push_back("broadcasts still running when the drain timed out");
  if (!settled) report.problems.push_back("deliveries still pending when the drain timed out");
  if (!relayed) report.problems.push_back("outbox events still pending when the drain timed out");
  for (int i = 0; i < static_cast<int>(exit_codes.size()); ++i) {
    if (exit_codes[i] != 0) {
      report.problems.push_back("chopar " + std::to_string(i) + " exited with " +
                                std::to_string(exit_codes[i]) + " after SIGTERM");
    }
  }

  Check(database_url, workload, CountReceived(providers), events, runs, stopped_at, report);
  CountCutShortSends(settings.work_dir, report);
  auto conn = db::Connection::Open(database_url);
  CheckOutbox(conn, workload, providers.webhook, events, runs, report);
  CheckBroadcasts(conn, workload, settings.users, report);
  return report;
}

}  // namespace chopar::faults
