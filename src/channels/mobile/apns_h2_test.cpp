// APNs requests sent for real: libcurl (net::HttpClient) over HTTP/2 and
// TLS to FakeH2Server, which checks the provider token as Apple does.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "channels/mobile/apns_auth.hpp"
#include "channels/mobile/apns_message.hpp"
#include "channels/mobile/jwt.hpp"
#include "net/curl_handles.hpp"
#include "testing/fake_h2_server.hpp"
#include "testing/test_keys.hpp"

namespace chopar::channels::mobile {
namespace {

using nlohmann::json;
using testing::FakeH2Server;

const std::string kGoneDevice(64, 'a');
const std::string kLiveDevice(64, 'b');
constexpr std::string_view kTopic = "com.example.app";

// A fake APNs: a request whose bearer token does not verify with the team's
// public key is refused as Apple would; otherwise kGoneDevice is
// unregistered and every other device accepts.
class FakeApns {
 public:
  explicit FakeApns(const std::string& pem) : public_key_(testing::PublicKeyOfPem(pem)) {}

  FakeH2Server::Response Handle(const FakeH2Server::Request& request) const {
    const std::string bearer = "bearer ";
    const auto authorization = request.headers.find("authorization");
    const bool authorized =
        authorization != request.headers.end() && authorization->second.starts_with(bearer) &&
        VerifyJwt(authorization->second.substr(bearer.size()), public_key_.get());
    if (!authorized) return {403, {}, R"({"reason":"InvalidProviderToken"})"};
    if (request.path == "/3/device/" + kGoneDevice)
      return {410, {}, R"({"reason":"Unregistered","timestamp":1})"};
    return {200, {{"apns-id", "EC1BF194-B3B2-424A-89A7-3A6A1C8FD2A5"}}, ""};
  }

 private:
  core::EvpPkey public_key_;
};

class ApnsH2Test : public ::testing::Test {
 protected:
  net::HttpRequest Request(const std::string& device, const std::string& provider_token) {
    net::HttpRequest request = BuildApnsRequest(
        server_.url(), device, PushContent{"Title", "Body", {{"task", "42"}}, 1, {}, {}, {}},
        ApnsOptions{std::string(kTopic), true, "task-42", 0}, provider_token);
    request.ca_file = server_.ca_file();
    return request;
  }

  std::string pem_ = testing::NewP256KeyPem();
  FakeApns apns_{pem_};
  FakeH2Server server_{[this](const FakeH2Server::Request& r) { return apns_.Handle(r); }};
  core::SimulatedClock clock_{core::TimePoint(std::chrono::seconds(1'700'000'000))};
  ApnsTokenCache tokens_{LoadApnsKey(pem_, "ABC123DEFG", "DEF123GHIJ"), clock_};
  net::HttpClient http_;
};

TEST_F(ApnsH2Test, OverHttp2TheGoneDeviceIsGoneAndTheLiveOneGetsAnApnsId) {
  const std::string token = tokens_.Token();
  const std::vector<net::HttpRequest> requests{Request(kGoneDevice, token),
                                               Request(kLiveDevice, token)};
  const auto responses = http_.PerformAll(requests);
  const core::TimePoint now = clock_.Now();

  const PushOutcome gone = ClassifyApnsResponse(responses[0], now);
  EXPECT_EQ(gone.kind, PushOutcomeKind::kDeviceGone) << responses[0].error_message;
  EXPECT_EQ(gone.detail, "apns: HTTP 410 Unregistered");
  const PushOutcome sent = ClassifyApnsResponse(responses[1], now);
  EXPECT_EQ(sent.kind, PushOutcomeKind::kSent) << responses[1].error_message;
  EXPECT_EQ(sent.message_id, "EC1BF194-B3B2-424A-89A7-3A6A1C8FD2A5");

  ASSERT_EQ(server_.request_count(), 2u);
  for (const FakeH2Server::Request& request : server_.requests()) {
    EXPECT_EQ(request.method, "POST");
    EXPECT_TRUE(request.path == "/3/device/" + kGoneDevice ||
                request.path == "/3/device/" + kLiveDevice);
    EXPECT_EQ(request.headers.at("apns-topic"), kTopic);
    EXPECT_EQ(request.headers.at("apns-push-type"), "alert");
    EXPECT_EQ(request.headers.at("apns-priority"), "10");
    EXPECT_EQ(request.headers.at("apns-collapse-id"), "task-42");
    EXPECT_EQ(json::parse(request.body)["aps"]["alert"]["title"], "Title");
  }
  // Both streams shared one connection: HTTP/2 multiplexing, as APNs wants.
  EXPECT_EQ(server_.connection_count(), 1u);
}

TEST_F(ApnsH2Test, AForeignProviderTokenIsRefusedAndAsksForANewOne) {
  ApnsTokenCache other(LoadApnsKey(testing::NewP256KeyPem(), "ABC123DEFG", "DEF123GHIJ"), clock_);
  const net::HttpResponse response = http_.Perform(Request(kLiveDevice, other.Token()));
  EXPECT_EQ(ClassifyApnsResponse(response, clock_.Now()).kind, PushOutcomeKind::kRetryWithNewToken);
}

TEST_F(ApnsH2Test, WithoutTrustingTheFakesCertificateNothingIsSent) {
  net::HttpRequest request = Request(kLiveDevice, tokens_.Token());
  request.ca_file.reset();
  const net::HttpResponse response = http_.Perform(request);
  EXPECT_EQ(response.status, 0);
  EXPECT_EQ(response.error, CURLE_PEER_FAILED_VERIFICATION) << response.error_message;
  EXPECT_EQ(server_.request_count(), 0u);
}

std::size_t Discard(char* /*data*/, std::size_t size, std::size_t count, void* /*user*/) {
  return size * count;
}

// What a plain libcurl transfer to the fake ends with, HTTP/1.1 only.
CURLcode Http11Transfer(const FakeH2Server& server, bool offer_alpn, long* status) {
  net::CurlEasy easy(curl_easy_init());
  const std::string url = server.url() + "/3/device/" + kLiveDevice;
  curl_easy_setopt(easy.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy.get(), CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
  curl_easy_setopt(easy.get(), CURLOPT_SSL_ENABLE_ALPN, offer_alpn ? 1L : 0L);
  curl_easy_setopt(easy.get(), CURLOPT_CAINFO, server.ca_file().c_str());
  curl_easy_setopt(easy.get(), CURLOPT_POSTFIELDS, "{}");
  curl_easy_setopt(easy.get(), CURLOPT_TIMEOUT_MS, 5000L);
  curl_easy_setopt(easy.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy.get(), CURLOPT_WRITEFUNCTION, Discard);
  const CURLcode result = curl_easy_perform(easy.get());
  curl_easy_getinfo(easy.get(), CURLINFO_RESPONSE_CODE, status);
  return result;
}

TEST_F(ApnsH2Test, AnHttp11OnlyClientGetsNoAnswer) {
  long status = -1;
  // Offering "http/1.1" by ALPN: the handshake is refused.
  EXPECT_EQ(Http11Transfer(server_, true, &status), CURLE_SSL_CONNECT_ERROR);
  EXPECT_EQ(status, 0);
  // Offering nothing: the handshake completes, then the connection closes.
  EXPECT_NE(Http11Transfer(server_, false, &status), CURLE_OK);
  EXPECT_EQ(status, 0);
  server_.Stop();  // joins the connections' threads: the counts are final
  EXPECT_EQ(server_.request_count(), 0u);
  EXPECT_EQ(server_.connection_count(), 2u);
  EXPECT_EQ(server_.refused_count(), 2u);
}

}  // namespace
}  // namespace chopar::channels::mobile
