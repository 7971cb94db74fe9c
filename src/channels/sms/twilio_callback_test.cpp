#include "channels/sms/twilio_callback.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/encoding.hpp"
#include "core/request_error.hpp"

namespace chopar::channels::sms {
namespace {

using Params = std::vector<std::pair<std::string, std::string>>;

// Twilio's published example of X-Twilio-Signature (its webhook security
// documentation, and the RequestValidator tests of its helper libraries):
// auth token 12345, this URL and these parameters sign to this.
constexpr char kToken[] = "12345";
constexpr char kUrl[] = "https://mycompany.com/myapp.php?foo=1&bar=2";
constexpr char kSignature[] = "RSOYDt4T1cUTdK1PDd93/VVr8B8=";
Params Documented() {
  // Not in name order: the signature sorts them.
  return {{"To", "+18005551212"},
          {"CallSid", "CA1234567890ABCDE"},
          {"Digits", "1234"},
          {"From", "+14158675309"},
          {"Caller", "+14158675309"}};
}

TEST(TwilioSignatureTest, MatchesTwiliosPublishedExample) {
  EXPECT_EQ(TwilioSignature(kToken, kUrl, Documented()), kSignature);
  EXPECT_TRUE(TwilioSignatureValid(kToken, kUrl, Documented(), kSignature));
}

TEST(TwilioSignatureTest, ARepeatedIdenticalPairCountsOnce) {
  // The helper libraries' vector for a parameter sent several times.
  const Params repeated = {{"Sid", "CA123"},
                           {"SidAccount", "AC123"},
                           {"Digits", "5678"},
                           {"Digits", "1234"},
                           {"Digits", "1234"}};
  EXPECT_EQ(TwilioSignature(kToken, kUrl, repeated), "IK+Dwps556ElfBT0I3Rgjkr1wJU=");
}

TEST(TwilioSignatureTest, RefusesAForgedSignatureAndAnyChangedInput) {
  EXPECT_FALSE(TwilioSignatureValid(kToken, kUrl, Documented(), ""));
  EXPECT_FALSE(TwilioSignatureValid(kToken, kUrl, Documented(), "RSOYDt4T1cUTdK1PDd93/VVr8B8"));
  EXPECT_FALSE(TwilioSignatureValid(kToken, kUrl, Documented(),
                                    core::Base64Encode(core::HmacSha1("guess", "anything"))));
  Params changed = Documented();
  changed[2].second = "9999";  // Digits
  EXPECT_FALSE(TwilioSignatureValid(kToken, kUrl, changed, kSignature));
  Params added = Documented();
  added.emplace_back("MessageStatus", "delivered");
  EXPECT_FALSE(TwilioSignatureValid(kToken, kUrl, added, kSignature));
  EXPECT_FALSE(TwilioSignatureValid(kToken, "https://mycompany.com/myapp.php?foo=1&bar=3",
                                    Documented(), kSignature));
  EXPECT_FALSE(TwilioSignatureValid("54321", kUrl, Documented(), kSignature));
}

// A status callback as Twilio posts it for an outbound SMS.
Params StatusCallback(const std::string& status, const std::string& error_code = "") {
  Params params = {{"AccountSid", "AC0123456789abcdef0123456789abcdef"},
                   {"ApiVersion", "2010-04-01"},
                   {"From", "+15017122661"},
                   {"MessageSid", "SM0123456789abcdef0123456789abcdef"},
                   {"MessageStatus", status},
                   {"SmsSid", "SM0123456789abcdef0123456789abcdef"},
                   {"SmsStatus", status},
                   {"To", "+998901234567"}};
  if (!error_code.empty()) params.emplace_back("ErrorCode", error_code);
  return params;
}

TEST(TwilioStatusCallbackTest, ReadsTheMessageItsStatusAndItsErrorCode) {
  const SmsDeliveryReport delivered = ParseTwilioStatusCallback(StatusCallback("delivered"));
  EXPECT_EQ(delivered.provider_message_id, "SM0123456789abcdef0123456789abcdef");
  EXPECT_EQ(delivered.status, "delivered");
  EXPECT_EQ(delivered.state, SmsDeliveryState::kDelivered);
  EXPECT_EQ(delivered.error_code, "");

  const SmsDeliveryReport undelivered =
      ParseTwilioStatusCallback(StatusCallback("undelivered", "30003"));
  EXPECT_EQ(undelivered.state, SmsDeliveryState::kFailed);
  EXPECT_EQ(undelivered.error_code, "30003");
  EXPECT_EQ(ParseTwilioStatusCallback(StatusCallback("failed", "30008")).state,
            SmsDeliveryState::kFailed);
  for (const char* on_its_way : {"queued", "sending", "sent", "accepted"}) {
    EXPECT_EQ(ParseTwilioStatusCallback(StatusCallback(on_its_way)).state,
              SmsDeliveryState::kPending)
        << on_its_way;
  }
}

TEST(TwilioStatusCallbackTest, ReadsAFormAsDecodedFromItsBody) {
  const auto params = core::DecodeFormPairs(
      "MessageSid=SM1&MessageStatus=undelivered&ErrorCode=30005&To=%2B998901234567",
      core::MalformedEscapes::kRefuse);
  ASSERT_TRUE(params);
  const SmsDeliveryReport report = ParseTwilioStatusCallback(*params);
  EXPECT_EQ(report.provider_message_id, "SM1");
  EXPECT_EQ(report.state, SmsDeliveryState::kFailed);
  EXPECT_EQ(report.error_code, "30005");
}

TEST(TwilioStatusCallbackTest, NoMessageNoStatusOrANulIsAnInvalidCallback) {
  const std::vector<Params> bad = {
      {},
      {{"MessageStatus", "delivered"}},
      {{"MessageSid", "SM1"}},
      {{"MessageSid", ""}, {"MessageStatus", "delivered"}},
      {{"MessageSid", std::string("SM1\0x", 5)}, {"MessageStatus", "delivered"}},
      {{"MessageSid", "SM1"}, {"MessageStatus", std::string("deli\0vered", 10)}},
  };
  for (const Params& params : bad) {
    try {
      (void)ParseTwilioStatusCallback(params);
      ADD_FAILURE() << params.size() << " parameters were accepted";
    } catch (const core::RequestError& e) {
      EXPECT_EQ(e.code(), core::ErrorCode::kInvalidCallback);
    }
  }
}

}  // namespace
}  // namespace chopar::channels::sms
