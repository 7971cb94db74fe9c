// notify_bench: chopar's notification path end to end, on one machine.
//
// Starts `chopar serve` (every channel a sink) against a fresh database on the
// given PostgreSQL server and measures, in one run:
//   1. throughput: notifications through POST /v1/notifications/batch (1000
//      per request, 2 channels each) until every delivery is `sent`;
//   2. latency: single POST /v1/notifications at a fixed request rate, open
//      loop, measured from each request's scheduled send time;
//   3. a raw-SQL ceiling: the same rows inserted and updated to `sent` with
//      plain batched SQL in a second database on the same server (measured
//      before and after chopar, added up),
// then prints a summary with chopar's rate as a share of the ceiling, and
// where the CPU went (chopar, PostgreSQL, this client) read from /proc.
//
// Exits non-zero only on errors (chopar not starting, HTTP errors, lost or
// duplicated deliveries, timeouts), never because of the figures.
//
//   notify_bench --database-url URL --chopar build/chopar [--notifications N]
//                [--rate R] [--seconds S] ...   (--help lists every option)

#include <curl/curl.h>
#include <fcntl.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "proc_cpu.hpp"

namespace {

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
  --raw-connections N    connections used by the raw-SQL ceiling (default 2)
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
    if (arg == "--dedup-keys") {
      options.dedup_keys = true;
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

struct PgConnDeleter {
  void operator()(PGconn* conn) const { PQfinish(conn); }
};
struct PgResultDeleter {
  void operator()(PGresult* result) const { PQclear(result); }
};
using PgResult = std::unique_ptr<PGresult, PgResultDeleter>;

// One libpq connection; every failure throws std::runtime_error. Not
// thread-safe: one per thread.
class Pg {
 public:
  explicit Pg(const std::string& conninfo) {
    conn_.reset(PQconnectdb(conninfo.c_str()));
    if (!conn_ || PQstatus(conn_.get()) != CONNECTION_OK) {
      throw std::runtime_error("cannot connect to PostgreSQL: " +
                               std::string(conn_ ? PQerrorMessage(conn_.get()) : "out of memory"));
    }
    Exec("SET client_min_messages = warning");
  }

  PgResult Exec(const std::string& sql, const std::vector<std::string>& params = {}) {
    std::vector<const char*> values;
    for (const auto& p : params) values.push_back(p.c_str());
    PgResult result(PQexecParams(conn_.get(), sql.c_str(), static_cast<int>(values.size()), nullptr,
                                 values.data(), nullptr, nullptr, 0));
    return Check(std::move(result), sql);
  }

  void Prepare(const std::string& name, const std::string& sql) {
    Check(PgResult(PQprepare(conn_.get(), name.c_str(), sql.c_str(), 0, nullptr)), sql);
  }

  PgResult ExecPrepared(const std::string& name, const std::vector<std::string>& params) {
    std::vector<const char*> values;
    for (const auto& p : params) values.push_back(p.c_str());
    PgResult result(PQexecPrepared(conn_.get(), name.c_str(), static_cast<int>(values.size()),
                                   values.data(), nullptr, nullptr, 0));
    return Check(std::move(result), name);
  }

  long long Scalar(const std::string& sql, const std::vector<std::string>& params = {}) {
    auto result = Exec(sql, params);
    if (PQntuples(result.get()) != 1 || PQgetisnull(result.get(), 0, 0)) {
      throw std::runtime_error("expected one value from: " + sql);
    }
    return std::stoll(PQgetvalue(result.get(), 0, 0));
  }

  std::string Text(const std::string& sql) {
    auto result = Exec(sql);
    return PQntuples(result.get()) > 0 ? PQgetvalue(result.get(), 0, 0) : "";
  }

 private:
  PgResult Check(PgResult result, const std::string& what) {
    const auto status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      throw std::runtime_error("PostgreSQL error: " + std::string(PQerrorMessage(conn_.get())) +
                               "  in: " + what.substr(0, 200));
    }
    return result;
  }

  std::unique_ptr<PGconn, PgConnDeleter> conn_;
};

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

// A PostgreSQL array literal of text values: {"a","b \"c\""}.
std::string TextArray(const std::vector<std::string>& values) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    out += '"';
    for (char c : values[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + "}";
}

template <typename Int>
std::string IntArray(const std::vector<Int>& values, size_t begin, size_t end) {
  std::string out = "{";
  for (size_t i = begin; i < end; ++i) {
    if (i > begin) out += ',';
    out += std::to_string(values[i]);
  }
  return out + "}";
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

void SeedUsers(Pg& pg, int users) {
  const std::string n = std::to_string(users);
  pg.Exec(
      "INSERT INTO chopar.users (id, email) SELECT g, 'user' || g || '@bench.example' "
      "FROM generate_series(1, " +
      n + ") g ON CONFLICT DO NOTHING");
  pg.Exec(
      "INSERT INTO chopar.telegram_connections (user_id, chat_id) "
      "SELECT g, 900000000 + g FROM generate_series(1, " +
      n + ") g ON CONFLICT DO NOTHING");
  pg.Exec("ANALYZE chopar.users");
  pg.Exec("ANALYZE chopar.telegram_connections");
}

// ---------------------------------------------------------------- chopar child process

// `chopar serve` as a child process with its output in a log file. Stopped
// with SIGTERM (SIGKILL after 30 s) by Stop() or the destructor.
class ChoparServer {
 public:
  ChoparServer(const std::string& binary, const std::map<std::string, std::string>& env,
               const std::filesystem::path& log)
      : log_(log) {
    // Everything the child needs is prepared here: between fork and exec it
    // only calls async-signal-safe functions.
    std::vector<std::string> entries;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry = *e;
      if (!env.contains(entry.substr(0, entry.find('=')))) entries.push_back(entry);
    }
    for (const auto& [key, value] : env) entries.push_back(key + "=" + value);
    std::vector<char*> envp;
    for (auto& entry : entries) envp.push_back(entry.data());
    envp.push_back(nullptr);
    std::string arg0 = binary, arg1 = "serve";
    char* argv[] = {arg0.data(), arg1.data(), nullptr};
    const std::string log_path = log.string();

    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed: " + std::string(std::strerror(errno)));
    if (pid_ == 0) {
      const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        close(fd);
      }
      execve(binary.c_str(), argv, envp.data());
      static const char kFailed[] = "notify_bench: cannot run the chopar binary\n";
      [[maybe_unused]] const auto written = write(STDERR_FILENO, kFailed, sizeof kFailed - 1);
      _exit(127);
    }
  }
  ChoparServer(const ChoparServer&) = delete;
  ChoparServer& operator=(const ChoparServer&) = delete;
  ~ChoparServer() { Stop(); }

  // Whether the child is still running; records its exit status otherwise.
  bool Running() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = 0;
      exit_status_ = status;
      return false;
    }
    return true;
  }

  // SIGTERM and wait; returns seconds the shutdown took.
  double Stop() {
    if (!Running()) return 0;
    const auto start = SteadyClock::now();
    kill(pid_, SIGTERM);
    while (SecondsSince(start) < 30) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = 0;
        exit_status_ = status;
        return SecondsSince(start);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = 0;
    return SecondsSince(start);
  }

  pid_t pid() const { return pid_; }

  std::string ExitDescription() const {
    if (WIFEXITED(exit_status_))
      return "exited with status " + std::to_string(WEXITSTATUS(exit_status_));
    if (WIFSIGNALED(exit_status_))
      return "killed by signal " + std::to_string(WTERMSIG(exit_status_));
    return "stopped";
  }

  // The first `lines` lines at level error or warning.
  std::string LogErrors(size_t lines) const {
    std::ifstream in(log_);
    std::string out;
    for (std::string line; lines > 0 && std::getline(in, line);) {
      if (line.find("[error]") == std::string::npos && line.find("[warning]") == std::string::npos)
        continue;
      out += "  | " + line + "\n";
      --lines;
    }
    return out;
  }

  std::string LogTail(size_t lines) const {
    std::ifstream in(log_);
    std::vector<std::string> all;
    for (std::string line; std::getline(in, line);) all.push_back(line);
    std::string out;
    for (size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) {
      out += "  | " + all[i] + "\n";
    }
    return out;
  }

 private:
  std::filesystem::path log_;
  pid_t pid_ = -1;
  int exit_status_ = 0;
};

int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(fd);
    throw std::runtime_error("cannot find a free port");
  }
  close(fd);
  return ntohs(addr.sin_port);
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
  static pid_t Postmaster(Pg& pg) {
    return chopar::bench::ParentOf(static_cast<pid_t>(pg.Scalar("SELECT pg_backend_pid()")));
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

// ---------------------------------------------------------------- HTTP (libcurl)

struct CurlEasyDeleter {
  void operator()(CURL* easy) const { curl_easy_cleanup(easy); }
};
struct CurlMultiDeleter {
  void operator()(CURLM* multi) const { curl_multi_cleanup(multi); }
};
struct CurlListDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using CurlEasy = std::unique_ptr<CURL, CurlEasyDeleter>;
using CurlMulti = std::unique_ptr<CURLM, CurlMultiDeleter>;
using CurlList = std::unique_ptr<curl_slist, CurlListDeleter>;

size_t AppendToString(char* data, size_t size, size_t count, void* target) {
  static_cast<std::string*>(target)->append(data, size * count);
  return size * count;
}

class Http {
 public:
  Http(std::string base_url, const std::string& api_key) : base_url_(std::move(base_url)) {
    curl_slist* list = curl_slist_append(nullptr, "Content-Type: application/json");
    list = curl_slist_append(list, ("Authorization: Bearer " + api_key).c_str());
    list = curl_slist_append(list, "Expect:");  // no 100-continue round trip for large bodies
    headers_.reset(list);
  }

  // One request on a new handle; `body` must outlive it. POST when body is set.
  CurlEasy NewRequest(const std::string& path, const std::string* body,
                      std::string* response) const {
    CurlEasy easy(curl_easy_init());
    if (!easy) throw std::runtime_error("curl_easy_init failed");
    curl_easy_setopt(easy.get(), CURLOPT_URL, (base_url_ + path).c_str());
    curl_easy_setopt(easy.get(), CURLOPT_HTTPHEADER, headers_.get());
    curl_easy_setopt(easy.get(), CURLOPT_WRITEFUNCTION, AppendToString);
    curl_easy_setopt(easy.get(), CURLOPT_WRITEDATA, response);
    curl_easy_setopt(easy.get(), CURLOPT_TIMEOUT, 120L);
    curl_easy_setopt(easy.get(), CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy.get(), CURLOPT_TCP_NODELAY, 1L);
    if (body != nullptr) {
      curl_easy_setopt(easy.get(), CURLOPT_POSTFIELDS, body->data());
      curl_easy_setopt(easy.get(), CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(body->size()));
    }
    return easy;
  }

  // A blocking request; returns the status (0 when it did not connect).
  // POST when body is set, or `method` when given.
  long Call(const std::string& path, const std::string* body, std::string* response,
            const char* method = nullptr) const {
    std::string ignored;
    auto easy = NewRequest(path, body, response ? response : &ignored);
    if (method != nullptr) curl_easy_setopt(easy.get(), CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(easy.get(), CURLOPT_TIMEOUT, 10L);
    if (curl_easy_perform(easy.get()) != CURLE_OK) return 0;
    long status = 0;
    curl_easy_getinfo(easy.get(), CURLINFO_RESPONSE_CODE, &status);
    return status;
  }

 private:
  std::string base_url_;
  CurlList headers_;
};

// A multi handle that keeps its connections alive between requests.
CurlMulti NewMulti(long max_connections) {
  CurlMulti multi(curl_multi_init());
  if (!multi) throw std::runtime_error("curl_multi_init failed");
  curl_multi_setopt(multi.get(), CURLMOPT_MAXCONNECTS, max_connections);
  return multi;
}

struct InFlight {
  size_t index = 0;
  CurlEasy easy;
  std::string response;
  SteadyClock::time_point scheduled;
  SteadyClock::time_point started;
};

struct Finished {
  size_t index;
  long status;
  CURLcode code;
  std::string response;
  SteadyClock::time_point scheduled;
  SteadyClock::time_point started;
  SteadyClock::time_point done;
};

// Drives a curl multi handle: Add() starts a request, Pump() waits up to
// `wait` for progress and returns the requests that finished.
class MultiDriver {
 public:
  MultiDriver(const Http& http, long max_connections)
      : http_(http), multi_(NewMulti(max_connections)) {}
  MultiDriver(const MultiDriver&) = delete;
  MultiDriver& operator=(const MultiDriver&) = delete;
  ~MultiDriver() {
    for (auto& [easy, request] : active_) curl_multi_remove_handle(multi_.get(), easy);
  }

  void Add(size_t index, const std::string& path, const std::string* body,
           SteadyClock::time_point scheduled) {
    auto request = std::make_unique<InFlight>();
    request->index = index;
    request->scheduled = scheduled;
    request->easy = http_.NewRequest(path, body, &request->response);
    request->started = SteadyClock::now();
    CURL* easy = request->easy.get();
    curl_multi_add_handle(multi_.get(), easy);
    active_.emplace(easy, std::move(request));
  }

  size_t Active() const { return active_.size(); }

  std::vector<Finished> Pump(std::chrono::milliseconds wait) {
    int running = 0;
    curl_multi_perform(multi_.get(), &running);
    if (wait.count() > 0) {
      curl_multi_poll(multi_.get(), nullptr, 0, static_cast<int>(wait.count()), nullptr);
      curl_multi_perform(multi_.get(), &running);
    }
    std::vector<Finished> finished;
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi_.get(), &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      const auto now = SteadyClock::now();
      auto it = active_.find(msg->easy_handle);
      if (it == active_.end()) continue;
      long status = 0;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_RESPONSE_CODE, &status);
      auto& request = *it->second;
      finished.push_back(Finished{request.index, status, msg->data.result,
                                  std::move(request.response), request.scheduled, request.started,
                                  now});
      curl_multi_remove_handle(multi_.get(), msg->easy_handle);
      active_.erase(it);
    }
    return finished;
  }

 private:
  const Http& http_;
  CurlMulti multi_;
  std::map<CURL*, std::unique_ptr<InFlight>> active_;
};

// ---------------------------------------------------------------- progress sampling

// Counts the deliveries not yet final every `interval` on its own connection,
// so the main thread can keep the HTTP requests going.
class PendingSampler {
 public:
  struct Sample {
    double t;
    long long accepted;
    long long pending;
  };

  PendingSampler(const std::string& url, SteadyClock::time_point start,
                 std::chrono::milliseconds interval)
      : pg_(url), start_(start), interval_(interval) {
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

 private:
  // The end is found with a cheap EXISTS (it stops at the first pending row);
  // the full count, which costs the server a scan of every pending row, is
  // taken once a second for the timeline only.
  void Loop() {
    try {
      double next_count = 0;
      while (!stop_ && drained_at_ < 0) {
        const bool requests_done = requests_done_;
        const long long accepted = accepted_;
        const bool any_pending =
            pg_.Scalar(
                "SELECT (EXISTS (SELECT 1 FROM chopar.deliveries WHERE status = 'queued') "
                "     OR EXISTS (SELECT 1 FROM chopar.deliveries WHERE status = "
                "'sending'))::int") != 0;
        const double t = SecondsSince(start_);
        if (requests_done && !any_pending) {
          drained_at_ = t;
          std::lock_guard lock(mutex_);
          samples_.push_back({t, accepted, 0});
          break;
        }
        if (t >= next_count) {
          const long long pending = pg_.Scalar(
              "SELECT (SELECT count(*) FROM chopar.deliveries WHERE status = 'queued') "
              "     + (SELECT count(*) FROM chopar.deliveries WHERE status = 'sending')");
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

  Pg pg_;
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
  CpuSeconds cpu;         // from the first request until every delivery is sent
  double drain_rate = 0;  // deliveries/s sent once every batch had been accepted
};

ThroughputResult RunThroughput(const Options& options, const Http& http,
                               const std::string& chopar_db_url, const Workload& workload,
                               long long first_k, const CpuMeter& cpu) {
  std::vector<std::string> bodies;
  for (long long begin = 0; begin < options.notifications; begin += options.batch_size) {
    const long long end = std::min<long long>(begin + options.batch_size, options.notifications);
    Json items = Json::array();
    for (long long k = begin; k < end; ++k) items.push_back(workload.Item(first_k + k));
    bodies.push_back(Json{{"notifications", std::move(items)}}.dump());
  }
  std::vector<long long> batch_counts;
  for (long long begin = 0; begin < options.notifications; begin += options.batch_size) {
    batch_counts.push_back(std::min<long long>(options.batch_size, options.notifications - begin));
  }

  MultiDriver driver(http, options.inflight + 4);
  std::vector<std::string> responses(bodies.size());
  const CpuSeconds cpu_start = cpu.Now();
  const auto start = SteadyClock::now();
  PendingSampler sampler(chopar_db_url, start, std::chrono::milliseconds(50));
  size_t next = 0;
  long long accepted = 0;
  size_t done = 0;
  while (done < bodies.size()) {
    while (next < bodies.size() && driver.Active() < static_cast<size_t>(options.inflight)) {
      driver.Add(next, "/v1/notifications/batch", &bodies[next], SteadyClock::now());
      ++next;
    }
    for (auto& finished : driver.Pump(std::chrono::milliseconds(50))) {
      if (finished.code != CURLE_OK || finished.status != 200) {
        throw std::runtime_error("batch request " + std::to_string(finished.index) + " failed: " +
                                 (finished.code != CURLE_OK
                                      ? curl_easy_strerror(finished.code)
                                      : "HTTP " + std::to_string(finished.status)) +
                                 " " + finished.response.substr(0, 300));
      }
      responses[finished.index] = std::move(finished.response);
      accepted += batch_counts[finished.index];
      sampler.SetAccepted(accepted);
      ++done;
    }
  }
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
  result.samples = sampler.Samples();
  // The worker alone: from the first count taken after the last batch was
  // accepted until nothing was pending.
  for (const auto& sample : result.samples) {
    if (sample.accepted == options.notifications && sample.pending > 0 &&
        sample.t < result.end_to_end_seconds) {
      result.drain_rate =
          static_cast<double>(sample.pending) / (result.end_to_end_seconds - sample.t);
      break;
    }
  }

  // Parsed only now so that parsing does not compete with chopar for the CPU.
  for (size_t i = 0; i < responses.size(); ++i) {
    const Json json = Json::parse(responses[i]);
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

// Open loop: request i is due at start + i / rate whatever happened to the
// earlier ones; latency counts from that due time, so a stall of the server
// shows in every request that should have been sent during it.
// With `workload`, each request is a POST /v1/notifications expecting 201;
// without, a GET /healthz expecting 200 (the floor: HTTP, one trivial query).
LatencyResult RunLatency(const Options& options, const Http& http, const Workload* workload,
                         long long first_k, double seconds, bool measure, const CpuMeter& cpu) {
  const long long total = std::llround(options.rate * seconds);
  std::vector<std::string> bodies;
  if (workload != nullptr) {
    bodies.reserve(static_cast<size_t>(total));
    for (long long i = 0; i < total; ++i) bodies.push_back(workload->Item(first_k + i).dump());
  }
  const std::string path = workload != nullptr ? "/v1/notifications" : "/healthz";
  const long expected = workload != nullptr ? 201 : 200;

  MultiDriver driver(http, 256);
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
      result.max_late_start_ms = std::max(
          result.max_late_start_ms, std::chrono::duration<double, std::milli>(now - due).count());
      driver.Add(static_cast<size_t>(next), path,
                 workload != nullptr ? &bodies[static_cast<size_t>(next)] : nullptr, due);
      ++next;
    }
    auto wait = std::chrono::milliseconds(10);
    if (next < total) {
      const auto until = start + interval * next - SteadyClock::now();
      wait = std::clamp(std::chrono::duration_cast<std::chrono::milliseconds>(until),
                        std::chrono::milliseconds(0), std::chrono::milliseconds(10));
    }
    for (auto& finished : driver.Pump(wait)) {
      if (finished.code != CURLE_OK || finished.status != expected) {
        throw std::runtime_error(path + " request failed: " +
                                 (finished.code != CURLE_OK
                                      ? std::string(curl_easy_strerror(finished.code))
                                      : "HTTP " + std::to_string(finished.status)) +
                                 " " + finished.response.substr(0, 300));
      }
      ++done;
      last_done = finished.done;
      if (measure) {
        result.from_schedule_ms.push_back(
            std::chrono::duration<double, std::milli>(finished.done - finished.scheduled).count());
        result.from_send_ms.push_back(
            std::chrono::duration<double, std::milli>(finished.done - finished.started).count());
      }
    }
  }
  result.requests = total;
  result.cpu = cpu.Now() - cpu_start;
  if (total > 0)
    result.achieved_rate = static_cast<double>(total) / Seconds(last_done - start).count();
  return result;
}

// ---------------------------------------------------------------- phase 3: raw-SQL ceiling

struct RawResult {
  double insert_seconds = 0;
  double update_seconds = 0;
  long long notifications = 0;
  long long deliveries = 0;
  CpuSeconds cpu;  // insert and update together
};

// The same rows with plain batched SQL: one statement inserts a batch of
// notifications and their two deliveries each; then every delivery goes to
// `sent` in batches of 500 by id, as a queue completing its jobs would.
// `connections` threads share the work in both steps.
RawResult RunRawCeiling(const Options& options, const std::string& url, const Workload& workload,
                        const CpuMeter& cpu) {
  const std::string insert_sql = R"(
    WITH n AS (
      INSERT INTO chopar.notifications (user_id, type, title, body)
      SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[])
      RETURNING id, user_id
    )
    INSERT INTO chopar.deliveries (notification_id, user_id, channel)
    SELECT n.id, n.user_id, c.channel
    FROM n CROSS JOIN unnest('{email,telegram}'::text[]) AS c(channel)
    RETURNING id)";
  const std::string update_sql = R"(
    UPDATE chopar.deliveries
    SET status = 'sent', attempts = attempts + 1, claimed_at = now(), sent_at = now(), updated_at = now()
    WHERE id = ANY($1::bigint[]))";
  constexpr size_t kUpdateBatch = 500;

  const int threads = options.raw_connections;
  std::vector<std::unique_ptr<Pg>> conns;
  for (int t = 0; t < threads; ++t) {
    conns.push_back(std::make_unique<Pg>(url));
    conns.back()->Prepare("raw_insert", insert_sql);
    conns.back()->Prepare("raw_update", update_sql);
  }
  // Statement parameters built up front: the ceiling measures the database.
  std::vector<std::vector<std::vector<std::string>>> params(static_cast<size_t>(threads));
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
    params[static_cast<size_t>(batch % threads)].push_back(
        {IntArray(users, 0, users.size()), TextArray(types), TextArray(titles), TextArray(bodies)});
  }

  std::vector<std::vector<long long>> ids(static_cast<size_t>(threads));
  std::vector<std::string> errors(static_cast<size_t>(threads));
  auto run_all = [&](const std::function<void(size_t)>& work) {
    std::vector<std::thread> workers;
    for (size_t t = 0; t < static_cast<size_t>(threads); ++t) {
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
  };

  RawResult result;
  CpuSeconds cpu_spent = cpu.Now();
  auto start = SteadyClock::now();
  run_all([&](size_t t) {
    for (const auto& p : params[t]) {
      auto r = conns[t]->ExecPrepared("raw_insert", p);
      for (int row = 0; row < PQntuples(r.get()); ++row)
        ids[t].push_back(std::stoll(PQgetvalue(r.get(), row, 0)));
    }
  });
  result.insert_seconds = SecondsSince(start);
  cpu_spent = cpu.Now() - cpu_spent;

  std::vector<std::vector<std::string>> update_params(static_cast<size_t>(threads));
  for (size_t t = 0; t < ids.size(); ++t) {
    for (size_t begin = 0; begin < ids[t].size(); begin += kUpdateBatch) {
      update_params[t].push_back(
          IntArray(ids[t], begin, std::min(begin + kUpdateBatch, ids[t].size())));
    }
    result.deliveries += static_cast<long long>(ids[t].size());
  }
  const CpuSeconds cpu_before_update = cpu.Now();
  start = SteadyClock::now();
  run_all([&](size_t t) {
    for (const auto& p : update_params[t]) conns[t]->ExecPrepared("raw_update", {p});
  });
  result.update_seconds = SecondsSince(start);
  const CpuSeconds cpu_update = cpu.Now() - cpu_before_update;
  result.cpu = {0, cpu_spent.postgres + cpu_update.postgres, cpu_spent.client + cpu_update.client};

  result.notifications = conns[0]->Scalar("SELECT count(*) FROM chopar.notifications");
  const long long sent =
      conns[0]->Scalar("SELECT count(*) FROM chopar.deliveries WHERE status = 'sent'");
  if (sent != result.deliveries || result.deliveries != 2 * result.notifications) {
    throw std::runtime_error("raw SQL: " + std::to_string(sent) + " sent of " +
                             std::to_string(result.deliveries) + " deliveries for " +
                             std::to_string(result.notifications) + " notifications");
  }
  return result;
}

// ---------------------------------------------------------------- checks and report

// Every delivery of this run (id above `before_id`, the largest id before
// it) sent, each exactly once: one sink message per delivery.
void CheckExactlyOnce(Pg& pg, long long expected_deliveries, long long before_id) {
  auto r = pg.Exec(R"(
    SELECT (SELECT count(*) FROM chopar.deliveries WHERE id > $1),
           (SELECT count(*) FROM chopar.deliveries WHERE id > $1 AND status = 'sent'),
           (SELECT count(*) FROM chopar.sink_messages WHERE delivery_id > $1),
           (SELECT count(DISTINCT delivery_id) FROM chopar.sink_messages WHERE delivery_id > $1),
           (SELECT count(*) FROM chopar.sink_messages s WHERE s.delivery_id > $1
              AND NOT EXISTS (SELECT 1 FROM chopar.deliveries d WHERE d.id = s.delivery_id)),
           (SELECT count(*) FROM chopar.deliveries WHERE id > $1 AND attempts <> 1))",
                   {std::to_string(before_id)});
  auto value = [&](int column) { return std::stoll(PQgetvalue(r.get(), 0, column)); };
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
      Pg admin(server_url);
      for (const auto& name : databases)
        admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
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
  const int port = options.port > 0 ? options.port : FreePort();
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
  ChoparServer server(options.chopar, env, dir / "chopar.log");
  const Http http("http://127.0.0.1:" + std::to_string(port), api_key);
  auto fail_with_log = [&](const std::string& what) {
    server.Stop();
    throw std::runtime_error(what + "\nchopar log (first errors and warnings):\n" +
                             server.LogErrors(20) + "chopar log (last lines):\n" +
                             server.LogTail(40));
  };

  const auto boot = SteadyClock::now();
  while (http.Call("/healthz", nullptr, nullptr) != 200) {
    if (!server.Running())
      fail_with_log("chopar serve " + server.ExitDescription() + " before it was ready");
    if (SecondsSince(boot) > 60) fail_with_log("chopar serve not ready after 60 s");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::cout << "  chopar serve ready in " << Fixed(SecondsSince(boot), 2) << " s on port " << port
            << "\n";

  const Workload workload{options.users, options.templates, options.data, options.dedup_keys};
  ChoparResult result;
  long long expected_deliveries = 0;
  try {
    Pg pg(url);
    SeedUsers(pg, options.users);
    // With --database the history already there is not this run's.
    const long long before_id = pg.Scalar("SELECT coalesce(max(id), 0) FROM chopar.deliveries");
    if (options.templates) {
      const std::string body = kBenchTemplate.dump();
      std::string answer;
      const long status = http.Call("/v1/templates/bench.ping", &body, &answer, "PUT");
      if (status != 200)
        fail_with_log("PUT /v1/templates/bench.ping: " + std::to_string(status) + " " + answer);
      std::cout << "  every notification is rendered from the template of bench.ping\n";
    }
    const CpuMeter cpu(CpuMeter::Postmaster(pg), server.pid());

    // Warm-up: connections, prepared statements, the worker's first claims.
    {
      Options warm = options;
      warm.notifications = std::min(options.notifications, 2 * options.batch_size);
      warm.inflight = 1;
      expected_deliveries +=
          RunThroughput(warm, http, url, workload, 10'000'000'000LL, cpu).deliveries;
    }

    std::cout << "\n[2/4] throughput: POST /v1/notifications/batch until every delivery is sent\n";
    auto& throughput = result.throughput;
    throughput = RunThroughput(options, http, url, workload, 0, cpu);
    expected_deliveries += throughput.deliveries;
    for (const auto& s : throughput.samples) {
      std::printf("  t=%6.2fs  accepted %9s notifications   pending %9s deliveries\n", s.t,
                  Thousands(static_cast<double>(s.accepted)).c_str(),
                  Thousands(static_cast<double>(s.pending)).c_str());
    }

    std::cout << "\n[3/4] latency: single POST /v1/notifications, open loop at "
              << Fixed(options.rate, 0) << " req/s\n";
    if (options.warmup_seconds > 0) {
      const auto warm = RunLatency(options, http, &workload, 20'000'000'000LL,
                                   options.warmup_seconds, false, cpu);
      expected_deliveries += 2 * warm.requests;
    }
    auto& latency = result.latency;
    latency = RunLatency(options, http, &workload, 30'000'000'000LL, options.seconds, true, cpu);
    result.floor = RunLatency(options, http, nullptr, 0, std::min(options.seconds, 3.0), true, cpu);
    expected_deliveries += 2 * latency.requests;
    std::cout << "  " << Thousands(static_cast<double>(latency.requests)) << " requests, achieved "
              << Fixed(latency.achieved_rate, 1) << " req/s, client started a request at most "
              << Fixed(latency.max_late_start_ms, 2) << " ms late\n";

    // The worker finishes the latency phase's deliveries before the check.
    PendingSampler sampler(url, SteadyClock::now(), std::chrono::milliseconds(50));
    sampler.SetRequestsDone();
    if (!sampler.WaitDrained(options.timeout_seconds)) {
      throw std::runtime_error("deliveries of the latency phase still pending");
    }
    std::cout << "  exactly-once check:\n";
    CheckExactlyOnce(pg, expected_deliveries, before_id);
  } catch (const std::exception& e) {
    // The server's log goes with the scratch folder: its tail is the only
    // trace of why a request failed (an HTTP 500 says nothing more).
    fail_with_log(std::string(e.what()) +
                  (server.Running() ? "" : " (chopar serve " + server.ExitDescription() + ")"));
  }
  const double stop_seconds = server.Stop();
  std::cout << "  chopar serve stopped in " << Fixed(stop_seconds, 2) << " s after SIGTERM\n";
  return result;
}

void PrintSummary(const Options& options, const std::optional<ChoparResult>& chopar,
                  const RawResult& raw) {
  const double raw_seconds = raw.insert_seconds + raw.update_seconds;
  const double raw_rate = static_cast<double>(raw.notifications) / raw_seconds;
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
  if (!chopar) return;

  const auto& throughput = chopar->throughput;
  const double ratio = 100.0 * static_cast<double>(throughput.notifications) /
                       throughput.end_to_end_seconds / raw_rate;
  Row("chopar / raw SQL", Fixed(ratio, 1) + " %", Verdict(ratio >= 50) + " (>= 50 %)");

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
      "(postmaster and all its children)");
  Row("  PostgreSQL, raw SQL", Fixed(raw.cpu.postgres * 1000 * raw_per_k, 1));
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

  Pg admin(options.database_url);
  const std::string pg_version = admin.Text("SHOW server_version");
  const std::string settings = "fsync=" + admin.Text("SHOW fsync") +
                               ", synchronous_commit=" + admin.Text("SHOW synchronous_commit") +
                               ", shared_buffers=" + admin.Text("SHOW shared_buffers");
  const std::string prefix = "notify_bench_" + std::to_string(getpid());
  const std::string chopar_db = options.database.empty() ? prefix : options.database;
  const std::string raw_db = prefix + "_raw";
  for (const auto& name : {chopar_db, raw_db}) {
    if (name == options.database) continue;
    admin.Exec("CREATE DATABASE " + name);
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
  const auto migrate_log = scratch.dir / "migrate.log";
  const std::string command = "CHOPAR_DATABASE_URL='" + raw_url + "' '" + options.chopar +
                              "' migrate >'" + migrate_log.string() + "' 2>&1";
  if (std::system(command.c_str()) != 0) {
    std::ifstream in(migrate_log);
    const std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    throw std::runtime_error("`" + options.chopar + " migrate` failed:\n" + log);
  }

  // The ceiling is measured twice, before and after chopar, and the two
  // rounds are added up: load from elsewhere that drifts during the run then
  // weighs on both sides of the ratio alike.
  Pg raw_pg(raw_url);
  SeedUsers(raw_pg, options.users);
  const CpuMeter raw_cpu(CpuMeter::Postmaster(raw_pg), 0);
  RawResult raw;
  auto raw_round = [&](const std::string& title) {
    std::cout << "\n"
              << title << ": the same rows with plain batched SQL, " << options.raw_connections
              << " connections\n";
    // CASCADE: the tables that reference these (digest_items) are empty here.
    raw_pg.Exec("TRUNCATE chopar.notifications, chopar.deliveries CASCADE");
    const RawResult round = RunRawCeiling(options, raw_url, Workload{options.users}, raw_cpu);
    const double inserted = static_cast<double>(round.notifications + round.deliveries);
    std::cout << "  insert " << Thousands(inserted) << " rows in " << Fixed(round.insert_seconds, 2)
              << " s (" << Thousands(inserted / round.insert_seconds) << " rows/s); update "
              << Thousands(static_cast<double>(round.deliveries)) << " rows in "
              << Fixed(round.update_seconds, 2) << " s ("
              << Thousands(static_cast<double>(round.deliveries) / round.update_seconds)
              << " rows/s)\n";
    raw.insert_seconds += round.insert_seconds;
    raw.update_seconds += round.update_seconds;
    raw.notifications += round.notifications;
    raw.deliveries += round.deliveries;
    raw.cpu = {0, raw.cpu.postgres + round.cpu.postgres, raw.cpu.client + round.cpu.client};
  };

  std::optional<ChoparResult> chopar;
  raw_round("[1/4] raw-SQL ceiling, round 1");
  if (!options.raw_only) chopar = RunChopar(options, chopar_url, scratch.dir);
  raw_round("[4/4] raw-SQL ceiling, round 2");
  PrintSummary(options, chopar, raw);
  std::cout << "  load average at the end: " << LoadAverage()
            << " (other work on the machine skews the figures)\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  curl_global_init(CURL_GLOBAL_DEFAULT);
  int status = 1;
  try {
    status = Run(ParseOptions(argc, argv));
  } catch (const std::exception& e) {
    std::cerr << "notify_bench: error: " << e.what() << "\n";
    status = 1;
  }
  curl_global_cleanup();
  return status;
}
