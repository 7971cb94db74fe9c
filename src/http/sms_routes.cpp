// Delivery reports of the SMS gateways.
#include "http/sms_routes.hpp"

#include "channels/sms/eskiz_callback.hpp"
#include "channels/sms/playmobile_report.hpp"
#include "channels/sms/sms_report.hpp"
#include "channels/sms/twilio_callback.hpp"
#include "core/encoding.hpp"
#include "core/request_error.hpp"
#include "http/message.hpp"

namespace chopar::http {
namespace {

// Each report is a statement: a request is bounded as WhatsApp's are.
constexpr std::size_t kMaxReportsPerRequest = 1000;

void CheckPathSecret(const Request& request, const std::string& secret) {
  if (!core::ConstantTimeEquals(request.String("secret"), secret)) {
    throw core::NotFound("no such route");
  }
}

struct EskizCallback {
  db::Pool& pool;
  const core::Clock& clock;
  std::string secret;
  Response operator()(const Request& request) const {
    CheckPathSecret(request, secret);
    const auto result = channels::sms::RecordEskizCallback(pool, request.body, clock);
    return JsonResponse(200, {{"recorded", result.changed}});
  }
};

struct PlaymobileReport {
  db::Pool& pool;
  const core::Clock& clock;
  std::string secret;
  Response operator()(const Request& request) const {
    CheckPathSecret(request, secret);
    const auto reports = channels::sms::ParsePlaymobileReports(request.body);
    if (reports.size() > kMaxReportsPerRequest) {
      throw core::InvalidField(
          "messages", "at most " + std::to_string(kMaxReportsPerRequest) + " reports a request");
    }
    int recorded = 0;
    for (const auto& report : reports) {
      if (channels::sms::RecordSmsReport(pool, report, clock).changed) ++recorded;
    }
    return JsonResponse(200, {{"recorded", recorded}});
  }
};

struct TwilioStatus {
  db::Pool& pool;
  const core::Clock& clock;
  std::vector<std::string> auth_tokens;
  std::string url;
  Response operator()(const Request& request) const {
    if (auth_tokens.empty()) {
      throw core::Unavailable("Twilio is not configured ([channels.sms] provider twilio)");
    }
    const auto params = core::DecodeFormPairs(request.body, core::MalformedEscapes::kKeepAsSent)
                            .value_or(std::vector<std::pair<std::string, std::string>>{});
    const std::string signature(request.Header("x-twilio-signature").value_or(""));
    bool valid = false;
    for (const std::string& token : auth_tokens) {
      valid = valid || channels::sms::TwilioSignatureValid(token, url, params, signature);
    }
    if (!valid) {
      throw core::Unauthorized(
          "X-Twilio-Signature does not match this request under any "
          "configured Twilio auth token");
    }
    const auto report = channels::sms::ParseTwilioStatusCallback(params);
    const auto result = channels::sms::RecordSmsReport(pool, report, clock);
    return JsonResponse(200, {{"recorded", result.changed}});
  }
};

}  // namespace

void RegisterSmsRoutes(Router& router, db::Pool& pool, const core::Clock& clock,
                       SmsReportSecrets secrets) {
  router.Add("POST", "/v1/sms/eskiz/callback/{secret:str}", Auth::kNone,
             EskizCallback{pool, clock, secrets.callback_secret});
  router.Add("POST", "/v1/sms/playmobile/report/{secret:str}", Auth::kNone,
             PlaymobileReport{pool, clock, secrets.callback_secret});
  router.Add("POST", std::string(channels::sms::kTwilioStatusPath), Auth::kNone,
             TwilioStatus{pool, clock, std::move(secrets.twilio_auth_tokens),
                          secrets.public_url + std::string(channels::sms::kTwilioStatusPath)});
}

}  // namespace chopar::http
