#include "channels/mobile/fcm_message.hpp"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <tuple>
#include <vector>

namespace chopar::channels::mobile {
namespace {

using nlohmann::json;
using std::chrono::seconds;

const core::TimePoint kNow = core::TimePoint(seconds(1'700'000'000));

TEST(FcmSendTest, UrlNamesTheProject) {
  EXPECT_EQ(FcmSendUrl(kFcmBaseUrl, "project-1"),
            "https://fcm.googleapis.com/v1/projects/project-1/messages:send");
}

TEST(FcmSendTest, BodyCarriesEveryField) {
  PushContent content{"Title", "Body",    {{"task", "42"}, {"kind", "reminder"}},
                      3,       "default", "https://img.example/a.png",
                      "tasks"};
  EXPECT_EQ(json::parse(FcmSendBody("device-token", content)), json::parse(R"({"message":{
      "token":"device-token",
      "notification":{"title":"Title","body":"Body","image":"https://img.example/a.png"},
      "data":{"task":"42","kind":"reminder"},
      "android":{"collapse_key":"tasks","notification":{"sound":"default"}},
      "apns":{"payload":{"aps":{"badge":3,"sound":"default"}}}}})"));
}

TEST(FcmSendTest, EmptyPartsAreLeftOut) {
  EXPECT_EQ(json::parse(FcmSendBody("t", PushContent{"T", "B", {}, {}, {}, {}, {}})),
            json::parse(R"({"message":{"token":"t","notification":{"title":"T","body":"B"}}})"));
  // A badge alone makes the apns block, a collapse key alone the android one.
  const json only = json::parse(FcmSendBody("t", PushContent{"T", "B", {}, 0, {}, {}, "k"}));
  EXPECT_EQ(only["message"]["apns"], json::parse(R"({"payload":{"aps":{"badge":0}}})"));
  EXPECT_EQ(only["message"]["android"], json::parse(R"({"collapse_key":"k"})"));
}

TEST(FcmSendTest, InvalidUtf8IsReplacedNotThrown) {
  const json body =
      json::parse(FcmSendBody("t", PushContent{"T", "bad \xff byte", {}, {}, {}, {}, {}}));
  EXPECT_EQ(body["message"]["notification"]["body"], "bad \xEF\xBF\xBD byte");
}

net::HttpResponse Answer(long status, std::string body,
                         std::map<std::string, std::string> headers = {}) {
  net::HttpResponse response;
  response.status = status;
  response.body = std::move(body);
  response.headers = std::move(headers);
  return response;
}

net::HttpResponse FcmError(long status, const std::string& status_name, const std::string& code,
                           const std::string& message = "some message",
                           const json& extra_details = json::array()) {
  json details = json::array();
  if (!code.empty()) {
    details.push_back(
        {{"@type", "type.googleapis.com/google.firebase.fcm.v1.FcmError"}, {"errorCode", code}});
  }
  for (const auto& d : extra_details) details.push_back(d);
  return Answer(
      status,
      json{
          {"error",
           {{"code", status}, {"message", message}, {"status", status_name}, {"details", details}}}}
          .dump());
}

TEST(FcmOutcomeTest, OkIsSentWithTheMessageName) {
  const PushOutcome outcome =
      ClassifyFcmResponse(Answer(200, R"({"name":"projects/p/messages/0:123"})"), kNow);
  EXPECT_EQ(outcome.kind, PushOutcomeKind::kSent);
  EXPECT_EQ(outcome.message_id, "projects/p/messages/0:123");
  EXPECT_EQ(ClassifyFcmResponse(Answer(200, "{}"), kNow).message_id, std::nullopt);
}

TEST(FcmOutcomeTest, UnregisteredAndSenderIdMismatchMeanTheDeviceIsGone) {
  const PushOutcome unregistered =
      ClassifyFcmResponse(FcmError(404, "NOT_FOUND", "UNREGISTERED"), kNow);
  EXPECT_EQ(unregistered.kind, PushOutcomeKind::kDeviceGone);
  EXPECT_EQ(unregistered.detail, "fcm: HTTP 404 UNREGISTERED: some message");
  EXPECT_EQ(
      ClassifyFcmResponse(FcmError(403, "PERMISSION_DENIED", "SENDER_ID_MISMATCH"), kNow).kind,
      PushOutcomeKind::kDeviceGone);
}

PushOutcomeKind InvalidArgument(const std::string& message, const std::string& violated_field) {
  json details = json::array();
  if (!violated_field.empty()) {
    details.push_back({{"@type", "type.googleapis.com/google.rpc.BadRequest"},
                       {"fieldViolations", {{{"field", violated_field}, {"description", "bad"}}}}});
  }
  return ClassifyFcmResponse(
             FcmError(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT", message, details), kNow)
      .kind;
}

TEST(FcmOutcomeTest, InvalidArgumentIsDeviceGoneOnlyWhenTheTokenIsAtFault) {
  EXPECT_EQ(InvalidArgument("Request contains an invalid argument.", "message.token"),
            PushOutcomeKind::kDeviceGone);
  EXPECT_EQ(InvalidArgument("The registration token is not a valid FCM registration token", ""),
            PushOutcomeKind::kDeviceGone);
  EXPECT_EQ(InvalidArgument("Invalid data payload key", "message.data[0].key"),
            PushOutcomeKind::kPermanent);
  EXPECT_EQ(InvalidArgument("Request contains an invalid argument.", ""),
            PushOutcomeKind::kPermanent);
}

TEST(FcmOutcomeTest, QuotaUnavailableAndInternalAreRetriedAfterRetryAfter) {
  for (const auto& [status, name, code] : std::vector<std::tuple<long, std::string, std::string>>{
           {429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED"},
           {503, "UNAVAILABLE", "UNAVAILABLE"},
           {500, "INTERNAL", "INTERNAL"}}) {
    net::HttpResponse response = FcmError(status, name, code);
    response.headers["retry-after"] = "120";
    const PushOutcome outcome = ClassifyFcmResponse(response, kNow);
    EXPECT_EQ(outcome.kind, PushOutcomeKind::kRetry) << code;
    EXPECT_EQ(outcome.retry_after, seconds(120)) << code;
  }
  // Without details or Retry-After: a 5xx is still a retry, whenever the caller's backoff says.
  const PushOutcome bare = ClassifyFcmResponse(Answer(502, "<html>bad gateway</html>"), kNow);
  EXPECT_EQ(bare.kind, PushOutcomeKind::kRetry);
  EXPECT_EQ(bare.retry_after, std::nullopt);
  EXPECT_EQ(bare.detail, "fcm: HTTP 502");
  net::HttpResponse dated = FcmError(503, "UNAVAILABLE", "UNAVAILABLE");
  dated.headers["retry-after"] = "Tue, 14 Nov 2023 22:14:20 GMT";  // kNow + 60 s
  EXPECT_EQ(ClassifyFcmResponse(dated, kNow).retry_after, seconds(60));
}

TEST(FcmOutcomeTest, UnauthorizedAsksForANewAccessToken) {
  const PushOutcome outcome = ClassifyFcmResponse(FcmError(401, "UNAUTHENTICATED", ""), kNow);
  EXPECT_EQ(outcome.kind, PushOutcomeKind::kRetryWithNewToken);
  EXPECT_EQ(outcome.detail, "fcm: HTTP 401 UNAUTHENTICATED: some message");
}

TEST(FcmOutcomeTest, ThirdPartyAuthErrorIsPermanentEvenOn401) {
  // The APNs credentials in the Firebase project are wrong: a new access token does not mend that.
  EXPECT_EQ(
      ClassifyFcmResponse(FcmError(401, "UNAUTHENTICATED", "THIRD_PARTY_AUTH_ERROR"), kNow).kind,
      PushOutcomeKind::kPermanent);
}

TEST(FcmOutcomeTest, AnythingElseIsPermanent) {
  EXPECT_EQ(ClassifyFcmResponse(FcmError(403, "PERMISSION_DENIED", ""), kNow).kind,
            PushOutcomeKind::kPermanent);
  EXPECT_EQ(ClassifyFcmResponse(Answer(404, "not json"), kNow).kind, PushOutcomeKind::kPermanent);
  EXPECT_EQ(ClassifyFcmResponse(FcmError(400, "FAILED_PRECONDITION", "SOMETHING_NEW"), kNow).kind,
            PushOutcomeKind::kPermanent);
}

TEST(FcmOutcomeTest, NoAnswerIsARetry) {
  net::HttpResponse response;
  response.error = CURLE_COULDNT_CONNECT;
  response.error_message = "Couldn't connect to server";
  const PushOutcome outcome = ClassifyFcmResponse(response, kNow);
  EXPECT_EQ(outcome.kind, PushOutcomeKind::kRetry);
  EXPECT_EQ(outcome.detail, "fcm: no answer: Couldn't connect to server");
}

}  // namespace
}  // namespace chopar::channels::mobile
