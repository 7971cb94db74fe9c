// notify_bench: chopar's notification path end to end, on one machine.
//
// Starts `chopar serve` (every channel a sink) against a fresh database on the
// given PostgreSQL server and measures, in one run:
//   1. throughput: notifications through POST /v1/notifications/batch (1000
//      per request, 2 channels each) until every delivery is `sent`;
//   2. latency: single POST /v1/notifications at a fixed request rate, open
//      loop, measured from each request's scheduled send time;
//   3. two ceilings in a second database on the same server (each measured
//      before and after chopar, added up): the raw-SQL ceiling, the same
//      rows inserted and then updated to `sent` with plain batched SQL; and
//      the work-matched ceiling, the least SQL doing what chopar must do for
//      them (choose channels by address; claim, read, count the hour, send
//      to the sink), in the same two steps,
// then prints a summary with chopar's rate as a share of each ceiling, and
// where the CPU went (chopar, PostgreSQL, this client) read from /proc.
//
// Exits non-zero only on errors (chopar not starting, HTTP errors, lost or
// duplicated deliveries, timeouts), never because of the figures.
//
//   notify_bench --database-url URL --chopar build/chopar [--notifications N]
//                [--rate R] [--seconds S] ...   (--help lists every option)

#include <curl/curl.h>
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
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "db/connection.hpp"
#include "db/params.hpp"
#include "net/curl_handles.hpp"
#include "net/http_client.hpp"
#include "net/in_flight_limit.hpp"
#include "proc_cpu.hpp"
#include "testing/child_process.hpp"

namespace {

namespace db = chopar::db;
namespace net = chopar::net;
namespace testing = chopar::testing;

using SteadyClock = std::chrono::steady_clock;
using Seconds = std::chrono::duration<double>;
using Json = nlohmann::json;

double SecondsSince(SteadyClock::time_point start) {
  return Seconds(SteadyClock::now() - start).count();
}

std::string Fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

// 12345678 → "12,345,678".
std::string Thousands(double value) {
  std::string digits = std::to_string(static_cast<long long>(std::llround(value)));
  const bool negative = !digits.empty() && digits[0] == '-';
  if (negative) digits.erase(0, 1);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return negative ? "-" + out : out;
}

// ---------------------------------------------------------------- options

struct Options {
  std::string database_url;
  std::string chopar = "build/chopar";
  int notifications = 100000;
  int batch_size = 1000;
  int inflight = 4;
  int users = 10000;
  double rate = 500;
  double seconds = 10;
  double warmup_seconds = 1;
  int raw_connections = 2;
  int port = 0;
  double timeout_seconds = 600;
  std::string database;  // an existing database for chopar (--database), else a fresh one
  bool keep_databases = false;
  bool raw_only = false;
  bool templates = false;
  bool data = false;
  bool dedup_keys = false;
  bool workflow_steps = false;
};

void PrintUsage() {
  std::cout <<
      R"(notify_bench — chopar's notification path end to end

  --database-url URL     PostgreSQL server to use (a database on it that the
                         bench can connect to; default $CHOPAR_TEST_DATABASE_URL).
                         Two fresh databases are created there and dropped after.
  --chopar PATH          the chopar binary (default build/chopar)
  --notifications N      notifications for the throughput phase (default 100000)
  --batch-size N         notifications per batch request (default 1000)
  --inflight N           batch requests in flight at once (default 4)
  --users N              seeded users, each with email + Telegram (default 10000)
  --rate R               single requests per second, latency phase (default 500)
  --seconds S            length of the latency phase (default 10)
  --warmup-seconds S     unmeasured single requests before it (default 1)
  --raw-connections N    connections used by each raw-SQL ceiling (default 2)
  --port N               port for chopar (default: a free one)
  --timeout S            give up waiting for deliveries after S seconds (default 600)
  --keep-databases       do not drop the two databases at the end
  --database NAME        run chopar on this existing database of the server
                         (migrated, e.g. holding history: bench/history.sh)
                         instead of a fresh one; it is neither created nor
                         dropped, the rows the run adds stay, and the checks
                         count only them
  --raw-only             only the raw-SQL ceiling (chopar is used for `migrate`)
  --templates            chopar renders every notification from a template (title,
                         body, email and Telegram blocks; requests send only data)
  --data                 requests carry their title and body and also the data the
                         template of --templates renders from (its baseline: the
                         same requests, no template)
  --dedup-keys           every request carries a dedup key of its own (the keyed
                         path: the key is recorded, nothing is deduplicated)
  --workflow-steps       the type has a three-step workflow (email; a delay of
                         1 s; telegram if the notification is unread): notify
                         writes each notification's run beside the same two
                         deliveries, the telegram one held 1 s and sent then
                         unless read; the end is every delivery sent and every
                         run done (requests as without it, or as --templates)

chopar is started with CHOPAR_DATABASE_URL, CHOPAR_SERVER_LISTEN/API_KEY/
DATA_DIR and very high CHOPAR_LIMITS_HOURLY_*; any other CHOPAR_* variable in
this environment (CHOPAR_DELIVERY_BATCH, ...) reaches it unchanged.
)";
}

Options ParseOptions(int argc, char** argv) {
  Options options;
  if (const char* url = std::getenv("CHOPAR_TEST_DATABASE_URL")) options.database_url = url;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      PrintUsage();
      std::exit(0);
    }
    if (arg == "--templates" || arg == "--data") {
      (arg == "--templates" ? options.templates : options.data) = true;
      continue;
    }
    if (arg == "--dedup-keys" || arg == "--workflow-steps") {
      (arg == "--dedup-keys" ? options.dedup_keys : options.workflow_steps) = true;
      continue;
    }
    if (arg == "--keep-databases" || arg == "--raw-only") {
      (arg == "--raw-only" ? options.raw_only : options.keep_databases) = true;
      continue;
    }
    if (i + 1 >= argc) throw std::runtime_error("missing value after " + arg);
    const std::string value = argv[++i];
    auto number = [&](double min) {
      size_t used = 0;
      double parsed = 0;
      try {
        parsed = std::stod(value, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != value.size() || !(parsed >= min)) {
        throw std::runtime_error(arg + ": expected a number >= " + Fixed(min, 0) + ", got " +
                                 value);
      }
      return parsed;
    };
    if (arg == "--database-url")
      options.database_url = value;
    else if (arg == "--chopar")
      options.chopar = value;
    else if (arg == "--database")
      options.database = value;
    else if (arg == "--notifications")
      options.notifications = static_cast<int>(number(1));
    else if (arg == "--batch-size")
      options.batch_size = static_cast<int>(number(1));
    else if (arg == "--inflight")
      options.inflight = static_cast<int>(number(1));
    else if (arg == "--users")
      options.users = static_cast<int>(number(1));
    else if (arg == "--rate")
      options.rate = number(1);
    else if (arg == "--seconds")
      options.seconds = number(0);
    else if (arg == "--warmup-seconds")
      options.warmup_seconds = number(0);
    else if (arg == "--raw-connections")
      options.raw_connections = static_cast<int>(number(1));
    else if (arg == "--port")
      options.port = static_cast<int>(number(0));
    else if (arg == "--timeout")
      options.timeout_seconds = number(1);
    else
      throw std::runtime_error("unknown option " + arg + " (see --help)");
  }
  if (options.database_url.empty()) {
    throw std::runtime_error("--database-url is required (or set CHOPAR_TEST_DATABASE_URL)");
  }
  if (options.batch_size > 1000)
    throw std::runtime_error("--batch-size: the API takes at most 1000");
  return options;
}

// ---------------------------------------------------------------- PostgreSQL

// A session of the bench's own (seeding, sampling, the ceiling, the checks),
// with chopar's session settings (jit off, UTC; the bench's SQL names its
// schema) but no statement timeout, as before: the exactly-once check on a
// large --database may scan its whole history for longer than chopar's 60 s.
db::Connection Connect(const std::string& url) {
  return db::Connection::Open(url, {{"statement_timeout", "0"}});
}

// The one value of a single-row, single-column query.
long long Scalar(db::Connection& pg, const std::string& sql) {
  return pg.ExecText(sql, {}).Int(0, 0);
}

// The same server, another database: "postgresql://h/db?x" → "postgresql://h/<name>?x";
// a key=value conninfo gets " dbname=<name>" appended (the last one wins).
std::string WithDatabase(const std::string& url, const std::string& name) {
  const auto scheme = url.find("://");
  if (scheme == std::string::npos) return url + " dbname=" + name;
  const auto slash = url.find('/', scheme + 3);
  if (slash == std::string::npos) return url + "/" + name;
  const auto query = url.find('?', slash);
  return url.substr(0, slash + 1) + name + (query == std::string::npos ? "" : url.substr(query));
}

// ---------------------------------------------------------------- the workload

// Notification k (0-based) of a phase, identical for chopar and raw SQL.
// With `templated`, requests carry only data and chopar renders the same
// title and body from kBenchTemplate, plus its email and Telegram blocks;
// with `with_data`, requests carry their title and body and that data too.
// With `dedup_keys`, every request (of every phase) has a key of its own.
struct Workload {
  int users;
  bool templated = false;
  bool with_data = false;
  bool dedup_keys = false;
  long long UserOf(long long k) const { return k % users + 1; }
  static std::string Title(long long k) { return "Bench ping " + std::to_string(k); }
  static std::string Body(long long k) {
    return "Notification " + std::to_string(k) + " of the end-to-end benchmark";
  }
  static Json Data(long long k) {
    return {{"n", k}, {"task", {{"title", Title(k)}, {"due", "18:00"}}}};
  }
  Json Item(long long k) const {
    Json item = templated ? Json{{"user_id", UserOf(k)},
                                 {"type", "bench.ping"},
                                 {"data", Data(k)},
                                 {"channels", {"email", "telegram"}}}
                          : Json{{"user_id", UserOf(k)},
                                 {"type", "bench.ping"},
                                 {"title", Title(k)},
                                 {"body", Body(k)},
                                 {"channels", {"email", "telegram"}}};
    if (with_data && !templated) item["data"] = Data(k);
    if (dedup_keys) {
      // Phases reuse k: a counter keeps the keys of the whole run distinct.
      static std::atomic<long long> next_key{0};
      item["dedup_key"] = "bench-" + std::to_string(next_key++);
    }
    return item;
  }
};

// The template of --templates: the workload's title and body, and a block
// for each of its two channels, in the seeded users' locale and one more.
const Json kBenchTemplate = {
    {"category", "bench"},
    {"default_locale", "en"},
    {"locales",
     {{"en",
       {{"title", "{{task.title}}"},
        {"body", "Notification {{n}} of the end-to-end benchmark"},
        {"email",
         {{"subject", "{{task.title}}"},
          {"html",
           "<p>Notification <b>{{n}}</b>: {{task.title}}, due {{task.due}}.</p>"
           "{{#notification.link}}<p>{{notification.link}}</p>{{/notification.link}}"},
          {"text", "Notification {{n}}: {{task.title}}, due {{task.due}}."}}},
        {"telegram", {{"text", "<b>{{task.title}}</b> is due at {{task.due}} (#{{n}})"}}}}},
      {"uz",
       {{"title", "{{task.title}}"},
        {"body", "{{n}}-bildirishnoma"},
        {"telegram", {{"text", "<b>{{task.title}}</b> {{task.due}} gacha"}}}}}}}};

// --workflow-steps: the issue's three-step shape on the workload's two
// channels, so the same two deliveries per notification as the plain path:
// email at once (the run waits for its outcome), a delay, then telegram on
// a condition that holds (nobody reads a bench notification). The delay is
// the shortest a step takes: every notification's run waits it out, the
// last one's at the end of the phase.
constexpr int kWorkflowDelaySeconds = 1;
const Json kBenchSteps = Json::array(
    {{{"type", "channel"}, {"channel", "email"}},
     {{"type", "delay"}, {"seconds", kWorkflowDelaySeconds}},
     {{"type", "channel"}, {"channel", "telegram"}, {"condition", "notification.read == false"}}});

// The template bench.ping gets, if any: kBenchTemplate for --templates; for
// --workflow-steps alone the least template that carries steps (a title
// the requests' own title replaces, no channel blocks: nothing rendered).
std::optional<Json> BenchTemplate(const Options& options) {
  if (!options.templates && !options.workflow_steps) return std::nullopt;
  Json body = options.templates ? kBenchTemplate
                                : Json{{"category", "bench"},
                                       {"default_locale", "en"},
                                       {"locales", {{"en", {{"title", "Bench ping {{n}}"}}}}}};
  if (options.workflow_steps) body["steps"] = kBenchSteps;
  return body;
}

void SeedUsers(db::Connection& pg, int users) {
  const std::string n = std::to_string(users);
  pg.ExecScript(
      "INSERT INTO chopar.users (id, email) SELECT g, 'user' || g || '@bench.example' "
      "FROM generate_series(1, " +
      n + ") g ON CONFLICT DO NOTHING");
  pg.ExecScript(
      "INSERT INTO chopar.telegram_connections (user_id, chat_id) "
      "SELECT g, 900000000 + g FROM generate_series(1, " +
      n + ") g ON CONFLICT DO NOTHING");
  pg.ExecScript("ANALYZE chopar.users");
  pg.ExecScript("ANALYZE chopar.telegram_connections");
}

// ---------------------------------------------------------------- chopar child process

// How a child that has ended did (ChildProcess reports a kill as 128 + signal).
std::string ExitDescription(testing::ChildProcess& child) {
  const int code = child.Wait(std::chrono::milliseconds(0));
  if (code > 128) return "killed by signal " + std::to_string(code - 128);
  if (code == 127) return "could not be run (exit status 127)";  // ChildProcess's exec failed
  if (code >= 0) return "exited with status " + std::to_string(code);
  return "is still running";
}

// SIGTERM, SIGKILL after 30 s; returns the seconds the shutdown took. Polled
// every 20 ms rather than with ChildProcess::Wait (every 50 ms): the time is
// a printed figure.
double Stop(testing::ChildProcess& child) {
  if (!child.Running()) return 0;
  const auto start = SteadyClock::now();
  child.Signal(SIGTERM);
  while (child.Running() && SecondsSince(start) < 30) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (child.Running()) {
    child.Signal(SIGKILL);
    child.Wait(std::chrono::seconds(10));
  }
  return SecondsSince(start);
}

// chopar's log for an error message: its first errors and warnings (20),
// then its last lines (40), each quoted with "  | ".
std::string LogExcerpt(const std::string& log) {
  std::istringstream in(log);
  std::vector<std::string> lines;
  std::string errors;
  int errors_quoted = 0;
  for (std::string line; std::getline(in, line); lines.push_back(line)) {
    const bool error =
        line.find("[error]") != std::string::npos || line.find("[warning]") != std::string::npos;
    if (error && errors_quoted++ < 20) errors += "  | " + line + "\n";
  }
  std::string tail;
  for (size_t i = lines.size() > 40 ? lines.size() - 40 : 0; i < lines.size(); ++i) {
    tail += "  | " + lines[i] + "\n";
  }
  return "chopar log (first errors and warnings):\n" + errors + "chopar log (last lines):\n" + tail;
}

// ---------------------------------------------------------------- CPU accounting

// CPU seconds (user + system) used so far by chopar, by the PostgreSQL server
// (postmaster and every child process, live or already exited) and by this
// program. Read from /proc, so PostgreSQL must run on this machine; a process
// that cannot be read counts as 0. CPU time is far less disturbed than wall
// time by other work on a shared machine, so it says where the time goes.
struct CpuSeconds {
  double chopar = 0;
  double postgres = 0;
  double client = 0;
  CpuSeconds operator-(const CpuSeconds& o) const {
    return {chopar - o.chopar, postgres - o.postgres, client - o.client};
  }
};

class CpuMeter {
 public:
  CpuMeter(pid_t postmaster, pid_t chopar) : postmaster_(postmaster), chopar_(chopar) {}

  // The postmaster of the server `pg` is connected to: its backend's parent.
  static pid_t Postmaster(db::Connection& pg) {
    return chopar::bench::ParentOf(static_cast<pid_t>(Scalar(pg, "SELECT pg_backend_pid()")));
  }

  CpuSeconds Now() const {
    CpuSeconds now;
    now.client = chopar::bench::CpuSeconds(getpid(), true, false);
    if (chopar_ > 0) now.chopar = chopar::bench::CpuSeconds(chopar_, true, false);
    now.postgres = chopar::bench::PostgresCpuSeconds(postmaster_);
    return now;
  }

 private:
  pid_t postmaster_;
  pid_t chopar_;
};

// ---------------------------------------------------------------- HTTP

// chopar serve's API: its address, the headers every request carries, and
// one HttpClient, whose keep-alive connections serve every phase.
struct Api {
  std::string base_url;
  std::vector<std::string> headers;
  net::HttpClient client;

  Api(int port, const std::string& api_key)
      : base_url("http://127.0.0.1:" + std::to_string(port)),
        // "Expect:": no 100-continue round trip for large bodies.
        headers{"Content-Type: application/json", "Authorization: Bearer " + api_key, "Expect:"} {}

  net::HttpRequest Request(std::string method, const std::string& path, std::string body,
                           std::chrono::seconds timeout) const {
    net::HttpRequest request;
    request.method = std::move(method);
    request.url = base_url + path;
    request.headers = headers;
    request.body = std::move(body);
    request.timeout = timeout;
    return request;
  }

  // One request, waiting for its answer (10 s at most); status 0 when none came.
  net::HttpResponse Call(std::string method, const std::string& path, std::string body = {}) {
    return client.Perform(
        Request(std::move(method), path, std::move(body), std::chrono::seconds(10)));
  }
};

// The value of an unlabelled series in chopar's GET /metrics ("name value"
// on a line of its own); nullopt when absent (a build without it).
std::optional<double> MetricValue(Api& api, const std::string& series) {
  const net::HttpResponse response = api.Call("GET", "/metrics");
  if (response.status != 200) return std::nullopt;
  std::istringstream lines(response.body);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with(series + " ")) return std::stod(line.substr(series.size() + 1));
  }
  return std::nullopt;
}

// Why a request failed: the transfer's error or the status, then the start of the body.
std::string Failure(CURLcode error, const std::string& error_message, long status,
                    const std::string& body) {
  return (error != CURLE_OK ? error_message : "HTTP " + std::to_string(status)) + " " +
         body.substr(0, 300);
}

size_t AppendToString(char* data, size_t size, size_t count, void* target) {
  static_cast<std::string*>(target)->append(data, size * count);
  return size * count;
}

// The latency phase's open loop, on a libcurl multi handle of its own.
// HttpClient::PerformAll cannot drive it: it starts each request itself (at
// its not_before) and tells neither when it did nor when the answer came,
// and those two moments are this phase's figures (latency from send; how
// late the client started a request). So the caller starts request i at
// its due time here and reads both instants back.
class OpenLoop {
 public:
  struct Request {
    net::CurlEasy easy;  // while in flight
    std::string response;
    long status = 0;
    CURLcode error = CURLE_OK;
    SteadyClock::time_point due, started, done;
  };

  OpenLoop(const std::vector<std::string>& headers, size_t requests)
      : multi_(curl_multi_init()), requests_(requests) {
    if (!multi_) throw std::runtime_error("curl_multi_init failed");
    curl_multi_setopt(multi_.get(), CURLMOPT_MAXCONNECTS, 256L);
    for (const auto& header : headers) {
      curl_slist* list = curl_slist_append(headers_.get(), header.c_str());
      if (list == nullptr) throw std::runtime_error("curl_slist_append failed");
      (void)headers_.release();  // the same list, one entry longer
      headers_.reset(list);
    }
  }
  OpenLoop(const OpenLoop&) = delete;
  OpenLoop& operator=(const OpenLoop&) = delete;
  // An easy handle leaves its multi handle before either is freed.
  ~OpenLoop() {
    for (auto& request : requests_) {
      if (request.easy) curl_multi_remove_handle(multi_.get(), request.easy.get());
    }
  }

  // Starts request `index` now: POST `body` to `url`, or a GET without one.
  void Start(size_t index, const std::string& url, const std::string* body,
             SteadyClock::time_point due) {
    Request& request = requests_[index];
    request.easy.reset(curl_easy_init());
    if (!request.easy) throw std::runtime_error("curl_easy_init failed");
    CURL* easy = request.easy.get();
    curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers_.get());
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, AppendToString);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &request.response);
    curl_easy_setopt(easy, CURLOPT_PRIVATE, &request);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT, 120L);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_TCP_NODELAY, 1L);
    if (body != nullptr) {
      curl_easy_setopt(easy, CURLOPT_POSTFIELDS, body->data());
      curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body->size()));
    }
    request.due = due;
    request.started = SteadyClock::now();
    curl_multi_add_handle(multi_.get(), easy);
  }

  // Waits up to `wait` for progress; returns the indices of the requests
  // that ended (their Request is then final).
  std::vector<size_t> Pump(std::chrono::milliseconds wait) {
    int running = 0;
    curl_multi_perform(multi_.get(), &running);
    if (wait.count() > 0) {
      curl_multi_poll(multi_.get(), nullptr, 0, static_cast<int>(wait.count()), nullptr);
      curl_multi_perform(multi_.get(), &running);
    }
    std::vector<size_t> finished;
    int left = 0;
    while (CURLMsg* message = curl_multi_info_read(multi_.get(), &left)) {
      if (message->msg != CURLMSG_DONE) continue;
      Request* request = nullptr;
      curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&request));
      request->done = SteadyClock::now();
      request->error = message->data.result;
      curl_easy_getinfo(message->easy_handle, CURLINFO_RESPONSE_CODE, &request->status);
      curl_multi_remove_handle(multi_.get(), message->easy_handle);
      request->easy.reset();
      finished.push_back(static_cast<size_t>(request - requests_.data()));
    }
    return finished;
  }

  const Request& operator[](size_t index) const { return requests_[index]; }

 private:
  // Declared in this order so that the easy handles go first, then the
  // multi handle, then the header list they point to.
  net::CurlSlist headers_;
  net::CurlMulti multi_;
  std::vector<Request> requests_;
};

// ---------------------------------------------------------------- progress sampling

// Counts the deliveries not yet final every `interval` on its own connection,
// so the main thread can keep the HTTP requests going. With `workflows`, the
// active workflow runs count as pending too: a run between its steps has no
// delivery on its way. A run not done is either active or waiting for a
// delivery not yet final (the advancer and the trigger of migration 0049 each
// change both in one transaction), so the two counts, read in one statement,
// miss none; both are index scans (workflow_runs_due is on active runs).
class PendingSampler {
 public:
  struct Sample {
    double t;
    long long accepted;
    long long pending;
  };

  PendingSampler(const std::string& url, SteadyClock::time_point start,
                 std::chrono::milliseconds interval, bool workflows = false)
      : pg_(Connect(url)),
        workflows_(workflows),
        backend_(static_cast<pid_t>(Scalar(pg_, "SELECT pg_backend_pid()"))),
        start_(start),
        interval_(interval) {
    thread_ = std::thread([this] { Loop(); });
  }
  PendingSampler(const PendingSampler&) = delete;
  PendingSampler& operator=(const PendingSampler&) = delete;
  ~PendingSampler() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

  void SetAccepted(long long accepted) { accepted_ = accepted; }
  void SetRequestsDone() { requests_done_ = true; }

  // Seconds from start until a sample, taken after every request returned,
  // found nothing pending; nullopt if `timeout` ran out first.
  std::optional<double> WaitDrained(double timeout) {
    const auto deadline =
        SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(Seconds(timeout));
    while (SteadyClock::now() < deadline) {
      if (drained_at_ >= 0) return drained_at_.load();
      if (!error_.empty()) throw std::runtime_error(error_);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return std::nullopt;
  }

  std::vector<Sample> Samples() {
    std::lock_guard lock(mutex_);
    return samples_;
  }

  // CPU seconds the server spent on these samples so far: the bench's own
  // work, left out of chopar's PostgreSQL figure.
  double BackendCpuSeconds() const { return chopar::bench::CpuSeconds(backend_, true, false); }

 private:
  // The end is found with a cheap EXISTS (it stops at the first pending row),
  // asked only once every request has returned: nothing can be drained
  // before. The full count, which costs the server a scan of every pending
  // row, is taken once a second for the timeline only.
  void Loop() {
    try {
      double next_count = 0;
      while (!stop_ && drained_at_ < 0) {
        const bool requests_done = requests_done_;
        const long long accepted = accepted_;
        const double t = SecondsSince(start_);
        if (requests_done &&
            Scalar(pg_,
                   "SELECT (EXISTS (SELECT 1 FROM chopar.deliveries WHERE status = 'queued') "
                   "     OR EXISTS (SELECT 1 FROM chopar.deliveries WHERE status = "
                   "'sending')" +
                       std::string(workflows_ ? " OR EXISTS (SELECT 1 FROM chopar.workflow_runs "
                                                "WHERE status = 'active')"
                                              : "") +
                       ")::int") == 0) {
          drained_at_ = SecondsSince(start_);
          std::lock_guard lock(mutex_);
          samples_.push_back({drained_at_, accepted, 0});
          break;
        }
        if (t >= next_count) {
          const long long pending =
              Scalar(pg_,
                     "SELECT (SELECT count(*) FROM chopar.deliveries WHERE status = 'queued') "
                     "     + (SELECT count(*) FROM chopar.deliveries WHERE status = 'sending')" +
                         std::string(workflows_ ? " + (SELECT count(*) FROM chopar.workflow_runs "
                                                  "WHERE status = 'active')"
                                                : ""));
          std::lock_guard lock(mutex_);
          samples_.push_back({t, accepted, pending});
          next_count = std::floor(t) + 1.0;
        }
        std::this_thread::sleep_for(interval_);
      }
    } catch (const std::exception& e) {
      error_ = e.what();
    }
  }

  db::Connection pg_;
  bool workflows_;
  pid_t backend_;
  SteadyClock::time_point start_;
  std::chrono::milliseconds interval_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> requests_done_{false};
  std::atomic<long long> accepted_{0};
  std::atomic<double> drained_at_{-1};
  std::string error_;
  std::mutex mutex_;
  std::vector<Sample> samples_;
  std::thread thread_;
};

// ---------------------------------------------------------------- phase 1: throughput

struct ThroughputResult {
  long long notifications = 0;
  long long deliveries = 0;
  double api_seconds = 0;         // first request → last batch response
  double end_to_end_seconds = 0;  // first request → every delivery sent
  std::vector<PendingSampler::Sample> samples;
  CpuSeconds cpu;             // from the first request until every delivery is sent, less the probe
  double probe_postgres = 0;  // CPU seconds of the server's backend for the PendingSampler
  double drain_rate = 0;      // deliveries/s sent once every batch had been accepted
};

// Every batch answer must hold one created result per notification; the
// notifications and deliveries created are counted into `result`.
void CheckBatchAnswers(std::span<const net::HttpResponse> responses,
                       const std::vector<long long>& batch_counts, ThroughputResult& result) {
  for (size_t i = 0; i < responses.size(); ++i) {
    const Json json = Json::parse(responses[i].body);
    const auto& results = json.at("results");
    if (static_cast<long long>(results.size()) != batch_counts[i]) {
      throw std::runtime_error("batch " + std::to_string(i) + " returned " +
                               std::to_string(results.size()) + " results for " +
                               std::to_string(batch_counts[i]) + " notifications");
    }
    for (const auto& item : results) {
      if (item.contains("error") || !item.value("created", false)) {
        throw std::runtime_error("batch item not created: " + item.dump());
      }
      ++result.notifications;
      result.deliveries += static_cast<long long>(item.at("channels").size());
    }
  }
}

ThroughputResult RunThroughput(const Options& options, Api& api, const std::string& chopar_db_url,
                               const Workload& workload, long long first_k, const CpuMeter& cpu) {
  std::vector<net::HttpRequest> requests;
  std::vector<long long> batch_counts;
  for (long long begin = 0; begin < options.notifications; begin += options.batch_size) {
    const long long end = std::min<long long>(begin + options.batch_size, options.notifications);
    Json items = Json::array();
    for (long long k = begin; k < end; ++k) items.push_back(workload.Item(first_k + k));
    requests.push_back(api.Request("POST", "/v1/notifications/batch",
                                   Json{{"notifications", std::move(items)}}.dump(),
                                   std::chrono::seconds(120)));
    requests.back().max_response_bytes = 16 << 20;  // the whole answer: it is checked below
    batch_counts.push_back(end - begin);
  }

  net::InFlightLimit inflight(static_cast<size_t>(options.inflight));
  const CpuSeconds cpu_start = cpu.Now();
  const auto start = SteadyClock::now();
  PendingSampler sampler(chopar_db_url, start, std::chrono::milliseconds(50),
                         options.workflow_steps);
  long long accepted = 0;
  const auto on_answers = [&](std::span<const size_t> indices,
                              std::span<const net::HttpResponse> responses) {
    for (const size_t i : indices) {
      const auto& r = responses[i];
      if (r.error != CURLE_OK || r.status != 200) {
        throw std::runtime_error("batch request " + std::to_string(i) +
                                 " failed: " + Failure(r.error, r.error_message, r.status, r.body));
      }
      accepted += batch_counts[i];
    }
    sampler.SetAccepted(accepted);
  };
  const auto responses = api.client.PerformAll(requests, &inflight, on_answers);
  ThroughputResult result;
  result.api_seconds = SecondsSince(start);
  sampler.SetRequestsDone();
  const auto drained = sampler.WaitDrained(options.timeout_seconds);
  if (!drained) {
    throw std::runtime_error("deliveries still pending " + Fixed(options.timeout_seconds, 0) +
                             " s after the batches were accepted");
  }
  result.end_to_end_seconds = *drained;
  result.cpu = cpu.Now() - cpu_start;
  result.probe_postgres = sampler.BackendCpuSeconds();
  result.cpu.postgres -= result.probe_postgres;
  result.samples = sampler.Samples();
  // The worker alone: from the first count taken after the last batch was
  // accepted until nothing was pending. Not with workflow steps: their
  // pending count is of runs and deliveries, and runs wait out a delay.
  for (const auto& sample : result.samples) {
    if (options.workflow_steps) break;
    if (sample.accepted == options.notifications && sample.pending > 0 &&
        sample.t < result.end_to_end_seconds) {
      result.drain_rate =
          static_cast<double>(sample.pending) / (result.end_to_end_seconds - sample.t);
      break;
    }
  }
  // Parsed only now so that parsing does not compete with chopar for the CPU.
  CheckBatchAnswers(responses, batch_counts, result);
  return result;
}

// ---------------------------------------------------------------- phase 2: latency

struct LatencyResult {
  long long requests = 0;
  double achieved_rate = 0;
  double max_late_start_ms = 0;  // how far behind schedule the client started a request
  std::vector<double> from_schedule_ms;
  std::vector<double> from_send_ms;
  CpuSeconds cpu;  // while the requests ran (the worker's share of their deliveries included)
};

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
  return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}

double Milliseconds(SteadyClock::duration duration) {
  return std::chrono::duration<double, std::milli>(duration).count();
}

// Open loop: request i is due at start + i / rate whatever happened to the
// earlier ones; latency counts from that due time, so a stall of the server
// shows in every request that should have been sent during it.
// With `workload`, each request is a POST /v1/notifications expecting 201;
// without, a GET /healthz expecting 200 (the floor: HTTP, one trivial query).
LatencyResult RunLatency(const Options& options, const Api& api, const Workload* workload,
                         long long first_k, double seconds, bool measure, const CpuMeter& cpu) {
  const long long total = std::llround(options.rate * seconds);
  std::vector<std::string> bodies;
  if (workload != nullptr) {
    bodies.reserve(static_cast<size_t>(total));
    for (long long i = 0; i < total; ++i) bodies.push_back(workload->Item(first_k + i).dump());
  }
  const std::string path = workload != nullptr ? "/v1/notifications" : "/healthz";
  const std::string url = api.base_url + path;
  const long expected = workload != nullptr ? 201 : 200;

  OpenLoop loop(api.headers, static_cast<size_t>(total));
  const auto interval =
      std::chrono::duration_cast<SteadyClock::duration>(Seconds(1.0 / options.rate));
  const CpuSeconds cpu_start = cpu.Now();
  const auto start = SteadyClock::now() + std::chrono::milliseconds(5);
  LatencyResult result;
  long long next = 0;
  long long done = 0;
  SteadyClock::time_point last_done = start;
  while (done < total) {
    const auto now = SteadyClock::now();
    while (next < total && start + interval * next <= now) {
      const auto due = start + interval * next;
      const auto i = static_cast<size_t>(next);
      result.max_late_start_ms = std::max(result.max_late_start_ms, Milliseconds(now - due));
      loop.Start(i, url, workload != nullptr ? &bodies[i] : nullptr, due);
      ++next;
    }
    auto wait = std::chrono::milliseconds(10);
    if (next < total) {
      const auto until = start + interval * next - SteadyClock::now();
      wait = std::clamp(std::chrono::duration_cast<std::chrono::milliseconds>(until),
                        std::chrono::milliseconds(0), std::chrono::milliseconds(10));
    }
    for (const size_t i : loop.Pump(wait)) {
      const auto& r = loop[i];
      if (r.error != CURLE_OK || r.status != expected) {
        throw std::runtime_error(
            path + " request failed: " +
            Failure(r.error, curl_easy_strerror(r.error), r.status, r.response));
      }
      ++done;
      last_done = r.done;
      if (measure) {
        result.from_schedule_ms.push_back(Milliseconds(r.done - r.due));
        result.from_send_ms.push_back(Milliseconds(r.done - r.started));
      }
    }
  }
  result.requests = total;
  result.cpu = cpu.Now() - cpu_start;
  if (total > 0)
    result.achieved_rate = static_cast<double>(total) / Seconds(last_done - start).count();
  return result;
}

// ---------------------------------------------------------------- phase 3: raw-SQL ceilings

struct RawResult {
  double insert_seconds = 0;
  double update_seconds = 0;  // the work-matched ceiling: its claims
  long long notifications = 0;
  long long deliveries = 0;
  CpuSeconds cpu;  // insert and update together
};

// One batch of notifications and their two deliveries each.
constexpr db::Query kRawInsert{"raw_insert", R"(
    WITH n AS (
      INSERT INTO chopar.notifications (user_id, type, title, body)
      SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[])
      RETURNING id, user_id
    )
    INSERT INTO chopar.deliveries (notification_id, user_id, channel)
    SELECT n.id, n.user_id, c.channel
    FROM n CROSS JOIN unnest('{email,telegram}'::text[]) AS c(channel)
    RETURNING id)"};
constexpr db::Query kRawUpdate{"raw_update", R"(
    UPDATE chopar.deliveries
    SET status = 'sent', attempts = attempts + 1, claimed_at = now(), sent_at = now(), updated_at = now()
    WHERE id = ANY($1::bigint[]))"};

// The work-matched ceiling: the least SQL that keeps chopar's promises on
// this workload, with nothing of chopar around it. Its insert creates a
// delivery only for a channel the user has an address for (the recipients'
// lookup); its claim finds due rows itself and locks them (FOR UPDATE SKIP
// LOCKED: two workers never take one row), reads each message and address,
// counts the (user, channel)'s sliding hour (the hourly limit; this week's
// rows only, cheaper than a correct count), marks the rows sent and writes
// the sink's row, as chopar's sink does (an email with an HTML part), all in
// one statement and transaction. No wake-ups, no quiet hours, no leases, no
// events: what it leaves out is chopar's own cost.
constexpr db::Query kMatchedInsert{"matched_insert", R"(
    WITH n AS (
      INSERT INTO chopar.notifications (user_id, type, title, body)
      SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[])
      RETURNING id, user_id, created_at
    )
    INSERT INTO chopar.deliveries (notification_id, user_id, channel, created_at)
    SELECT n.id, n.user_id, c.channel, n.created_at
    FROM n JOIN chopar.users u ON u.id = n.user_id
    CROSS JOIN unnest('{email,telegram}'::text[]) AS c(channel)
    WHERE CASE c.channel WHEN 'email' THEN u.email IS NOT NULL
          ELSE EXISTS (SELECT 1 FROM chopar.telegram_connections t
                       WHERE t.user_id = n.user_id AND t.active) END
    RETURNING id)"};
constexpr db::Query kMatchedClaim{"matched_claim", R"(
    WITH claimed AS MATERIALIZED (
      SELECT id, notification_id, user_id, channel, created_at
      FROM chopar.deliveries
      WHERE status = 'queued' AND next_attempt_at <= now()
      ORDER BY next_attempt_at
      LIMIT $1::int
      FOR UPDATE SKIP LOCKED
    ), message AS MATERIALIZED (
      SELECT c.id, c.created_at, c.channel, c.user_id, x.title, x.body, x.address, x.in_hour
      FROM claimed c
      -- Key lookups per row (OFFSET 0 keeps them so), never a join that
      -- reads every notification.
      CROSS JOIN LATERAL (
        SELECT n.title, n.body,
               CASE c.channel WHEN 'email' THEN u.email
                 ELSE (SELECT t.chat_id::text FROM chopar.telegram_connections t
                       WHERE t.user_id = c.user_id AND t.active) END AS address,
               (SELECT count(*) FROM chopar.deliveries r
                WHERE r.user_id = c.user_id AND r.channel = c.channel
                  AND r.status IN ('sent', 'sending') AND r.claimed_at > now() - interval '1 hour'
                  AND r.created_at >= chopar.history_week_start(now())) AS in_hour
        FROM chopar.notifications n, chopar.users u
        WHERE n.id = c.notification_id AND n.created_at = c.created_at AND u.id = c.user_id
        OFFSET 0
      ) x
    ), sent AS (
      UPDATE chopar.deliveries d
      SET status = 'sent', attempts = d.attempts + 1, claimed_at = now(), sent_at = now(),
          updated_at = now()
      FROM message m
      WHERE d.id = m.id AND d.created_at = m.created_at AND m.in_hour < $2::bigint
        -- the ids as an index condition too: no plan that reads every row
        AND d.id = ANY (ARRAY(SELECT id FROM claimed))
      RETURNING d.id, m.channel, m.user_id, m.address, m.title, m.body
    )
    INSERT INTO chopar.sink_messages (delivery_id, channel, user_id, address, subject, body, html)
    SELECT id, channel, user_id, address, title, body,
           CASE WHEN channel = 'email' THEN '<p>' || body || '</p>' END
    FROM sent
    RETURNING 1)"};

// The two ceilings run the same notifications, differ in their insert and in
// how the deliveries get to `sent`.
enum class Ceiling { kPlain, kWorkMatched };

std::string CeilingName(Ceiling ceiling) {
  return ceiling == Ceiling::kPlain ? "raw SQL" : "raw SQL doing chopar's work";
}

// The insert's parameters for every batch, dealt out round robin to `threads`.
std::vector<std::vector<db::Params>> InsertParams(const Options& options, const Workload& workload,
                                                  size_t threads) {
  std::vector<std::vector<db::Params>> params(threads);
  for (long long begin = 0, batch = 0; begin < options.notifications;
       begin += options.batch_size, ++batch) {
    const long long end = std::min<long long>(begin + options.batch_size, options.notifications);
    std::vector<long long> users;
    std::vector<std::string> types, titles, bodies;
    for (long long k = begin; k < end; ++k) {
      users.push_back(workload.UserOf(k));
      types.emplace_back("bench.ping");
      titles.push_back(Workload::Title(k));
      bodies.push_back(Workload::Body(k));
    }
    params[static_cast<size_t>(batch) % threads].emplace_back(
        db::ArrayLiteral(users), db::ArrayLiteral(types), db::ArrayLiteral(titles),
        db::ArrayLiteral(bodies));
  }
  return params;
}

// Rows per update (plain) or claim (work-matched), as a queue completing its
// jobs would take them; chopar's default delivery batch.
constexpr size_t kCompleteBatch = 500;

// kRawUpdate's parameters: each thread's delivery ids in batches.
std::vector<std::vector<db::Params>> UpdateParams(const std::vector<std::vector<long long>>& ids) {
  std::vector<std::vector<db::Params>> params(ids.size());
  for (size_t t = 0; t < ids.size(); ++t) {
    for (size_t begin = 0; begin < ids[t].size(); begin += kCompleteBatch) {
      const auto first = ids[t].begin() + static_cast<std::ptrdiff_t>(begin);
      const auto last =
          first + static_cast<std::ptrdiff_t>(std::min(kCompleteBatch, ids[t].size() - begin));
      params[t].emplace_back(db::ArrayLiteral(std::vector<long long>(first, last)));
    }
  }
  return params;
}

// Runs work(t) on one thread per t < threads; the first failure is rethrown.
void OnThreads(size_t threads, const std::function<void(size_t)>& work) {
  std::vector<std::string> errors(threads);
  std::vector<std::thread> workers;
  for (size_t t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      try {
        work(t);
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  }
  for (auto& w : workers) w.join();
  for (const auto& e : errors) {
    if (!e.empty()) throw std::runtime_error("raw SQL: " + e);
  }
}

// Connections for a ceiling, each with its statements prepared: Exec
// prepares a statement on its first run, and one on empty arrays (or a
// claim of nothing), which touches no row, does that before the clock.
std::vector<db::Connection> CeilingConnections(const std::string& url, size_t count,
                                               const db::Query& insert, const db::Query& complete,
                                               const db::Params& nothing_to_complete) {
  std::vector<db::Connection> conns;
  for (size_t t = 0; t < count; ++t) {
    conns.push_back(Connect(url));
    conns.back().Exec(insert, "{}", "{}", "{}", "{}");
    conns.back().Exec(complete, nothing_to_complete);
  }
  return conns;
}

// Every delivery the ceiling created is sent (and, `recorded`, has its sink
// row), two per notification.
void CheckCeilingRows(db::Connection& pg, Ceiling ceiling, RawResult& result) {
  result.notifications = Scalar(pg, "SELECT count(*) FROM chopar.notifications");
  const long long sent = Scalar(pg, "SELECT count(*) FROM chopar.deliveries WHERE status = 'sent'");
  const long long recorded = ceiling == Ceiling::kWorkMatched
                                 ? Scalar(pg, "SELECT count(*) FROM chopar.sink_messages")
                                 : sent;
  if (sent != result.deliveries || recorded != sent ||
      result.deliveries != 2 * result.notifications) {
    throw std::runtime_error(CeilingName(ceiling) + ": " + std::to_string(sent) + " sent (" +
                             std::to_string(recorded) + " recorded) of " +
                             std::to_string(result.deliveries) + " deliveries for " +
                             std::to_string(result.notifications) + " notifications");
  }
}

// The same rows with plain batched SQL: one statement inserts a batch of
// notifications and their two deliveries each; then every delivery goes to
// `sent` in batches by id, as a queue completing its jobs would.
// `connections` threads share the work in both steps.
RawResult RunRawCeiling(const Options& options, const std::string& url, const Workload& workload,
                        const CpuMeter& cpu) {
  const auto threads = static_cast<size_t>(options.raw_connections);
  auto conns = CeilingConnections(url, threads, kRawInsert, kRawUpdate, db::Params("{}"));
  // Statement parameters built up front: the ceiling measures the database.
  const auto insert_params = InsertParams(options, workload, threads);

  RawResult result;
  std::vector<std::vector<long long>> ids(threads);
  CpuSeconds cpu_spent = cpu.Now();
  auto start = SteadyClock::now();
  OnThreads(threads, [&](size_t t) {
    for (const auto& p : insert_params[t]) {
      const auto r = conns[t].Exec(kRawInsert, p);
      for (int row = 0; row < r.Rows(); ++row) ids[t].push_back(r.Int(row, 0));
    }
  });
  result.insert_seconds = SecondsSince(start);
  cpu_spent = cpu.Now() - cpu_spent;

  const auto update_params = UpdateParams(ids);
  for (const auto& thread_ids : ids) result.deliveries += static_cast<long long>(thread_ids.size());
  const CpuSeconds cpu_before_update = cpu.Now();
  start = SteadyClock::now();
  OnThreads(threads, [&](size_t t) {
    for (const auto& p : update_params[t]) conns[t].Exec(kRawUpdate, p);
  });
  result.update_seconds = SecondsSince(start);
  const CpuSeconds cpu_update = cpu.Now() - cpu_before_update;
  result.cpu = {0, cpu_spent.postgres + cpu_update.postgres, cpu_spent.client + cpu_update.client};
  CheckCeilingRows(conns[0], Ceiling::kPlain, result);
  return result;
}

// The work-matched ceiling: the same two steps as the raw-SQL ceiling, on
// `connections` threads, with chopar's work in them: the insert chooses the
// channels, and claims (kMatchedClaim) find, lock, read, count and send the
// deliveries until one finds nothing. Like the raw-SQL ceiling it delivers
// after everything is inserted, so it never shares the indexes' newest pages
// between inserts and claims, which chopar, delivering while notifications
// arrive, must: an upper bound, not a peer.
RawResult RunWorkMatchedCeiling(const Options& options, const std::string& url,
                                const Workload& workload, const CpuMeter& cpu) {
  // The hourly limit the claim checks: as chopar's in this bench, never reached.
  const std::string hourly_limit = "1000000";
  const std::string batch = std::to_string(kCompleteBatch);
  const auto threads = static_cast<size_t>(options.raw_connections);
  auto conns = CeilingConnections(url, threads, kMatchedInsert, kMatchedClaim,
                                  db::Params("0", hourly_limit));
  const auto insert_params = InsertParams(options, workload, threads);

  RawResult result;
  std::atomic<long long> deliveries{0};
  const CpuSeconds cpu_start = cpu.Now();
  auto start = SteadyClock::now();
  OnThreads(threads, [&](size_t t) {
    for (const auto& p : insert_params[t]) deliveries += conns[t].Exec(kMatchedInsert, p).Rows();
  });
  result.insert_seconds = SecondsSince(start);
  start = SteadyClock::now();
  OnThreads(threads, [&](size_t t) {
    // Claims until one finds nothing: every row left is then another's.
    while (conns[t].Exec(kMatchedClaim, batch, hourly_limit).Rows() > 0) {
    }
  });
  result.update_seconds = SecondsSince(start);
  result.cpu = cpu.Now() - cpu_start;
  result.cpu.chopar = 0;
  result.deliveries = deliveries;
  CheckCeilingRows(conns[0], Ceiling::kWorkMatched, result);
  return result;
}

// ---------------------------------------------------------------- checks and report

// Every delivery of this run (id above `before_id`, the largest id before
// it) sent, each exactly once: one sink message per delivery.
void CheckExactlyOnce(db::Connection& pg, long long expected_deliveries, long long before_id) {
  const auto r = pg.ExecText(R"(
    SELECT (SELECT count(*) FROM chopar.deliveries WHERE id > $1),
           (SELECT count(*) FROM chopar.deliveries WHERE id > $1 AND status = 'sent'),
           (SELECT count(*) FROM chopar.sink_messages WHERE delivery_id > $1),
           (SELECT count(DISTINCT delivery_id) FROM chopar.sink_messages WHERE delivery_id > $1),
           (SELECT count(*) FROM chopar.sink_messages s WHERE s.delivery_id > $1
              AND NOT EXISTS (SELECT 1 FROM chopar.deliveries d WHERE d.id = s.delivery_id)),
           (SELECT count(*) FROM chopar.deliveries WHERE id > $1 AND attempts <> 1))",
                             db::Params(before_id));
  auto value = [&](int column) { return r.Int(0, column); };
  const long long deliveries = value(0), sent = value(1), sink = value(2), distinct = value(3),
                  orphans = value(4), retried = value(5);
  std::cout << "  deliveries " << Thousands(deliveries) << ", sent " << Thousands(sent)
            << ", sink messages " << Thousands(sink) << " (" << Thousands(distinct)
            << " distinct deliveries), attempts <> 1: " << retried << "\n";
  if (deliveries != expected_deliveries || sent != deliveries || sink != deliveries ||
      distinct != sink || orphans != 0) {
    throw std::runtime_error("exactly-once check failed: expected " +
                             std::to_string(expected_deliveries) + " deliveries, each sent once");
  }
}

// --workflow-steps: every notification of this run (id above
// `before_notification`) has its run, done with one outcome per step, and
// the run's deliveries (id above `before_delivery`) are its two channel
// steps' (both created by notify with the notification, the second held
// until the delay's end): two per notification, never two on one channel.
void CheckWorkflowRuns(db::Connection& pg, long long before_notification,
                       long long before_delivery) {
  const auto r = pg.ExecText(
      R"(
    SELECT (SELECT count(*) FROM chopar.notifications WHERE id > $1),
           (SELECT count(*) FROM chopar.workflow_runs WHERE notification_id > $1),
           (SELECT count(*) FROM chopar.workflow_runs WHERE notification_id > $1
              AND status = 'done' AND jsonb_array_length(outcomes) = $3),
           abs((SELECT count(*) FROM chopar.deliveries WHERE id > $2)
               - 2 * (SELECT count(*) FROM chopar.notifications WHERE id > $1))
             + (SELECT count(*) FROM (SELECT 1 FROM chopar.deliveries WHERE id > $2
                                      GROUP BY notification_id, channel HAVING count(*) > 1) d))",
      db::Params(before_notification, before_delivery, static_cast<long long>(kBenchSteps.size())));
  const long long notifications = r.Int(0, 0), runs = r.Int(0, 1), done = r.Int(0, 2),
                  outside = r.Int(0, 3);
  std::cout << "  workflow runs " << Thousands(static_cast<double>(runs)) << " for "
            << Thousands(static_cast<double>(notifications)) << " notifications, "
            << Thousands(static_cast<double>(done)) << " done after " << kBenchSteps.size()
            << " steps; deliveries other than one per channel step: " << outside << "\n";
  if (runs != notifications || done != runs || outside != 0) {
    throw std::runtime_error("workflow check failed: every notification's run done after " +
                             std::to_string(kBenchSteps.size()) + " steps expected");
  }
}

long MemTotalMiB() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  long kib = 0;
  while (in >> key >> kib) {
    if (key == "MemTotal:") return kib / 1024;
    in.ignore(1 << 10, '\n');
  }
  return 0;
}

// "1.02 0.80 0.55": runnable tasks over 1, 5 and 15 minutes.
std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      return colon == std::string::npos ? "" : line.substr(colon + 2);
    }
  }
  return "unknown";
}

void Row(const std::string& name, const std::string& value, const std::string& note = "") {
  std::printf("  %-44s %16s  %s\n", name.c_str(), value.c_str(), note.c_str());
}

std::string Verdict(bool met) { return met ? "target met" : "TARGET MISSED"; }

// Temporary files and the two databases, removed on every way out.
struct Scratch {
  std::filesystem::path dir;
  std::string server_url;
  std::vector<std::string> databases;
  bool keep = false;
  ~Scratch() {
    std::error_code ignored;
    if (!dir.empty()) std::filesystem::remove_all(dir, ignored);
    if (keep) return;
    try {
      auto admin = Connect(server_url);
      for (const auto& name : databases)
        admin.ExecScript("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    } catch (const std::exception& e) {
      std::cerr << "notify_bench: could not drop the bench databases: " << e.what() << "\n";
    }
  }
};

struct ChoparResult {
  ThroughputResult throughput;
  LatencyResult latency;
  LatencyResult floor;  // GET /healthz at the same rate
};

// Phases 1 and 2 against `chopar serve` on the database at `url`, then the
// exactly-once check and a SIGTERM.
ChoparResult RunChopar(const Options& options, const std::string& url,
                       const std::filesystem::path& dir) {
  const int port = options.port > 0 ? options.port : testing::FreeLoopbackPort();
  const std::string api_key = "bench-key-" + std::to_string(getpid());
  const std::string huge = "1000000000";
  const std::map<std::string, std::string> env = {
      {"CHOPAR_DATABASE_URL", url},
      {"CHOPAR_SERVER_LISTEN", "127.0.0.1:" + std::to_string(port)},
      {"CHOPAR_SERVER_API_KEY", api_key},
      {"CHOPAR_SERVER_DATA_DIR", (dir / "data").string()},
      {"CHOPAR_LIMITS_HOURLY_EMAIL", huge},
      {"CHOPAR_LIMITS_HOURLY_TELEGRAM", huge},
      {"CHOPAR_LIMITS_HOURLY_PUSH", huge},
      {"CHOPAR_LIMITS_HOURLY_SMS", huge},
  };
  std::filesystem::create_directories(dir / "data");
  testing::ChildProcess server({options.chopar, "serve"}, env, dir / "chopar.log");
  Api api(port, api_key);
  auto fail_with_log = [&](const std::string& what) {
    Stop(server);
    throw std::runtime_error(what + "\n" + LogExcerpt(server.Output()));
  };

  const auto boot = SteadyClock::now();
  const bool ready = testing::WaitUntil(
      [&] {
        if (api.Call("GET", "/healthz").status == 200) return true;
        if (!server.Running())
          fail_with_log("chopar serve " + ExitDescription(server) + " before it was ready");
        return false;
      },
      std::chrono::seconds(60));
  if (!ready) fail_with_log("chopar serve not ready after 60 s");
  std::cout << "  chopar serve ready in " << Fixed(SecondsSince(boot), 2) << " s on port " << port
            << "\n";

  const Workload workload{options.users, options.templates, options.data, options.dedup_keys};
  ChoparResult result;
  long long expected_deliveries = 0;
  try {
    auto pg = Connect(url);
    SeedUsers(pg, options.users);
    // With --database the history already there is not this run's.
    const long long before_id = Scalar(pg, "SELECT coalesce(max(id), 0) FROM chopar.deliveries");
    const long long before_notification =
        Scalar(pg, "SELECT coalesce(max(id), 0) FROM chopar.notifications");
    if (const auto body = BenchTemplate(options)) {
      const auto answer = api.Call("PUT", "/v1/templates/bench.ping", body->dump());
      if (answer.status != 200)
        fail_with_log("PUT /v1/templates/bench.ping: " + std::to_string(answer.status) + " " +
                      answer.body);
      if (options.templates)
        std::cout << "  every notification is rendered from the template of bench.ping\n";
      if (options.workflow_steps)
        std::cout << "  every notification goes through bench.ping's steps: " << kBenchSteps.dump()
                  << "\n";
    }
    const CpuMeter cpu(CpuMeter::Postmaster(pg), server.pid());

    // Warm-up: connections, prepared statements, the worker's first claims.
    {
      Options warm = options;
      warm.notifications = std::min(options.notifications, 2 * options.batch_size);
      warm.inflight = 1;
      expected_deliveries +=
          RunThroughput(warm, api, url, workload, 10'000'000'000LL, cpu).deliveries;
    }

    std::cout << "\n[2/4] throughput: POST /v1/notifications/batch until every delivery is sent\n";
    auto& throughput = result.throughput;
    throughput = RunThroughput(options, api, url, workload, 0, cpu);
    expected_deliveries += throughput.deliveries;
    const char* pending = options.workflow_steps ? "deliveries + active runs" : "deliveries";
    for (const auto& s : throughput.samples) {
      std::printf("  t=%6.2fs  accepted %9s notifications   pending %9s %s\n", s.t,
                  Thousands(static_cast<double>(s.accepted)).c_str(),
                  Thousands(static_cast<double>(s.pending)).c_str(), pending);
    }

    std::cout << "\n[3/4] latency: single POST /v1/notifications, open loop at "
              << Fixed(options.rate, 0) << " req/s\n";
    if (options.warmup_seconds > 0) {
      const auto warm =
          RunLatency(options, api, &workload, 20'000'000'000LL, options.warmup_seconds, false, cpu);
      expected_deliveries += 2 * warm.requests;
    }
    auto& latency = result.latency;
    const std::string coalesced = "chopar_notify_coalesced_batch_size";
    const auto writes_before = MetricValue(api, coalesced + "_count");
    latency = RunLatency(options, api, &workload, 30'000'000'000LL, options.seconds, true, cpu);
    const auto writes_after = MetricValue(api, coalesced + "_count");
    if (writes_before && writes_after && *writes_after > *writes_before) {
      // Only this phase posts single notifications meanwhile.
      const double singles = static_cast<double>(latency.requests);
      std::cout << "  coalesced: " << Thousands(singles) << " single POSTs in "
                << Thousands(*writes_after - *writes_before) << " writes, "
                << Fixed(singles / (*writes_after - *writes_before), 2) << " per write\n";
    }
    result.floor = RunLatency(options, api, nullptr, 0, std::min(options.seconds, 3.0), true, cpu);
    expected_deliveries += 2 * latency.requests;
    std::cout << "  " << Thousands(static_cast<double>(latency.requests)) << " requests, achieved "
              << Fixed(latency.achieved_rate, 1) << " req/s, client started a request at most "
              << Fixed(latency.max_late_start_ms, 2) << " ms late\n";

    // The worker finishes the latency phase's deliveries before the check.
    PendingSampler sampler(url, SteadyClock::now(), std::chrono::milliseconds(50),
                           options.workflow_steps);
    sampler.SetRequestsDone();
    if (!sampler.WaitDrained(options.timeout_seconds)) {
      throw std::runtime_error("deliveries of the latency phase still pending");
    }
    std::cout << "  exactly-once check:\n";
    CheckExactlyOnce(pg, expected_deliveries, before_id);
    if (options.workflow_steps) CheckWorkflowRuns(pg, before_notification, before_id);
  } catch (const std::exception& e) {
    // The server's log goes with the scratch folder: its tail is the only
    // trace of why a request failed (an HTTP 500 says nothing more).
    fail_with_log(std::string(e.what()) +
                  (server.Running() ? "" : " (chopar serve " + ExitDescription(server) + ")"));
  }
  const double stop_seconds = Stop(server);
  std::cout << "  chopar serve stopped in " << Fixed(stop_seconds, 2) << " s after SIGTERM\n";
  return result;
}

// Notifications per second of a ceiling's rounds together.
double Rate(const RawResult& ceiling) {
  return static_cast<double>(ceiling.notifications) /
         (ceiling.insert_seconds + ceiling.update_seconds);
}

void PrintSummary(const Options& options, const std::optional<ChoparResult>& chopar,
                  const RawResult& raw, const RawResult& matched) {
  const double raw_seconds = raw.insert_seconds + raw.update_seconds;
  const double raw_rate = Rate(raw);
  std::cout << "\nSummary\n";
  if (chopar) {
    const auto& throughput = chopar->throughput;
    const double e2e_rate =
        static_cast<double>(throughput.notifications) / throughput.end_to_end_seconds;
    Row("end to end: notifications/s", Thousands(e2e_rate),
        "(" + Thousands(static_cast<double>(throughput.notifications)) + " in " +
            Fixed(throughput.end_to_end_seconds, 2) + " s)  " + Verdict(e2e_rate >= 5000) +
            " (>= 5,000)");
    Row("end to end: deliveries/s",
        Thousands(static_cast<double>(throughput.deliveries) / throughput.end_to_end_seconds),
        "(" + Thousands(static_cast<double>(throughput.deliveries)) + " sent)");
    if (throughput.drain_rate > 0) {
      Row("worker alone: deliveries/s", Thousands(throughput.drain_rate),
          "(sent after the last batch was accepted)");
    }
    Row("API acceptance: notifications/s",
        Thousands(static_cast<double>(throughput.notifications) / throughput.api_seconds),
        "(all batch responses in " + Fixed(throughput.api_seconds, 2) + " s)");
  }
  Row("raw-SQL ceiling: notifications/s", Thousands(raw_rate),
      "(insert " + Fixed(raw.insert_seconds, 2) + " s + update " + Fixed(raw.update_seconds, 2) +
          " s)");
  Row("raw-SQL ceiling: deliveries/s",
      Thousands(static_cast<double>(raw.deliveries) / raw_seconds));
  Row("work-matched ceiling: notifications/s", Thousands(Rate(matched)),
      "(insert " + Fixed(matched.insert_seconds, 2) + " s + claim and send " +
          Fixed(matched.update_seconds, 2) + " s; " + Fixed(100.0 * Rate(matched) / raw_rate, 1) +
          " % of raw SQL)");
  if (!chopar) return;

  const auto& throughput = chopar->throughput;
  const double ratio = 100.0 * static_cast<double>(throughput.notifications) /
                       throughput.end_to_end_seconds / raw_rate;
  Row("chopar / raw SQL", Fixed(ratio, 1) + " %", Verdict(ratio >= 50) + " (>= 50 %)");
  // The notify path alone: the batches' answers, the deliveries (or, with
  // workflow steps, the runs) written; sending goes on meanwhile. Its
  // ceiling is the raw-SQL ceiling's insert: the same notifications and
  // their deliveries written, nothing sent.
  const double raw_insert_rate = static_cast<double>(raw.notifications) / raw.insert_seconds;
  Row("notify alone / raw-SQL insert",
      Fixed(100.0 * static_cast<double>(throughput.notifications) / throughput.api_seconds /
                raw_insert_rate,
            1) +
          " %",
      "(batches accepted: " +
          Thousands(static_cast<double>(throughput.notifications) / throughput.api_seconds) +
          " notifications/s; the ceiling's insert: " + Thousands(raw_insert_rate) + ")");
  if (options.workflow_steps) {
    // Every run waits out its delay step; the last one's wait is in the end
    // to end time, whatever the throughput. Less it: what the steps cost.
    const double less_delay = throughput.end_to_end_seconds - kWorkflowDelaySeconds;
    Row("end to end less the delay / raw SQL",
        Fixed(100.0 * static_cast<double>(throughput.notifications) / less_delay / raw_rate, 1) +
            " %",
        "(end to end less the " + std::to_string(kWorkflowDelaySeconds) +
            " s the last run's delay step waits)");
  }
  const double matched_ratio = ratio * raw_rate / Rate(matched);
  Row("chopar / work-matched ceiling", Fixed(matched_ratio, 1) + " %",
      Verdict(matched_ratio >= 70) + " (>= 70 %)");

  const auto& latency = chopar->latency;
  if (latency.requests > 0) {
    const double p99 = Percentile(latency.from_schedule_ms, 99);
    Row("latency p50 (ms, from schedule)", Fixed(Percentile(latency.from_schedule_ms, 50), 2));
    Row("latency p95 (ms, from schedule)", Fixed(Percentile(latency.from_schedule_ms, 95), 2));
    Row("latency p99 (ms, from schedule)", Fixed(p99, 2),
        Verdict(p99 < 10) + " (< 10 ms at " + Fixed(options.rate, 0) + " req/s)");
    Row("latency max (ms, from schedule)", Fixed(Percentile(latency.from_schedule_ms, 100), 2));
    Row("latency p50 / p99 (ms, from send)", Fixed(Percentile(latency.from_send_ms, 50), 2) +
                                                 " / " +
                                                 Fixed(Percentile(latency.from_send_ms, 99), 2));
  }
  if (chopar->floor.requests > 0) {
    Row("GET /healthz p50 / p99 (ms, same rate)",
        Fixed(Percentile(chopar->floor.from_schedule_ms, 50), 2) + " / " +
            Fixed(Percentile(chopar->floor.from_schedule_ms, 99), 2),
        "(the floor on this machine now: HTTP + one trivial query)");
  }

  const auto& cpu = throughput.cpu;
  if (cpu.postgres <= 0 || raw.cpu.postgres <= 0) return;  // PostgreSQL not readable in /proc
  if (latency.requests > 0) {
    const double per_request = 1000.0 / static_cast<double>(latency.requests);
    Row("CPU ms per single POST: chopar / PostgreSQL",
        Fixed(latency.cpu.chopar * per_request, 3) + " / " +
            Fixed(latency.cpu.postgres * per_request, 3),
        "(latency phase; includes delivering its 2 deliveries)");
  }
  const double per_k = 1000.0 / static_cast<double>(throughput.notifications);
  const double raw_per_k = 1000.0 / static_cast<double>(raw.notifications);
  std::cout << "  CPU ms per 1,000 notifications (user + system):\n";
  Row("  chopar process", Fixed(cpu.chopar * 1000 * per_k, 1));
  Row("  PostgreSQL, chopar path", Fixed(cpu.postgres * 1000 * per_k, 1),
      "(postmaster and all its children, less the bench's probe: " +
          Fixed(throughput.probe_postgres * 1000 * per_k, 1) + ")");
  Row("  PostgreSQL, raw SQL", Fixed(raw.cpu.postgres * 1000 * raw_per_k, 1));
  const double matched_per_k = 1000.0 / static_cast<double>(matched.notifications);
  Row("  PostgreSQL, work-matched ceiling", Fixed(matched.cpu.postgres * 1000 * matched_per_k, 1));
  const double pg_over_matched = cpu.postgres * per_k / (matched.cpu.postgres * matched_per_k);
  Row("  PostgreSQL, chopar path / work-matched ceiling", Fixed(pg_over_matched, 2) + "x",
      Verdict(pg_over_matched <= 1.4) + " (<= 1.4x)");
  Row("  notify_bench, chopar path / raw SQL",
      Fixed(cpu.client * 1000 * per_k, 1) + " / " + Fixed(raw.cpu.client * 1000 * raw_per_k, 1));
  const double chopar_cpu = (cpu.chopar + cpu.postgres) * per_k,
               raw_cpu = raw.cpu.postgres * raw_per_k;
  Row("server CPU per notification, raw / chopar", Fixed(100.0 * raw_cpu / chopar_cpu, 1) + " %",
      "(the same ratio on CPU time: less moved by other load)");
}

int Run(const Options& options) {
  Scratch scratch;
  scratch.keep = options.keep_databases;
  scratch.server_url = options.database_url;
  char dir_template[] = "/tmp/notify-bench.XXXXXX";
  if (mkdtemp(dir_template) == nullptr) throw std::runtime_error("mkdtemp failed");
  scratch.dir = dir_template;

  auto admin = Connect(options.database_url);
  auto show = [&](const std::string& name) {
    return admin.ExecText("SHOW " + name, {}).String(0, 0);
  };
  const std::string pg_version = show("server_version");
  const std::string settings = "fsync=" + show("fsync") +
                               ", synchronous_commit=" + show("synchronous_commit") +
                               ", shared_buffers=" + show("shared_buffers");
  const std::string prefix = "notify_bench_" + std::to_string(getpid());
  const std::string chopar_db = options.database.empty() ? prefix : options.database;
  const std::string raw_db = prefix + "_raw";
  for (const auto& name : {chopar_db, raw_db}) {
    if (name == options.database) continue;
    admin.ExecScript("CREATE DATABASE " + name);
    scratch.databases.push_back(name);
  }
  const std::string chopar_url = WithDatabase(options.database_url, chopar_db);
  const std::string raw_url = WithDatabase(options.database_url, raw_db);

  std::cout << "notify_bench: load average " << LoadAverage() << "; "
            << std::thread::hardware_concurrency() << " CPUs (" << CpuModel() << "), "
            << Thousands(static_cast<double>(MemTotalMiB())) << " MiB RAM, PostgreSQL "
            << pg_version << " (" << settings << ")\n";
  std::cout << "  workload: " << Thousands(options.notifications) << " notifications in batches of "
            << options.batch_size << " (" << options.inflight << " in flight), "
            << Thousands(options.users) << " users, channels email + telegram (sink); latency at "
            << Fixed(options.rate, 0) << " req/s for " << Fixed(options.seconds, 0) << " s\n";

  // The raw-SQL database gets chopar's own schema.
  testing::ChildProcess migrate({options.chopar, "migrate"}, {{"CHOPAR_DATABASE_URL", raw_url}},
                                scratch.dir / "migrate.log");
  if (migrate.Wait(std::chrono::minutes(10)) != 0) {
    throw std::runtime_error("`" + options.chopar + " migrate` " + ExitDescription(migrate) +
                             ":\n" + migrate.Output());
  }

  // The ceiling is measured twice, before and after chopar, and the two
  // rounds are added up: load from elsewhere that drifts during the run then
  // weighs on both sides of the ratio alike.
  auto raw_pg = Connect(raw_url);
  SeedUsers(raw_pg, options.users);
  const CpuMeter raw_cpu(CpuMeter::Postmaster(raw_pg), 0);
  RawResult raw, matched;
  auto raw_round = [&](const std::string& title, Ceiling ceiling, RawResult& total) {
    const bool plain = ceiling == Ceiling::kPlain;
    std::cout << "\n"
              << title << ": the same notifications with " << CeilingName(ceiling) << ", "
              << options.raw_connections << " connections\n";
    // CASCADE: the tables that reference these (digest_items) are empty here.
    raw_pg.ExecScript(
        "TRUNCATE chopar.notifications, chopar.deliveries, chopar.sink_messages CASCADE");
    const RawResult round =
        plain ? RunRawCeiling(options, raw_url, Workload{options.users}, raw_cpu)
              : RunWorkMatchedCeiling(options, raw_url, Workload{options.users}, raw_cpu);
    const double inserted = static_cast<double>(round.notifications + round.deliveries);
    std::cout << "  insert " << Thousands(inserted) << " rows in " << Fixed(round.insert_seconds, 2)
              << " s (" << Thousands(inserted / round.insert_seconds) << " rows/s); "
              << (plain ? "update " : "claim and send ")
              << Thousands(static_cast<double>(round.deliveries)) << " rows in "
              << Fixed(round.update_seconds, 2) << " s ("
              << Thousands(static_cast<double>(round.deliveries) / round.update_seconds)
              << " rows/s)\n";
    total.insert_seconds += round.insert_seconds;
    total.update_seconds += round.update_seconds;
    total.notifications += round.notifications;
    total.deliveries += round.deliveries;
    total.cpu = {0, total.cpu.postgres + round.cpu.postgres, total.cpu.client + round.cpu.client};
  };

  std::optional<ChoparResult> chopar;
  raw_round("[1/4] raw-SQL ceiling, round 1", Ceiling::kPlain, raw);
  raw_round("[1/4] work-matched ceiling, round 1", Ceiling::kWorkMatched, matched);
  if (!options.raw_only) chopar = RunChopar(options, chopar_url, scratch.dir);
  raw_round("[4/4] work-matched ceiling, round 2", Ceiling::kWorkMatched, matched);
  raw_round("[4/4] raw-SQL ceiling, round 2", Ceiling::kPlain, raw);
  PrintSummary(options, chopar, raw, matched);
  std::cout << "  load average at the end: " << LoadAverage()
            << " (other work on the machine skews the figures)\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  try {
    return Run(ParseOptions(argc, argv));
  } catch (const std::exception& e) {
    std::cerr << "notify_bench: error: " << e.what() << "\n";
    return 1;
  }
}
