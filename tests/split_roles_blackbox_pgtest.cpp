// Black-box: processes split by role on separate data_dirs (two hosts, as it
// were) share the secrets chopar generates for itself (docs/operations.md,
// "Roles"). A worker signs the List-Unsubscribe link of the email it sends;
// the API process, which never saw the worker's data_dir, accepts it.

#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>
#include <string>

#include "blackbox_support.hpp"
#include "core/json.hpp"
#include "testing/fake_smtp_server.hpp"

namespace chopar {
namespace {

using core::ParseJsonOrDiscarded;
using testing::Api;
using testing::FreeLoopbackPort;
using testing::WaitUntil;
using namespace std::chrono_literals;
using nlohmann::json;

constexpr char kApiKey[] = "split-roles-key";

class SplitRolesBlackBox : public testing::DatabaseBlackBox {};

TEST_F(SplitRolesBlackBox, UnsubscribeLinkSignedByAWorkerOnAnotherDataDirIsAcceptedByTheApi) {
  testing::FakeSmtpServer smtp;
  const int api_port = FreeLoopbackPort();
  const std::string base = "http://127.0.0.1:" + std::to_string(api_port);
  // No inbox secret configured: each process finds or makes its own.
  const auto env = [&](const std::string& roles, const std::string& data_dir) {
    return DatabaseEnv(kApiKey, {{"CHOPAR_SERVER_ROLES", roles},
                                 {"CHOPAR_SERVER_DATA_DIR", (dir_ / data_dir).string()},
                                 {"CHOPAR_SERVER_PUBLIC_URL", base},
                                 {"CHOPAR_CHANNELS_EMAIL_PROVIDER", "smtp"},
                                 {"CHOPAR_CHANNELS_EMAIL_SMTP_URL", smtp.url()},
                                 {"CHOPAR_CHANNELS_EMAIL_FROM", "chopar <noreply@chopar.example.uz>"}});
  };
  auto api_process = Start("serve", api_port, env("api", "var-api"), "api.log");
  Api api(api_port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << api_process->Output();
  auto worker = Start("worker", FreeLoopbackPort(), env("worker", "var-worker"), "worker.log");

  ASSERT_EQ(api.Call("PUT", "/v1/users/1", {{"email", "user1@example.uz"}}).status, 200);
  ASSERT_EQ(api.Call("POST", "/v1/notifications",
                     {{"user_id", 1}, {"type", "task.due"}, {"title", "Due"}})
                .status,
            201);
  ASSERT_TRUE(WaitUntil([&] { return smtp.message_count() == 1; }, 60s)) << worker->Output();

  const std::string data = smtp.messages().front().data;
  const std::string header = "\r\nList-Unsubscribe: <";
  const auto from = data.find(header);
  ASSERT_NE(from, std::string::npos) << data;
  const auto to = data.find('>', from);
  ASSERT_NE(to, std::string::npos) << data;
  const std::string url = data.substr(from + header.size(), to - from - header.size());
  ASSERT_TRUE(url.starts_with(base + "/v1/unsubscribe?user=1&type=task.due&channel=email&sig="))
      << url;

  // What a mail client does for RFC 8058 one-click.
  net::HttpClient client;
  net::HttpRequest request;
  request.method = "POST";
  request.url = url;
  request.headers = {"Content-Type: application/x-www-form-urlencoded"};
  request.body = "List-Unsubscribe=One-Click";
  request.timeout = 10s;
  const auto answer = client.Perform(request);
  EXPECT_EQ(answer.status, 200) << answer.body;
  EXPECT_EQ(ParseJsonOrDiscarded(api.Call("GET", "/v1/users/1").body)["preferences"],
            json({{"types", {{"task.due", {{"email", false}}}}}}));

  for (auto* process : {worker.get(), api_process.get()}) {
    process->Signal(SIGTERM);
    EXPECT_EQ(process->Wait(30s), 0) << process->Output();
  }
}

}  // namespace
}  // namespace chopar
