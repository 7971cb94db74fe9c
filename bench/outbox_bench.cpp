// outbox_bench: the source document's transactional-outbox scenario and the
// relay's throughput and latency, on a real PostgreSQL and a real NATS
// JetStream (`nats-server -js`, started here), in one run:
//
//   1. the document's scenario: 100 tasks with a crash after COMMIT on every
//      i % 10 == 3 — dual write (commit, then publish) loses 10; the outbox
//      loses 0; every event published again is dropped by JetStream (same
//      Nats-Msg-Id) and a consumer that gets every message twice makes each
//      effect once (chopar.inbox);
//   2. throughput: N events preloaded in an application database's outbox,
//      relayed by 1 and 2 `chopar relay` processes to JetStream and to a
//      local webhook receiver, against the ceiling measured in the same run —
//      the same event documents published straight to JetStream by plain
//      libnats code (asynchronous publishes, acknowledgements awaited per
//      window of one batch), before and after the relays;
//   3. latency from COMMIT to the message on the NATS subject, at a fixed
//      rate, with the relay woken by NOTIFY and with polling only.
//
// Exits non-zero on a lost or duplicated event or any failure, never because
// of the figures.
//
//   outbox_bench --database-url URL --chopar build/chopar [--events N] ...
//   (bench/outbox.sh runs it against a throwaway PostgreSQL)

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/encoding.hpp"
#include "core/metrics.hpp"
#include "db/migrate.hpp"
#include "db/pool.hpp"
#include "outbox/emit.hpp"
#include "outbox/event.hpp"
#include "outbox/install.hpp"
#include "outbox/nats_handles.hpp"
#include "outbox/nats_target.hpp"
#include "outbox/relay.hpp"
#include "proc_cpu.hpp"
#include "testing/child_process.hpp"
#include "testing/fake_http_server.hpp"
#include "testing/nats_server.hpp"

namespace {

using namespace chopar;
using SteadyClock = std::chrono::steady_clock;
using std::chrono::milliseconds;

double SecondsSince(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

std::string Fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

std::string Thousands(double value) {
  std::string digits = std::to_string(static_cast<long long>(std::llround(value)));
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

[[noreturn]] void Die(const std::string& message) {
  std::cerr << "outbox_bench: " << message << "\n";
  std::exit(1);
}

void Check(bool ok, const std::string& message) {
  if (!ok) Die(message);
}

// ---------------------------------------------------------------- options

struct Options {
  std::string database_url;
  std::string chopar = "build/chopar";
  int events = 100000;
  int webhook_events = 20000;
  int batch = 500;
  double latency_rate = 500;
  double latency_seconds = 5;
  double timeout_seconds = 300;
  std::string only;     // "scenario", "throughput" or "latency"; empty: all
  int concurrency = 0;  // [relay] concurrency; 0: chopar's default
};

void PrintUsage() {
  std::cout
      << R"(outbox_bench — the transactional outbox: the document's scenario, relay throughput, latency

  --database-url URL     PostgreSQL server (default $CHOPAR_TEST_DATABASE_URL); two fresh
                         databases are created on it and dropped after
  --chopar PATH          the chopar binary (default build/chopar)
  --events N             events per JetStream throughput run (default 100000)
  --webhook-events N     events per webhook throughput run (default 20000)
  --batch N              [relay] batch, and the ceiling's publish window (default 500)
  --latency-rate R       events per second in the latency runs (default 500)
  --latency-seconds S    length of each latency run (default 5)
  --timeout S            give up a run after S seconds (default 300)
  --only PART            scenario, throughput or latency (default: all three)
  --concurrency N        [relay] concurrency of each relay (default: chopar's default)
)";
}

Options ParseOptions(int argc, char** argv) {
  Options o;
  if (const char* url = std::getenv("CHOPAR_TEST_DATABASE_URL")) o.database_url = url;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      PrintUsage();
      std::exit(0);
    } else if (arg == "--database-url") {
      o.database_url = value();
    } else if (arg == "--chopar") {
      o.chopar = value();
    } else if (arg == "--events") {
      o.events = std::stoi(value());
    } else if (arg == "--webhook-events") {
      o.webhook_events = std::stoi(value());
    } else if (arg == "--batch") {
      o.batch = std::stoi(value());
    } else if (arg == "--latency-rate") {
      o.latency_rate = std::stod(value());
    } else if (arg == "--latency-seconds") {
      o.latency_seconds = std::stod(value());
    } else if (arg == "--timeout") {
      o.timeout_seconds = std::stod(value());
    } else if (arg == "--only") {
      o.only = value();
    } else if (arg == "--concurrency") {
      o.concurrency = std::stoi(value());
    } else {
      Die("unknown option " + arg + " (--help lists them)");
    }
  }
  Check(!o.database_url.empty(), "no --database-url and no CHOPAR_TEST_DATABASE_URL");
  return o;
}

// ---------------------------------------------------------------- databases

// "postgresql:///postgres?host=…" with another database name.
std::string WithDatabase(const std::string& url, const std::string& name) {
  const auto scheme = url.find("://");
  const auto slash = url.find('/', scheme + 3);
  const auto query = url.find('?', slash);
  return url.substr(0, slash + 1) + name + (query == std::string::npos ? "" : url.substr(query));
}

// A database created for the run and dropped at its end.
class ScratchDatabase {
 public:
  ScratchDatabase(std::string server_url, const std::string& name)
      : server_url_(std::move(server_url)), name_(name + "_" + std::to_string(getpid())) {
    auto admin = db::Connection::Open(server_url_);
    admin.ExecScript("DROP DATABASE IF EXISTS " + name_);
    admin.ExecScript("CREATE DATABASE " + name_);
  }
  ~ScratchDatabase() {
    try {
      db::Connection::Open(server_url_)
          .ExecScript("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
    } catch (const std::exception&) {
      // The server may be going away with the run.
    }
  }
  [[nodiscard]] std::string url() const { return WithDatabase(server_url_, name_); }

 private:
  std::string server_url_;
  std::string name_;
};

std::int64_t Count(db::Connection& conn, const std::string& sql) {
  return conn.ExecText(sql, {}).Int(0, 0);
}

// ---------------------------------------------------------------- JetStream

// Plain libnats: what the ceiling publishes with and what every run reads
// the streams back with.
class JetStream {
 public:
  explicit JetStream(const std::string& url) {
    natsConnection* raw = nullptr;
    outbox::CheckNats(natsConnection_ConnectTo(&raw, url.c_str()), "connect");
    connection_.reset(raw);
    jsOptions options;
    jsOptions_Init(&options);
    options.PublishAsync.MaxPending = 1 << 16;
    jsCtx* js = nullptr;
    outbox::CheckNats(natsConnection_JetStream(&js, connection_.get(), &options), "JetStream");
    js_.reset(js);
  }
  // The stream as the relay's NATS target creates it: file storage, 2 min window.
  void AddStream(const std::string& name, const std::string& subject) {
    jsStreamConfig config;
    jsStreamConfig_Init(&config);
    const char* subjects[] = {subject.c_str()};
    config.Name = name.c_str();
    config.Subjects = subjects;
    config.SubjectsLen = 1;
    config.Storage = js_FileStorage;
    config.Duplicates =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::minutes(2)).count();
    jsStreamInfo* info = nullptr;
    outbox::CheckNats(js_AddStream(&info, js_.get(), &config, nullptr, nullptr), "add stream");
    jsStreamInfo_Destroy(info);
  }
  // Messages in `stream`; 0 while it does not exist.
  std::uint64_t Messages(const std::string& stream) {
    jsStreamInfo* raw = nullptr;
    if (js_GetStreamInfo(&raw, js_.get(), stream.c_str(), nullptr, nullptr) != NATS_OK) return 0;
    const outbox::JsStreamInfo info(raw);
    return info->State.Msgs;
  }
  // Publishes asynchronously, awaiting every window's acknowledgements
  // before the next window: the ceiling.
  void PublishWindowed(
      const std::vector<std::pair<std::string, std::string>>& messages,  // id, body
      const std::string& subject, std::size_t window) {
    for (std::size_t start = 0; start < messages.size(); start += window) {
      const std::size_t end = std::min(messages.size(), start + window);
      for (std::size_t i = start; i < end; ++i) {
        natsMsg* msg = nullptr;
        outbox::CheckNats(natsMsg_Create(&msg, subject.c_str(), nullptr, messages[i].second.data(),
                                         static_cast<int>(messages[i].second.size())),
                          "message");
        jsPubOptions options;
        jsPubOptions_Init(&options);
        options.MsgId = messages[i].first.c_str();
        const natsStatus status = js_PublishMsgAsync(js_.get(), &msg, &options);
        natsMsg_Destroy(msg);  // no-op when the library took it
        outbox::CheckNats(status, "publish");
      }
      jsPubOptions wait;
      jsPubOptions_Init(&wait);
      wait.MaxWait = 30000;
      outbox::CheckNats(js_PublishAsyncComplete(js_.get(), &wait), "acknowledgements");
    }
  }
  // The body of message `sequence` of `stream`.
  std::string Get(const std::string& stream, std::uint64_t sequence) {
    natsMsg* raw = nullptr;
    outbox::CheckNats(js_GetMsg(&raw, js_.get(), stream.c_str(), sequence, nullptr, nullptr),
                      "get");
    const outbox::NatsMsg msg(raw);
    return std::string(natsMsg_GetData(msg.get()),
                       static_cast<std::size_t>(natsMsg_GetDataLength(msg.get())));
  }
  [[nodiscard]] natsConnection* connection() const { return connection_.get(); }

 private:
  outbox::NatsConnection connection_;
  outbox::JsContext js_;
};

// The event id a message body starts with: {"id":"<uuid>",…
std::string IdOf(std::string_view body) {
  constexpr std::string_view kPrefix = R"({"id":")";
  return body.starts_with(kPrefix) ? std::string(body.substr(kPrefix.size(), 36)) : "";
}

std::string NewUuid() {
  std::string bytes = core::RandomBytes(16);
  bytes[6] = static_cast<char>((bytes[6] & 0x0f) | 0x40);
  bytes[8] = static_cast<char>((bytes[8] & 0x3f) | 0x80);
  const std::string hex = core::HexEncode(bytes);
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20);
}

// ---------------------------------------------------------------- CPU accounting

// CPU seconds so far of PostgreSQL (the postmaster and all its children,
// live or exited), of nats-server, of the relays (this program's exited
// children: relays are waited for when they stop) and of this program. CPU
// time moves far less than wall time on a shared machine: it says where the
// work is.
struct Cpu {
  double postgres = 0, nats = 0, relays = 0, bench = 0;
  Cpu operator-(const Cpu& o) const {
    return {postgres - o.postgres, nats - o.nats, relays - o.relays, bench - o.bench};
  }
};

class CpuMeter {
 public:
  CpuMeter(pid_t postmaster, pid_t nats) : postmaster_(postmaster), nats_(nats) {}
  [[nodiscard]] Cpu Now() const {
    Cpu now;
    now.bench = bench::CpuSeconds(getpid(), true, false);
    now.relays = bench::CpuSeconds(getpid(), false, true);
    now.nats = bench::CpuSeconds(nats_, true, false);
    now.postgres = bench::PostgresCpuSeconds(postmaster_);
    return now;
  }

 private:
  pid_t postmaster_;
  pid_t nats_;
};

// "µs per event: PostgreSQL a, nats-server b, relays c, bench d".
std::string PerEvent(const Cpu& cpu, int events) {
  const auto us = [&](double seconds) { return Fixed(1e6 * seconds / events, 1); };
  return "CPU µs/event: PostgreSQL " + us(cpu.postgres) + ", nats-server " + us(cpu.nats) +
         ", relays " + us(cpu.relays) + ", bench " + us(cpu.bench) + ", total " +
         us(cpu.postgres + cpu.nats + cpu.relays + cpu.bench);
}

// ---------------------------------------------------------------- the run

class Bench {
 public:
  explicit Bench(Options options)
      : o_(std::move(options)),
        app_(o_.database_url, "outbox_bench_app"),
        own_(o_.database_url, "outbox_bench_chopar"),
        dir_(std::filesystem::temp_directory_path() /
             ("outbox-bench-" + std::to_string(getpid()))) {
    std::filesystem::create_directories(dir_);
    auto app = db::Connection::Open(app_.url());
    app.ExecScript(
        "CREATE TABLE public.tasks (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, text text "
        "NOT NULL);"
        "CREATE TABLE public.effects (event_id uuid PRIMARY KEY, applied int NOT NULL DEFAULT 1)");
    outbox::Install(app, {});
    auto own = db::Connection::Open(own_.url());
    db::Migrate(own);
    js_ = std::make_unique<JetStream>(nats_.url());
    const auto backend = static_cast<pid_t>(own.ExecText("SELECT pg_backend_pid()", {}).Int(0, 0));
    meter_ = std::make_unique<CpuMeter>(bench::ParentOf(backend), nats_.pid());
  }
  ~Bench() { std::filesystem::remove_all(dir_); }

  void Scenario();
  void Throughput();
  void Latency();

 private:
  struct Run {
    double events_per_second = 0;
    Cpu cpu;
  };
  enum class Kind { kNats, kWebhook };

  std::string Config(Kind kind, const std::string& stream, const std::string& subject,
                     const std::string& url, bool listen, double poll_seconds) const;
  std::vector<std::unique_ptr<testing::ChildProcess>> StartRelays(int count,
                                                                  const std::string& config,
                                                                  const std::string& label);
  void StopRelays(std::vector<std::unique_ptr<testing::ChildProcess>>& relays);
  void LoadEvents(int events);
  Run RelayThroughput(Kind kind, int relays, int events);
  Run Ceiling(int events);
  std::string NextName() { return std::to_string(++runs_); }

  Options o_;
  testing::NatsServer nats_;
  ScratchDatabase app_;
  ScratchDatabase own_;
  std::filesystem::path dir_;
  std::unique_ptr<JetStream> js_;
  std::unique_ptr<CpuMeter> meter_;
  int runs_ = 0;
};

// ---- 1. The document's scenario.

void Bench::Scenario() {
  std::cout << "\n== The source document's scenario: 100 tasks, a crash after COMMIT on every i % "
               "10 == 3\n";
  auto app = db::Connection::Open(app_.url());
  js_->AddStream("DUAL", "dual.>");

  // Dual write: COMMIT, then publish; the process "dies" in between.
  for (int i = 0; i < 100; ++i) {
    app.ExecScript("BEGIN; INSERT INTO public.tasks (text) VALUES ('dual " + std::to_string(i) +
                   "'); COMMIT");
    if (i % 10 == 3) continue;  // died after COMMIT, before the publish
    js_->PublishWindowed({{NewUuid(), R"({"task": )" + std::to_string(i) + "}"}},
                         "dual.task.created", 1);
  }
  const auto dual_tasks = Count(app, "SELECT count(*) FROM public.tasks WHERE text LIKE 'dual %'");
  const auto dual_messages = js_->Messages("DUAL");
  std::cout << "dual write:   tasks " << dual_tasks << ", messages " << dual_messages << " — lost "
            << dual_tasks - static_cast<std::int64_t>(dual_messages) << "\n";

  // The outbox: the event is written in the task's transaction; a crash
  // after COMMIT loses nothing, the relay publishes it.
  for (int i = 0; i < 100; ++i) {
    app.ExecScript("BEGIN");
    app.ExecText("INSERT INTO public.tasks (text) VALUES ($1)",
                 db::Params("outbox " + std::to_string(i)));
    outbox::Emit(app.raw(), "task.created", i, {{"task", i}});
    app.ExecScript("COMMIT");
    if (i % 10 == 3) continue;  // died after COMMIT: the event is already safe
  }
  outbox::TargetSettings settings;
  settings.kind = "nats";
  settings.name = "nats";
  settings.url = nats_.url();
  settings.subject = "doc.{type}";
  settings.stream = "DOC";
  outbox::NatsTarget target(settings);
  db::Pool pool(app_.url(), 1);
  core::SystemClock clock;
  core::MetricsRegistry metrics;
  outbox::RelaySettings relay_settings;
  relay_settings.listen = false;
  outbox::Relay relay(pool, "application", {{"nats", outbox::TypePatterns(), &target}},
                      relay_settings, clock, metrics);
  const auto drain = [&] {
    while (relay.RunOnce().claimed > 0) {
    }
  };
  drain();
  const auto outbox_tasks =
      Count(app, "SELECT count(*) FROM public.tasks WHERE text LIKE 'outbox %'");
  const auto outbox_messages = js_->Messages("DOC");
  std::cout << "outbox:       tasks " << outbox_tasks << ", messages " << outbox_messages
            << " — lost " << outbox_tasks - static_cast<std::int64_t>(outbox_messages) << "\n";
  Check(outbox_messages == 100, "the outbox lost events");

  // A relay that published and died before marking: every event again.
  app.ExecScript("UPDATE chopar.outbox SET dispatched_at = NULL");
  drain();
  std::cout << "republished:  100 events published again → JetStream acknowledged "
            << target.duplicates() << " as duplicates; stream " << js_->Messages("DOC")
            << " messages\n";
  Check(js_->Messages("DOC") == 100 && target.duplicates() == 100,
        "JetStream kept a republished event");

  // A consumer that receives every message twice: effect and inbox row in one transaction.
  int deliveries = 0;
  for (int round = 0; round < 2; ++round) {
    for (std::uint64_t seq = 1; seq <= 100; ++seq) {
      const std::string id = IdOf(js_->Get("DOC", seq));
      ++deliveries;
      app.ExecScript("BEGIN");
      if (outbox::ConsumeOnce(app.raw(), id)) {
        app.ExecText("INSERT INTO public.effects (event_id) VALUES ($1::uuid)", db::Params(id));
      }
      app.ExecScript("COMMIT");
    }
  }
  const auto effects = Count(app, "SELECT count(*) FROM public.effects");
  std::cout << "inbox:        " << deliveries << " deliveries of 100 events → " << effects
            << " effects\n";
  Check(effects == 100, "the inbox let an effect happen twice");
  app.ExecScript("TRUNCATE chopar.outbox, chopar.inbox, public.tasks, public.effects");
}

// ---- 2. Throughput.

std::string Bench::Config(Kind kind, const std::string& stream, const std::string& subject,
                          const std::string& url, bool listen, double poll_seconds) const {
  std::string config =
      "[relay]\nsource_url = \"" + app_.url() + "\"\nbatch = " + std::to_string(o_.batch) +
      "\nlisten = " + (listen ? "true" : "false") + "\npoll_seconds = " + Fixed(poll_seconds, 3) +
      (o_.concurrency > 0 ? "\nconcurrency = " + std::to_string(o_.concurrency) : "") +
      "\n[[relay.targets]]\n";
  if (kind == Kind::kNats) {
    config += "kind = \"nats\"\nurl = \"" + nats_.url() + "\"\nsubject = \"" + subject +
              "\"\nstream = \"" + stream + "\"\n";
  } else {
    config += "kind = \"webhook\"\nurl = \"" + url +
              "\"\nsecret = \"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\"\n";
  }
  return config;
}

std::vector<std::unique_ptr<testing::ChildProcess>> Bench::StartRelays(int count,
                                                                       const std::string& config,
                                                                       const std::string& label) {
  const auto path = dir_ / (label + ".toml");
  std::ofstream(path) << config;
  std::vector<std::unique_ptr<testing::ChildProcess>> relays;
  for (int i = 0; i < count; ++i) {
    relays.push_back(std::make_unique<testing::ChildProcess>(
        std::vector<std::string>{o_.chopar, "relay", "--config", path.string()},
        std::map<std::string, std::string>{{"CHOPAR_DATABASE_URL", own_.url()},
                                           {"CHOPAR_SERVER_DATA_DIR", (dir_ / "var").string()}},
        dir_ / (label + "-" + std::to_string(i) + ".log")));
  }
  return relays;
}

void Bench::StopRelays(std::vector<std::unique_ptr<testing::ChildProcess>>& relays) {
  for (auto& relay : relays) relay->Signal(SIGTERM);
  for (auto& relay : relays) {
    if (relay->Wait(std::chrono::seconds(30)) != 0)
      Die("a relay did not stop cleanly:\n" + relay->Output());
  }
  relays.clear();
}

void Bench::LoadEvents(int events) {
  auto app = db::Connection::Open(app_.url());
  app.ExecScript("TRUNCATE chopar.outbox");
  app.ExecText(
      "INSERT INTO chopar.outbox (type, user_id, payload) "
      "SELECT 'task.created', g % 1000, jsonb_build_object('task_id', g, 'title', 'Task ' || g) "
      "FROM generate_series(1, $1::int) g",
      db::Params(events));
  app.ExecScript("VACUUM ANALYZE chopar.outbox");
}

Bench::Run Bench::RelayThroughput(Kind kind, int relays, int events) {
  LoadEvents(events);
  const Cpu cpu_before = meter_->Now();
  const std::string name = NextName();
  const std::string stream = "T" + name;
  std::atomic<std::int64_t> received{0};
  std::mutex ids_mutex;
  std::set<std::string> ids;
  testing::FakeHttpServer receiver([&](const testing::FakeHttpServer::Request& request) {
    {
      std::lock_guard lock(ids_mutex);
      ids.insert(request.headers.at("webhook-id"));
    }
    ++received;
    testing::FakeHttpServer::Response ok;
    ok.status = 204;
    return ok;
  });
  const auto count = [&]() -> std::uint64_t {
    return kind == Kind::kNats ? js_->Messages(stream)
                               : static_cast<std::uint64_t>(received.load());
  };
  auto processes = StartRelays(
      relays,
      Config(kind, stream, "bench.t" + name + ".{type}", receiver.url() + "/hooks", true, 1.0),
      "throughput-" + name);
  const auto started = SteadyClock::now();
  std::uint64_t first_count = 0, now_count = 0;
  SteadyClock::time_point first{}, last{};
  while ((now_count = count()) < static_cast<std::uint64_t>(events)) {
    if (now_count > 0 && first_count == 0) {
      first_count = now_count;
      first = SteadyClock::now();
    }
    if (SecondsSince(started) > o_.timeout_seconds)
      Die("relay run " + name + " timed out:\n" + processes[0]->Output());
    std::this_thread::sleep_for(milliseconds(20));
  }
  last = SteadyClock::now();
  auto app = db::Connection::Open(app_.url());
  const auto marked = [&] {
    return Count(app, "SELECT count(*) FROM chopar.outbox WHERE dispatched_at IS NULL") == 0;
  };
  while (!marked()) {
    if (SecondsSince(started) > o_.timeout_seconds)
      Die("relay run " + name + " did not mark everything");
    std::this_thread::sleep_for(milliseconds(20));
  }
  StopRelays(processes);
  Run run;
  run.cpu = meter_->Now() - cpu_before;
  if (kind == Kind::kNats) {
    Check(js_->Messages(stream) == static_cast<std::uint64_t>(events),
          "the stream does not hold every event once");
  } else {
    Check(ids.size() == static_cast<std::size_t>(events), "the receiver did not get every event");
  }
  run.events_per_second = static_cast<double>(static_cast<std::uint64_t>(events) - first_count) /
                          std::chrono::duration<double>(last - first).count();
  return run;
}

Bench::Run Bench::Ceiling(int events) {
  const std::string name = NextName();
  const std::string stream = "C" + name;
  js_->AddStream(stream, "bench.c" + name + ".>");
  std::vector<std::pair<std::string, std::string>> messages;
  messages.reserve(static_cast<std::size_t>(events));
  for (int g = 1; g <= events; ++g) {
    outbox::Event event;
    event.event_id = NewUuid();
    event.type = "task.created";
    event.user_id = g % 1000;
    event.payload =
        R"({"title": "Task )" + std::to_string(g) + R"(", "task_id": )" + std::to_string(g) + "}";
    event.created_at = std::chrono::system_clock::now();
    messages.emplace_back(event.event_id, outbox::EventBody(event));
  }
  const Cpu cpu_before = meter_->Now();
  const auto started = SteadyClock::now();
  js_->PublishWindowed(messages, "bench.c" + name + ".task.created",
                       static_cast<std::size_t>(o_.batch));
  const double seconds = SecondsSince(started);
  Run run;
  run.cpu = meter_->Now() - cpu_before;
  run.events_per_second = events / seconds;
  Check(js_->Messages(stream) == static_cast<std::uint64_t>(events), "the ceiling lost messages");
  return run;
}

void Bench::Throughput() {
  std::cout << "\n== Throughput: " << Thousands(o_.events) << " events to JetStream, "
            << Thousands(o_.webhook_events) << " to a webhook receiver; [relay] batch " << o_.batch
            << "\n";
  const Run ceiling_1 = Ceiling(o_.events);
  const Run nats_1 = RelayThroughput(Kind::kNats, 1, o_.events);
  const Run nats_2 = RelayThroughput(Kind::kNats, 2, o_.events);
  const Run ceiling_2 = Ceiling(o_.events);
  const Run webhook_1 = RelayThroughput(Kind::kWebhook, 1, o_.webhook_events);
  const Run webhook_2 = RelayThroughput(Kind::kWebhook, 2, o_.webhook_events);
  const double ceiling = (ceiling_1.events_per_second + ceiling_2.events_per_second) / 2;
  const auto share = [&](double rate) {
    return Fixed(100 * rate / ceiling, 0) + " % of the ceiling";
  };
  std::cout << "ceiling, plain libnats (async, acks per window of " << o_.batch
            << "): " << Thousands(ceiling_1.events_per_second) << " and "
            << Thousands(ceiling_2.events_per_second) << " events/s, mean " << Thousands(ceiling)
            << "\n"
            << "  " << PerEvent(ceiling_1.cpu, o_.events) << "\n";
  const auto report = [&](const char* label, const Run& run, int events, bool nats) {
    std::cout << label << Thousands(run.events_per_second) << " events/s"
              << (nats ? " (" + share(run.events_per_second) + ")" : std::string()) << "\n  "
              << PerEvent(run.cpu, events) << "\n";
  };
  report("1 relay  → JetStream: ", nats_1, o_.events, true);
  report("2 relays → JetStream: ", nats_2, o_.events, true);
  report("1 relay  → webhook:   ", webhook_1, o_.webhook_events, false);
  report("2 relays → webhook:   ", webhook_2, o_.webhook_events, false);
  const double best = std::max(nats_1.events_per_second, nats_2.events_per_second);
  std::cout << "targets (>= 50 % of the ceiling, >= 20,000 events/s): "
            << (best >= ceiling / 2 && best >= 20000 ? "met" : "NOT met") << "\n";
}

// ---- 3. Latency.

void Bench::Latency() {
  std::cout << "\n== Latency COMMIT → message on the subject, " << Fixed(o_.latency_rate, 0)
            << " events/s for " << Fixed(o_.latency_seconds, 0) << " s, one relay\n";
  struct Mode {
    const char* label;
    bool listen;
    double poll_seconds;
  };
  for (const Mode mode :
       {Mode{"NOTIFY (poll 1 s fallback)", true, 1.0}, Mode{"polling every 0.1 s", false, 0.1},
        Mode{"polling every 1 s", false, 1.0}}) {
    auto app = db::Connection::Open(app_.url());
    app.ExecScript("TRUNCATE chopar.outbox");
    const std::string name = NextName();
    const std::string stream = "L" + name;
    js_->AddStream(stream, "bench.l" + name + ".>");

    std::mutex mutex;
    std::unordered_map<std::string, SteadyClock::time_point> received;
    struct Subscriber {
      std::mutex* mutex;
      std::unordered_map<std::string, SteadyClock::time_point>* received;
    } subscriber{&mutex, &received};
    natsSubscription* raw = nullptr;
    outbox::CheckNats(natsConnection_Subscribe(
                          &raw, js_->connection(), ("bench.l" + name + ".>").c_str(),
                          [](natsConnection*, natsSubscription*, natsMsg* msg, void* closure) {
                            const auto at = SteadyClock::now();
                            auto* s = static_cast<Subscriber*>(closure);
                            const std::string id = IdOf(
                                std::string_view(natsMsg_GetData(msg), natsMsg_GetDataLength(msg)));
                            {
                              std::lock_guard lock(*s->mutex);
                              s->received->emplace(id, at);
                            }
                            natsMsg_Destroy(msg);
                          },
                          &subscriber),
                      "subscribe");
    const outbox::NatsSubscription subscription(raw);

    auto processes = StartRelays(1,
                                 Config(Kind::kNats, stream, "bench.l" + name + ".{type}", "",
                                        mode.listen, mode.poll_seconds),
                                 "latency-" + name);
    // Ready when a first event comes through.
    app.ExecScript("BEGIN");
    const std::string warm_up = outbox::Emit(app.raw(), "task.created", 1, {{"warm_up", true}});
    app.ExecScript("COMMIT");
    const auto ready_by = SteadyClock::now() + std::chrono::seconds(30);
    for (;;) {
      {
        std::lock_guard lock(mutex);
        if (received.count(warm_up) > 0) break;
      }
      if (SteadyClock::now() > ready_by) Die("the relay did not start:\n" + processes[0]->Output());
      std::this_thread::sleep_for(milliseconds(10));
    }

    // Open loop: event i is due at start + i / rate, whatever came before.
    const int total = static_cast<int>(o_.latency_rate * o_.latency_seconds);
    std::vector<std::pair<std::string, SteadyClock::time_point>> committed;
    committed.reserve(static_cast<std::size_t>(total));
    const auto start = SteadyClock::now();
    for (int i = 0; i < total; ++i) {
      std::this_thread::sleep_until(start +
                                    std::chrono::duration_cast<SteadyClock::duration>(
                                        std::chrono::duration<double>(i / o_.latency_rate)));
      app.ExecScript("BEGIN");
      const std::string id = outbox::Emit(app.raw(), "task.created", i % 1000, {{"task_id", i}});
      app.ExecScript("COMMIT");
      committed.emplace_back(id, SteadyClock::now());
    }
    const auto deadline = SteadyClock::now() + std::chrono::seconds(30);
    for (;;) {
      {
        std::lock_guard lock(mutex);
        if (received.size() >= committed.size() + 1) break;
      }
      if (SteadyClock::now() > deadline) Die("events did not arrive");
      std::this_thread::sleep_for(milliseconds(10));
    }
    StopRelays(processes);

    std::vector<double> latencies;
    {
      std::lock_guard lock(mutex);
      for (const auto& [id, at] : committed) {
        const auto it = received.find(id);
        Check(it != received.end(), "event " + id + " never arrived");
        latencies.push_back(std::chrono::duration<double, std::milli>(it->second - at).count());
      }
    }
    std::sort(latencies.begin(), latencies.end());
    const auto percentile = [&](double p) {
      return latencies[std::min(latencies.size() - 1,
                                static_cast<std::size_t>(p * latencies.size()))];
    };
    std::cout << mode.label << ": p50 " << Fixed(percentile(0.5), 1) << " ms, p99 "
              << Fixed(percentile(0.99), 1) << " ms, max " << Fixed(latencies.back(), 1) << " ms ("
              << latencies.size() << " events)\n";
  }
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = ParseOptions(argc, argv);
  try {
    std::cout << "outbox_bench: nproc " << std::thread::hardware_concurrency() << ", load average "
              << LoadAverage() << "\n";
    Bench bench(options);
    if (options.only.empty() || options.only == "scenario") bench.Scenario();
    if (options.only.empty() || options.only == "throughput") bench.Throughput();
    if (options.only.empty() || options.only == "latency") bench.Latency();
    std::cout << "\nload average " << LoadAverage() << "\n";
  } catch (const std::exception& e) {
    Die(e.what());
  }
  return 0;
}
