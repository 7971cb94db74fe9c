#pragma once

// What the black-box tests share: a client of the HTTP API and a fixture that
// gives each test its own folder and starts the built `chopar` (CHOPAR_BINARY)
// in it.

#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/process.hpp"
#include "core/text.hpp"
#include "db/embedded_cluster.hpp"
#include "net/http_client.hpp"
#include "testing/child_process.hpp"
#include "testing/test_database.hpp"

namespace chopar::testing {

// With CHOPAR_TEST_EXCHANGE_LOG=<dir> in the environment, every exchange of an
// Api is appended as one JSON line to <dir>/exchanges-<pid>.jsonl, for
// tests/openapi/exchanges.test.mjs to check against docs/openapi.yaml:
// test, method, path (with its query), request_content_type, request_body,
// status, response_content_type, response_body; a body longer than
// kExchangeBodyLimit bytes is cut there and its *_truncated member set.
// Nothing is written without the variable, or for a transport failure.
// Thread-safe (one mutex for the process's file).
inline constexpr std::size_t kExchangeBodyLimit = 64 * 1024;

inline void RecordExchange(const net::HttpRequest& request, const std::string& path,
                           const net::HttpResponse& response) {
  const char* dir = std::getenv("CHOPAR_TEST_EXCHANGE_LOG");
  if (dir == nullptr || *dir == '\0' || response.status == 0) return;
  const auto body = [](nlohmann::json& line, const std::string& name, const std::string& text) {
    line[name + "_body"] = text.substr(0, kExchangeBodyLimit);
    if (text.size() > kExchangeBodyLimit) line[name + "_truncated"] = true;
  };
  nlohmann::json line;
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  line["test"] = test == nullptr ? "" : std::string(test->test_suite_name()) + "." + test->name();
  line["method"] = request.method;
  line["path"] = path;
  line["request_content_type"] = nullptr;
  for (const auto& header : request.headers) {
    constexpr std::string_view kContentType = "content-type:";
    if (core::StartsWithIgnoringCase(header, kContentType)) {
      const auto value = header.find_first_not_of(' ', kContentType.size());
      line["request_content_type"] = value == std::string::npos ? "" : header.substr(value);
    }
  }
  if (request.body.empty()) {
    line["request_body"] = nullptr;
  } else {
    body(line, "request", request.body);
  }
  line["status"] = response.status;
  line["response_content_type"] = response.Header("content-type").value_or("");
  body(line, "response", response.body);
  static std::mutex mutex;
  const std::lock_guard lock(mutex);
  std::filesystem::create_directories(dir);
  std::ofstream out(
      std::filesystem::path(dir) / ("exchanges-" + std::to_string(getpid()) + ".jsonl"),
      std::ios::app);
  // Bodies are not always UTF-8 (a test may send any bytes): replaced, not thrown.
  out << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

// Calls the API of a chopar listening on 127.0.0.1:`port` with the server
// API key `key`, recording each exchange (RecordExchange). Not thread-safe
// (one HttpClient).
class Api {
 public:
  Api(int port, std::string key)
      : base_("http://127.0.0.1:" + std::to_string(port)), key_(std::move(key)) {}

  // `body` is sent as JSON unless null, with `headers` ("Name: value") too.
  // A transport failure comes back as a response with `error` set (status
  // 0), never as an exception.
  net::HttpResponse Call(const std::string& method, const std::string& path,
                         const nlohmann::json& body = nullptr,
                         const std::vector<std::string>& headers = {}) {
    net::HttpRequest request;
    request.method = method;
    request.url = base_ + path;
    request.headers = {"Authorization: Bearer " + key_, "Content-Type: application/json"};
    request.headers.insert(request.headers.end(), headers.begin(), headers.end());
    if (!body.is_null()) request.body = body.dump();
    request.timeout = std::chrono::seconds(10);
    net::HttpResponse response = client_.Perform(request);
    RecordExchange(request, path, response);
    return response;
  }
  // `body` as it is, with `headers` ("Name: value") and no API key: a
  // provider's webhook, signed its own way.
  net::HttpResponse CallUnauthenticated(const std::string& method, const std::string& path,
                                        std::string body, std::vector<std::string> headers) {
    net::HttpRequest request;
    request.method = method;
    request.url = base_ + path;
    request.headers = std::move(headers);
    request.body = std::move(body);
    request.timeout = std::chrono::seconds(10);
    net::HttpResponse response = client_.Perform(request);
    RecordExchange(request, path, response);
    return response;
  }
  bool Healthy() { return Call("GET", "/healthz").status == 200; }

 private:
  net::HttpClient client_;
  std::string base_;
  std::string key_;
};

// The first line of a file ("" if it cannot be read).
inline std::string ReadFirstLine(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// Fixture: `dir_` is a fresh folder for the test (the processes' working
// directory, logs and data_dir), removed afterwards together with any
// embedded cluster left running in it.
class BlackBox : public ::testing::Test {
 protected:
  void SetUp() override {
    // Parents must be reachable by the postgres account when tests run as root.
    // A parameterized test's name holds '/' ("Posts…/discord"): one folder,
    // not a folder in a folder that TearDown would leave behind.
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(name.begin(), name.end(), '/', '-');
    dir_ = std::filesystem::temp_directory_path() /
           ("chopar-bb-" + std::to_string(getpid()) + "-" + name);
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    std::filesystem::permissions(dir_, std::filesystem::perms::owner_all |
                                           std::filesystem::perms::group_exec |
                                           std::filesystem::perms::others_exec);
  }
  void TearDown() override {
    if (dir_.empty()) return;
    // Clusters left running on purpose (reused after kill -9), in the
    // test's folder or relocated out of it, are stopped here.
    std::vector<std::filesystem::path> data_dirs;
    for (const auto& cluster : relocated_) data_dirs.push_back(cluster / "data");
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(dir_, ec);
         it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (it->path().filename() == "postmaster.pid") data_dirs.push_back(it->path().parent_path());
    }
    for (const auto& data : data_dirs) {
      if (!std::filesystem::exists(data / "postmaster.pid")) continue;
      std::vector<std::string> stop = {
          db::FindPostgresBinDir() + "/pg_ctl", "-D", data.string(), "-m", "immediate", "stop"};
      // pg_ctl runs as the cluster's owner (postgres, or a regular account).
      struct stat owner {};
      if (geteuid() == 0 && ::stat(data.c_str(), &owner) == 0 && owner.st_uid != 0) {
        if (const passwd* account = getpwuid(owner.st_uid)) {
          stop.insert(stop.begin(), {"runuser", "-u", account->pw_name, "--"});
        }
      }
      core::RunProcess(stop);
    }
    for (const auto& cluster : relocated_) std::filesystem::remove_all(cluster, ec);
    std::filesystem::remove_all(dir_);
  }

  // Runs `chopar <role>` listening on 127.0.0.1:`port` with `env` added to
  // the environment and its output in `dir_`/`log`; its data_dir is
  // `dir_`/var unless `env` names another (CHOPAR_SERVER_DATA_DIR).
  std::unique_ptr<ChildProcess> Start(const std::string& role, int port,
                                      std::map<std::string, std::string> env,
                                      const std::string& log) {
    env["CHOPAR_SERVER_LISTEN"] = "127.0.0.1:" + std::to_string(port);
    env.try_emplace("CHOPAR_SERVER_DATA_DIR", (dir_ / "var").string());
    return std::make_unique<ChildProcess>(std::vector<std::string>{CHOPAR_BINARY, role}, env,
                                          dir_ / log, dir_);
  }
  // Start() with `config` as its configuration file (`dir_`/`log`.toml):
  // what only the file can say, such as [[channels.email.providers]].
  std::unique_ptr<ChildProcess> StartWithConfig(const std::string& role, int port,
                                                std::map<std::string, std::string> env,
                                                const std::string& config, const std::string& log) {
    const std::filesystem::path path = dir_ / (log + ".toml");
    std::ofstream(path) << config;
    env["CHOPAR_SERVER_LISTEN"] = "127.0.0.1:" + std::to_string(port);
    env.try_emplace("CHOPAR_SERVER_DATA_DIR", (dir_ / "var").string());
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{CHOPAR_BINARY, role, "--config", path.string()}, env, dir_ / log,
        dir_);
  }

  std::filesystem::path dir_;
  // Embedded clusters a test made outside dir_, removed afterwards.
  std::vector<std::filesystem::path> relocated_;
};

// Fixture: BlackBox with a database of the test's own (`db_`, dropped
// afterwards) on the server scripts/with-test-pg started; the test is
// skipped without CHOPAR_TEST_DATABASE_URL. A subclass that does more in
// SetUp() returns when IsSkipped() after calling this one's.
class DatabaseBlackBox : public BlackBox {
 protected:
  void SetUp() override {
    if (!TestDatabase::Available()) GTEST_SKIP() << "CHOPAR_TEST_DATABASE_URL is not set";
    BlackBox::SetUp();
    db_ = std::make_unique<TestDatabase>();
  }

  // The environment of a chopar process on `db_` whose API takes
  // `api_key`: `more` with the database URL and the key added (a value
  // `more` already has is kept). Every channel goes to its default, the
  // sink, unless `more` names a provider.
  std::map<std::string, std::string> DatabaseEnv(
      const std::string& api_key, std::map<std::string, std::string> more = {}) const {
    more.emplace("CHOPAR_DATABASE_URL", db_->url());
    more.emplace("CHOPAR_SERVER_API_KEY", api_key);
    return more;
  }

  std::unique_ptr<TestDatabase> db_;
};

// Fixture: DatabaseBlackBox for tests that run one `chopar serve` at a time
// on one port (`port_`, the same across restarts) and call it through
// `api_` with the API key the subclass's constructor names.
class ServeBlackBox : public DatabaseBlackBox {
 protected:
  explicit ServeBlackBox(std::string api_key) : api_key_(std::move(api_key)) {}

  void SetUp() override {
    DatabaseBlackBox::SetUp();
    if (IsSkipped()) return;
    port_ = FreeLoopbackPort();
    api_ = std::make_unique<Api>(port_, api_key_);
  }

  // Runs `chopar serve` on `port_` with DatabaseEnv(the API key, `env`), its
  // output in `dir_`/`log`; does not wait for it to listen.
  std::unique_ptr<ChildProcess> StartServe(const std::string& log,
                                           std::map<std::string, std::string> env = {}) {
    return Start("serve", port_, DatabaseEnv(api_key_, std::move(env)), log);
  }

  int port_ = 0;
  std::unique_ptr<Api> api_;

 private:
  std::string api_key_;
};

// The delivery of `notification` (GET /v1/notifications/{id}) on `channel`;
// null when it has none.
inline nlohmann::json DeliveryOn(const nlohmann::json& notification, std::string_view channel) {
  if (!notification.contains("deliveries")) return nullptr;
  for (const nlohmann::json& d : notification["deliveries"]) {
    if (d["channel"] == channel) return d;
  }
  return nullptr;
}

// Whether every delivery of `notification` reached a final status.
inline bool DeliveriesSettled(const nlohmann::json& notification) {
  if (!notification.contains("deliveries") || notification["deliveries"].empty()) return false;
  for (const nlohmann::json& d : notification["deliveries"]) {
    if (d["status"] == "queued" || d["status"] == "sending") return false;
  }
  return true;
}

// GET /v1/notifications/{id} of `created` (the answer of POST
// /v1/notifications) once every delivery of it reached a final status,
// waiting up to `within`; fails the test (and returns the last answer) if
// they do not.
inline nlohmann::json SettledNotification(Api& api, const nlohmann::json& created,
                                          std::chrono::seconds within = std::chrono::seconds(30)) {
  nlohmann::json notification;
  const bool done = WaitUntil(
      [&] {
        notification = nlohmann::json::parse(
            api.Call("GET", "/v1/notifications/" + created["id"].dump()).body, nullptr, false);
        return DeliveriesSettled(notification);
      },
      within);
  EXPECT_TRUE(done) << notification.dump();
  return notification;
}

// Quiet hours (in UTC) from an hour ago to two hours from now: a user with
// them is in quiet hours for the rest of a test.
inline nlohmann::json QuietHoursAroundNow() {
  const auto hour_now = std::chrono::duration_cast<std::chrono::hours>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count() %
                        24;
  const auto clock_text = [](long long hour) {
    const long long h = (hour + 24) % 24;
    return (h < 10 ? "0" : "") + std::to_string(h) + ":00";
  };
  return {{"start", clock_text(hour_now - 1)}, {"end", clock_text(hour_now + 2)}};
}

}  // namespace chopar::testing
