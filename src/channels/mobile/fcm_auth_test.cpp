#include "channels/mobile/fcm_auth.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "channels/mobile/jwt.hpp"
#include "core/encoding.hpp"
#include "testing/fake_http_server.hpp"
#include "testing/test_keys.hpp"

namespace chopar::channels::mobile {
namespace {

using nlohmann::json;
using std::chrono::minutes;
using std::chrono::seconds;
using testing::FakeHttpServer;

const core::TimePoint kStart = core::TimePoint(seconds(1'700'000'000));
constexpr std::string_view kEmail = "chopar@project-1.iam.gserviceaccount.com";

json KeyJson(const std::string& pem,
             const std::string& token_uri = "https://oauth2.googleapis.com/token") {
  return {{"type", "service_account"}, {"project_id", "project-1"}, {"private_key_id", "abc"},
          {"private_key", pem},        {"client_email", kEmail},    {"token_uri", token_uri}};
}

std::string PemBody(const std::string& pem) {
  // The base64 between the PEM lines: what must never appear in an error.
  const auto begin = pem.find('\n') + 1;
  return pem.substr(begin, 40);
}

TEST(ServiceAccountKeyTest, ParsesTheFieldsChoparUses) {
  const ServiceAccountKey key = ParseServiceAccountKey(KeyJson(testing::NewRsaKeyPem()).dump());
  EXPECT_EQ(key.project_id, "project-1");
  EXPECT_EQ(key.client_email, kEmail);
  EXPECT_EQ(key.token_uri, "https://oauth2.googleapis.com/token");
  ASSERT_TRUE(key.private_key);
  EXPECT_EQ(EVP_PKEY_is_a(key.private_key.get(), "RSA"), 1);
}

TEST(ServiceAccountKeyTest, EachMissingOrWrongFieldIsNamed) {
  const std::string pem = testing::NewRsaKeyPem();
  for (const char* field : {"type", "project_id", "private_key", "client_email", "token_uri"}) {
    json key = KeyJson(pem);
    key.erase(field);
    try {
      (void)ParseServiceAccountKey(key.dump());
      ADD_FAILURE() << "accepted without " << field;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  }
  json user_key = KeyJson(pem);
  user_key["type"] = "authorized_user";
  EXPECT_THROW((void)ParseServiceAccountKey(user_key.dump()), std::invalid_argument);
  EXPECT_THROW((void)ParseServiceAccountKey(KeyJson(pem, "http://oauth.example/token").dump()),
               std::invalid_argument);
  EXPECT_THROW((void)ParseServiceAccountKey("[]"), std::invalid_argument);
}

TEST(ServiceAccountKeyTest, ErrorsNeverQuoteTheKey) {
  const std::string pem = testing::NewRsaKeyPem();
  const std::string secret = PemBody(pem);
  // Malformed JSON right after the key: a JSON parser's message would quote it.
  std::string broken = KeyJson(pem).dump();
  broken.insert(broken.find(secret) + secret.size(), "\"");
  // An EC key where an RSA one belongs, and a damaged RSA key.
  json ec = KeyJson(testing::NewP256KeyPem());
  std::string damaged_pem = pem;
  damaged_pem.replace(pem.find(secret) + 10, 4, "!!!!");
  for (const std::string& text : {broken, ec.dump(), KeyJson(damaged_pem).dump()}) {
    try {
      (void)ParseServiceAccountKey(text);
      ADD_FAILURE() << "accepted";
    } catch (const std::invalid_argument& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.find(secret.substr(0, 16)), std::string::npos) << message;
      EXPECT_EQ(message.find("BEGIN"), std::string::npos) << message;
    }
  }
}

TEST(FcmAssertionTest, Rs256JwtVerifiesWithTheServiceAccountsPublicKey) {
  const std::string pem = testing::NewRsaKeyPem();
  const ServiceAccountKey key = ParseServiceAccountKey(KeyJson(pem).dump());
  const std::string token = SignFcmAssertion(key, kStart);
  const auto decoded = VerifyJwt(token, testing::PublicKeyOfPem(pem).get());
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->header, json({{"alg", "RS256"}, {"typ", "JWT"}}));
  EXPECT_EQ(decoded->claims, json({{"iss", kEmail},
                                   {"scope", "https://www.googleapis.com/auth/firebase.messaging"},
                                   {"aud", "https://oauth2.googleapis.com/token"},
                                   {"iat", 1'700'000'000},
                                   {"exp", 1'700'003'600}}));
  EXPECT_FALSE(VerifyJwt(token, testing::PublicKeyOfPem(testing::NewRsaKeyPem()).get()));
}

// A fake Google OAuth endpoint: checks the grant and the assertion's RS256
// signature with the service account's public key, as Google does.
class FakeOAuth {
 public:
  explicit FakeOAuth(const std::string& pem) : public_key_(testing::PublicKeyOfPem(pem)) {}

  FakeHttpServer::Response Handle(const FakeHttpServer::Request& request) {
    const auto pairs = core::DecodeFormPairs(request.body, core::MalformedEscapes::kRefuse);
    std::string grant;
    std::string assertion;
    for (const auto& [name, value] :
         pairs ? *pairs : std::vector<std::pair<std::string, std::string>>{}) {
      if (name == "grant_type") grant = value;
      if (name == "assertion") assertion = value;
    }
    const auto decoded = VerifyJwt(assertion, public_key_.get());
    if (request.method != "POST" ||
        request.headers.at("content-type") != "application/x-www-form-urlencoded" ||
        grant != "urn:ietf:params:oauth:grant-type:jwt-bearer" || !decoded ||
        decoded->claims.value("aud", "") != audience) {
      return {400, R"({"error":"invalid_grant","error_description":"Invalid JWT Signature."})", {}};
    }
    ++issued;
    return {200,
            json{{"access_token", "ya29.token-" + std::to_string(issued.load())},
                 {"expires_in", 3599},
                 {"token_type", "Bearer"}}
                .dump(),
            {}};
  }

  std::string audience;
  std::atomic<int> issued{0};

 private:
  core::EvpPkey public_key_;
};

class FcmTokenSourceTest : public ::testing::Test {
 protected:
  FcmTokenSourceTest()
      : pem_(testing::NewRsaKeyPem()),
        oauth_(pem_),
        server_([this](const FakeHttpServer::Request& r) { return oauth_.Handle(r); }) {
    oauth_.audience = server_.url() + "/token";
  }

  FcmTokenSource Source() {
    return FcmTokenSource(ParseServiceAccountKey(KeyJson(pem_, oauth_.audience).dump()), http_,
                          clock_);
  }

  std::string pem_;
  FakeOAuth oauth_;
  FakeHttpServer server_;
  net::HttpClient http_;
  core::SimulatedClock clock_{kStart};
};

TEST_F(FcmTokenSourceTest, FetchesOnceThenServesTheCachedTokenUntilFiveMinutesBeforeExpiry) {
  FcmTokenSource source = Source();
  const FcmTokenResult first = source.Get();
  ASSERT_TRUE(first.ok()) << first.error;
  EXPECT_EQ(*first.access_token, "ya29.token-1");
  clock_.Advance(minutes(54));
  EXPECT_EQ(source.Get().access_token, "ya29.token-1");
  EXPECT_EQ(server_.request_count(), 1u);
  clock_.Advance(seconds(60));  // 3599 s issued, 300 s margin: due at 54:59
  EXPECT_EQ(source.Get().access_token, "ya29.token-2");
  EXPECT_EQ(server_.request_count(), 2u);
  EXPECT_EQ(source.project_id(), "project-1");
}

TEST_F(FcmTokenSourceTest, InvalidateDropsOnlyTheTokenThatWasRefused) {
  FcmTokenSource source = Source();
  const std::string first = source.Get().access_token.value();
  source.Invalidate("ya29.some-older-token");
  EXPECT_EQ(source.Get().access_token, first);
  source.Invalidate(first);
  EXPECT_EQ(source.Get().access_token, "ya29.token-2");
  EXPECT_EQ(server_.request_count(), 2u);
}

TEST_F(FcmTokenSourceTest, ConcurrentCallersShareOneFetch) {
  FcmTokenSource source = Source();
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] { ok += source.Get().access_token == "ya29.token-1" ? 1 : 0; });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 8);
  EXPECT_EQ(server_.request_count(), 1u);
}

TEST_F(FcmTokenSourceTest, ARefusedAssertionIsAFailureValueThatQuotesNoToken) {
  FcmTokenSource source = Source();
  oauth_.audience = "https://elsewhere.example/token";  // the fake now refuses every assertion
  const FcmTokenResult result = source.Get();
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.error, "token endpoint: HTTP 400 invalid_grant: Invalid JWT Signature.");
  EXPECT_EQ(result.error.find("eyJ"), std::string::npos);  // no JWT piece
  // Failures are not cached: once the endpoint accepts again, so does Get.
  oauth_.audience = server_.url() + "/token";
  EXPECT_TRUE(source.Get().ok());
}

TEST_F(FcmTokenSourceTest, AServerErrorIsAFailureWithItsRetryAfterAndWithoutTheBody) {
  server_.SetHandler([](const FakeHttpServer::Request& request) {
    // A broken endpoint echoing what it got: the assertion must not travel on.
    return FakeHttpServer::Response{
        503, "upstream failed for " + request.body, {{"Retry-After", "30"}}};
  });
  FcmTokenSource source = Source();
  const FcmTokenResult result = source.Get();
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.error, "token endpoint: HTTP 503");
  EXPECT_EQ(result.retry_after, seconds(30));
}

TEST_F(FcmTokenSourceTest, AnAnswerWithoutATokenOrLifetimeIsAFailure) {
  for (const char* body :
       {R"({"expires_in":3600,"token_type":"Bearer"})",
        R"({"access_token":"ya29.x","token_type":"Bearer"})",
        R"({"access_token":"ya29.x","expires_in":3600,"token_type":"MAC"})", "not json"}) {
    server_.SetHandler([body](const FakeHttpServer::Request&) {
      return FakeHttpServer::Response{200, body, {}};
    });
    FcmTokenSource source = Source();
    const FcmTokenResult result = source.Get();
    EXPECT_FALSE(result.ok()) << body;
    EXPECT_EQ(result.error.find("ya29"), std::string::npos) << result.error;
  }
}

TEST_F(FcmTokenSourceTest, AnUnreachableEndpointIsAFailure) {
  auto gone = std::make_unique<FakeHttpServer>(
      [](const FakeHttpServer::Request&) { return FakeHttpServer::Response{}; });
  const std::string closed_url = gone->url() + "/token";
  gone.reset();  // nothing listens there now
  FcmTokenSource source(ParseServiceAccountKey(KeyJson(pem_, closed_url).dump()), http_, clock_);
  const FcmTokenResult result = source.Get();
  EXPECT_FALSE(result.ok());
  EXPECT_TRUE(result.error.starts_with("token endpoint: ")) << result.error;
}

}  // namespace
}  // namespace chopar::channels::mobile
