#include "channels/mobile/apns_message.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

namespace chopar::channels::mobile {
namespace {

using nlohmann::json;
using std::chrono::seconds;

const core::TimePoint kNow = core::TimePoint(seconds(1'700'000'000));
const std::string kDevice(64, 'a');

PushContent Content(std::string body = "Body") {
  return PushContent{"Title", std::move(body), {{"task", "42"}}, 2, "default", {}, {}};
}

TEST(ApnsRequestTest, PathHeadersAndBody) {
  const ApnsOptions options{"com.example.app", true, "task-42", 1'700'003'600};
  const net::HttpRequest request =
      BuildApnsRequest(kApnsSandboxUrl, kDevice, Content(), options, "header.claims.signature");
  EXPECT_EQ(request.method, "POST");
  EXPECT_EQ(request.url, "https://api.sandbox.push.apple.com/3/device/" + kDevice);
  EXPECT_EQ(request.headers, (std::vector<std::string>{
                                 "authorization: bearer header.claims.signature",
                                 "apns-push-type: alert",
                                 "apns-priority: 10",
                                 "apns-topic: com.example.app",
                                 "apns-expiration: 1700003600",
                                 "content-type: application/json",
                                 "apns-collapse-id: task-42",
                             }));
  EXPECT_EQ(json::parse(request.body), json::parse(R"({
      "aps":{"alert":{"title":"Title","body":"Body"},"badge":2,"sound":"default"},
      "task":"42"})"));
}

TEST(ApnsRequestTest, NotCriticalIsPriorityFiveAndNoDedupKeyNoCollapseId) {
  const net::HttpRequest request = BuildApnsRequest(
      kApnsProductionUrl, kDevice, Content(), ApnsOptions{"com.example.app", false, {}, 0}, "jwt");
  EXPECT_NE(std::find(request.headers.begin(), request.headers.end(), "apns-priority: 5"),
            request.headers.end());
  EXPECT_NE(std::find(request.headers.begin(), request.headers.end(), "apns-expiration: 0"),
            request.headers.end());
  for (const auto& header : request.headers)
    EXPECT_FALSE(header.starts_with("apns-collapse-id")) << header;
}

TEST(ApnsRequestTest, AnImageMakesTheContentMutableAndTheDataCannotReplaceAps) {
  PushContent content{
      "T", "B", {{"aps", "spoof"}, {"image", "data's"}}, {}, {}, "https://img.example/a.png", {}};
  EXPECT_EQ(json::parse(ApnsPayload(content)), json::parse(R"({
      "aps":{"alert":{"title":"T","body":"B"},"mutable-content":1},
      "image":"https://img.example/a.png"})"));
}

TEST(ApnsRequestTest, RefusesWhatCannotGoIntoTheRequest) {
  const ApnsOptions options{"com.example.app", false, {}, 0};
  EXPECT_THROW((void)BuildApnsRequest(kApnsSandboxUrl, "../admin", Content(), options, "jwt"),
               std::invalid_argument);
  EXPECT_THROW(
      (void)BuildApnsRequest(kApnsSandboxUrl, std::string(63, 'a'), Content(), options, "jwt"),
      std::invalid_argument);
  EXPECT_THROW((void)BuildApnsRequest(kApnsSandboxUrl, kDevice, Content(), ApnsOptions{}, "jwt"),
               std::invalid_argument);
  EXPECT_TRUE(IsApnsDeviceToken(std::string(64, 'F')));
  EXPECT_TRUE(IsApnsDeviceToken(std::string(160, '0')));
}

TEST(ApnsCollapseIdTest, ShortKeysAsTheyAreLongOrOddOnesHashed) {
  EXPECT_EQ(ApnsCollapseId("task-42"), "task-42");
  EXPECT_EQ(ApnsCollapseId(std::string(64, 'k')), std::string(64, 'k'));
  const std::string hashed = ApnsCollapseId(std::string(65, 'k'));
  EXPECT_EQ(hashed.size(), 64u);
  EXPECT_NE(hashed, ApnsCollapseId(std::string(66, 'k')));
  EXPECT_EQ(ApnsCollapseId("line\r\nbreak").size(), 64u);  // never a header injection
}

TEST(ApnsPayloadTest, ALongBodyIsCutOnACodePointBoundaryToFitFourKilobytes) {
  std::string body;
  while (body.size() < 6000) body += "Привет, мир! \"quoted\" ";  // 2-byte letters and escapes
  const std::string payload = ApnsPayload(Content(body));
  EXPECT_LE(payload.size(), kApnsMaxPayload);
  EXPECT_GT(payload.size(), kApnsMaxPayload - 8);  // cut no more than needed
  const json parsed = json::parse(payload);        // still valid UTF-8 and JSON
  const std::string cut = parsed["aps"]["alert"]["body"];
  EXPECT_TRUE(cut.ends_with("…"));
  EXPECT_TRUE(body.starts_with(cut.substr(0, cut.size() - std::string("…").size())));
  EXPECT_EQ(parsed["task"], "42");
}

TEST(ApnsPayloadTest, ABodyThatFitsIsLeftWhole) {
  const std::string body(3000, 'x');
  EXPECT_EQ(json::parse(ApnsPayload(Content(body)))["aps"]["alert"]["body"], body);
}

TEST(ApnsPayloadTest, DataTooLargeForAnyBodyIsRefused) {
  PushContent content = Content();
  content.data["blob"] = std::string(5000, 'x');
  EXPECT_THROW((void)ApnsPayload(content), std::invalid_argument);
}

net::HttpResponse Answer(long status, std::string body,
                         std::map<std::string, std::string> headers = {}) {
  net::HttpResponse response;
  response.status = status;
  response.body = std::move(body);
  response.headers = std::move(headers);
  return response;
}

TEST(ApnsOutcomeTest, OkIsSentWithTheApnsId) {
  const PushOutcome outcome = ClassifyApnsResponse(
      Answer(200, "", {{"apns-id", "EC1BF194-B3B2-424A-89A7-3A6A1C8FD2A5"}}), kNow);
  EXPECT_EQ(outcome.kind, PushOutcomeKind::kSent);
  EXPECT_EQ(outcome.message_id, "EC1BF194-B3B2-424A-89A7-3A6A1C8FD2A5");
}

TEST(ApnsOutcomeTest, GoneDevices) {
  for (const auto& [status, reason] :
       std::vector<std::pair<long, std::string>>{{410, "Unregistered"},
                                                 {410, "ExpiredToken"},
                                                 {400, "BadDeviceToken"},
                                                 {400, "DeviceTokenNotForTopic"}}) {
    const PushOutcome outcome =
        ClassifyApnsResponse(Answer(status, R"({"reason":")" + reason + "\"}"), kNow);
    EXPECT_EQ(outcome.kind, PushOutcomeKind::kDeviceGone) << reason;
    EXPECT_EQ(outcome.detail, "apns: HTTP " + std::to_string(status) + " " + reason);
  }
  EXPECT_EQ(ClassifyApnsResponse(Answer(410, ""), kNow).kind, PushOutcomeKind::kDeviceGone);
}

TEST(ApnsOutcomeTest, ThrottlingAndServerErrorsAreRetried) {
  const PushOutcome throttled = ClassifyApnsResponse(
      Answer(429, R"({"reason":"TooManyRequests"})", {{"retry-after", "15"}}), kNow);
  EXPECT_EQ(throttled.kind, PushOutcomeKind::kRetry);
  EXPECT_EQ(throttled.retry_after, seconds(15));
  for (long status : {500L, 503L}) {
    const PushOutcome outcome =
        ClassifyApnsResponse(Answer(status, R"({"reason":"ServiceUnavailable"})"), kNow);
    EXPECT_EQ(outcome.kind, PushOutcomeKind::kRetry);
    EXPECT_EQ(outcome.retry_after, std::nullopt);
  }
}

TEST(ApnsOutcomeTest, ARefusedProviderTokenAsksForANewOne) {
  for (const char* reason : {"ExpiredProviderToken", "InvalidProviderToken"}) {
    EXPECT_EQ(
        ClassifyApnsResponse(Answer(403, std::string(R"({"reason":")") + reason + "\"}"), kNow)
            .kind,
        PushOutcomeKind::kRetryWithNewToken);
  }
}

TEST(ApnsOutcomeTest, AnythingElseIsPermanent) {
  for (const auto& [status, body] :
       std::vector<std::pair<long, std::string>>{{400, R"({"reason":"PayloadTooLarge"})"},
                                                 {400, R"({"reason":"TopicDisallowed"})"},
                                                 {403, R"({"reason":"BadCertificate"})"},
                                                 {405, R"({"reason":"MethodNotAllowed"})"},
                                                 {404, "not json"}}) {
    EXPECT_EQ(ClassifyApnsResponse(Answer(status, body), kNow).kind, PushOutcomeKind::kPermanent)
        << body;
  }
}

}  // namespace
}  // namespace chopar::channels::mobile
