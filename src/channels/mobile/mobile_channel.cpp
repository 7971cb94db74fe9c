#include "channels/mobile/mobile_channel.hpp"

#include <stdexcept>

#include "channels/mobile/apns_message.hpp"
#include "channels/mobile/fcm_message.hpp"
#include "channels/outcome_unknown.hpp"
#include "channels/render.hpp"

namespace chopar::channels::mobile {
namespace {

// What a notification shows on a phone: the title and the body, cut well
// inside both services' limits; the data an app gets with it.
constexpr std::size_t kMaxTitle = 200;
constexpr std::size_t kMaxBody = 2000;

enum class Service { kFcm, kApns };

// One request of a batch: which message, which device, through which service.
struct DeviceSend {
  std::size_t message = 0;
  std::int64_t device_id = 0;
  Service service = Service::kFcm;
  std::string credential;  // the access token or provider token it carries
};

// A member of the notification's data of the given type, if present.
std::optional<std::string> DataText(const Message& m, const char* name) {
  if (!m.data.is_object()) return std::nullopt;
  const auto it = m.data.find(name);
  if (it == m.data.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

PushContent ContentOf(const Message& m, std::string_view public_url) {
  PushContent content;
  content.title = CutCodePoints(m.title, kMaxTitle);
  content.body = CutCodePoints(m.body, kMaxBody);
  // The app gets the notification's string data, its id and its link.
  if (m.data.is_object()) {
    for (const auto& [key, value] : m.data.items()) {
      if (value.is_string()) content.data.emplace(key, value.get<std::string>());
    }
  }
  content.data["notification_id"] = std::to_string(m.notification_id);
  content.data["type"] = m.type;
  if (const auto link = AbsoluteLink(m, public_url)) content.data["link"] = *link;
  if (m.data.is_object() && m.data.contains("badge") && m.data["badge"].is_number_integer()) {
    const auto badge = m.data["badge"].get<long long>();
    if (badge >= 0 && badge <= 99999) content.badge = static_cast<int>(badge);
  }
  content.sound = DataText(m, "sound");
  if (const auto image = DataText(m, "image"); image && image->starts_with("https://")) {
    content.image = image;
  }
  content.collapse_key = m.dedup_key;
  return content;
}

// The outcome of one message from those of its devices.
struct Tally {
  std::optional<std::string> sent_id;
  bool sent = false;
  bool unknown = false;
  std::optional<Outcome> retry;  // the longest wait asked for
  std::vector<std::int64_t> gone;
  std::string reason;  // the last failure, for last_error
  std::size_t devices = 0;
};

Outcome Decide(Tally& t) {
  Outcome outcome;
  if (t.sent) {
    outcome = Outcome::Sent(t.sent_id);
  } else if (t.unknown) {
    outcome = OutcomeUnknown("mobile", t.reason);
  } else if (t.retry) {
    outcome = std::move(*t.retry);
  } else if (!t.gone.empty() && t.gone.size() == t.devices) {
    outcome = Outcome::AddressGone(t.reason);
  } else {
    outcome = Outcome::Permanent(t.reason.empty() ? "mobile: no device could be sent to"
                                                  : t.reason);
  }
  outcome.gone_devices = std::move(t.gone);
  return outcome;
}

void Count(Tally& t, const PushOutcome& push) {
  switch (push.kind) {
    case PushOutcomeKind::kSent:
      if (!t.sent) t.sent_id = push.message_id;
      t.sent = true;
      return;
    case PushOutcomeKind::kDeviceGone:
      t.reason = push.detail;
      return;
    case PushOutcomeKind::kRetry:
    case PushOutcomeKind::kRetryWithNewToken:
      t.reason = push.detail;
      if (!t.retry || (push.retry_after && (!t.retry->retry_after ||
                                            *push.retry_after > *t.retry->retry_after))) {
        t.retry = Outcome::Retry(push.detail, push.retry_after);
      }
      return;
    case PushOutcomeKind::kPermanent:
      t.reason = push.detail;
      return;
  }
}

}  // namespace

MobileChannel::MobileChannel(MobileSettings settings, std::unique_ptr<FcmTokenSource> fcm,
                             std::unique_ptr<ApnsTokenCache> apns, net::HttpClient& http,
                             const core::Clock& clock)
    : settings_(std::move(settings)),
      fcm_(std::move(fcm)),
      apns_(std::move(apns)),
      http_(http),
      clock_(clock) {}

std::vector<Outcome> MobileChannel::Send(std::span<const Message> messages) {
  std::vector<Tally> tallies(messages.size());
  std::vector<net::HttpRequest> requests;
  std::vector<DeviceSend> sends;

  // The credentials, once for the batch: a failure to get one is a retry of
  // that service's devices, nothing having been sent.
  std::optional<std::string> access_token;
  std::optional<PushOutcome> fcm_unavailable;
  std::optional<std::string> provider_token;
  const auto FcmToken = [&]() -> std::optional<std::string> {
    if (!access_token && !fcm_unavailable) {
      const FcmTokenResult got = fcm_->Get();
      if (got.ok()) {
        access_token = got.access_token;
      } else {
        fcm_unavailable = PushOutcome{PushOutcomeKind::kRetry,
                                      "mobile: no FCM access token: " + got.error,
                                      got.retry_after, std::nullopt};
      }
    }
    return access_token;
  };

  const auto now = clock_.Now();
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const Message& m = messages[i];
    Tally& tally = tallies[i];
    tally.devices = m.device_targets.size();
    const PushContent content = ContentOf(m, settings_.public_url);
    for (const DeviceTarget& device : m.device_targets) {
      const bool to_apns = device.platform == "ios" && apns_ && IsApnsDeviceToken(device.token);
      if (to_apns) {
        if (!provider_token) provider_token = apns_->Token();
        ApnsOptions options;
        options.topic = settings_.apns_topic;
        options.critical = m.critical;
        options.dedup_key = m.dedup_key;
        // 0: one attempt, not stored (APNs' own meaning of 0).
        options.expiration = settings_.time_to_live.count() == 0
                                 ? 0
                                 : std::chrono::duration_cast<std::chrono::seconds>(
                                       (now + settings_.time_to_live).time_since_epoch())
                                       .count();
        try {
          net::HttpRequest request = BuildApnsRequest(settings_.apns_url, device.token, content,
                                                      options, *provider_token);
          request.ca_file = settings_.apns_ca_file;
          request.timeout = settings_.timeout;
          AddDeliveryHeaders(request.headers, m.delivery_id);
          requests.push_back(std::move(request));
          sends.push_back({i, device.device_id, Service::kApns, *provider_token});
        } catch (const std::invalid_argument& e) {
          Count(tally, {PushOutcomeKind::kPermanent, std::string("mobile: ") + e.what(),
                        std::nullopt, std::nullopt});
        }
        continue;
      }
      if (!fcm_) {
        Count(tally, {PushOutcomeKind::kPermanent,
                      "mobile: no push service is configured for a " + device.platform +
                          " device ([channels.mobile] fcm_service_account)",
                      std::nullopt, std::nullopt});
        continue;
      }
      const auto token = FcmToken();
      if (!token) {
        Count(tally, *fcm_unavailable);
        continue;
      }
      net::HttpRequest request;
      request.url = FcmSendUrl(settings_.fcm_url, fcm_->project_id());
      request.headers = {"Content-Type: application/json", "Authorization: Bearer " + *token};
      AddDeliveryHeaders(request.headers, m.delivery_id);
      request.body = FcmSendBody(device.token, content);
      request.timeout = settings_.timeout;
      requests.push_back(std::move(request));
      sends.push_back({i, device.device_id, Service::kFcm, *token});
    }
  }

  const std::vector<net::HttpResponse> responses = http_.PerformAll(requests);
  const auto answered_at = clock_.Now();
  for (std::size_t j = 0; j < responses.size(); ++j) {
    const DeviceSend& send = sends[j];
    Tally& tally = tallies[send.message];
    const bool apns = send.service == Service::kApns;
    if (auto unanswered = UnansweredHttpOutcome(responses[j], apns ? "apns" : "fcm")) {
      if (unanswered->kind == OutcomeKind::kUnknown) {
        tally.unknown = true;
        tally.reason = unanswered->detail;
      } else {
        Count(tally, {PushOutcomeKind::kRetry, unanswered->detail, std::nullopt, std::nullopt});
      }
      continue;
    }
    const PushOutcome push = apns ? ClassifyApnsResponse(responses[j], answered_at)
                                  : ClassifyFcmResponse(responses[j], answered_at);
    if (push.kind == PushOutcomeKind::kRetryWithNewToken) {
      if (apns) {
        apns_->Invalidate(send.credential);
      } else {
        fcm_->Invalidate(send.credential);
      }
    }
    if (push.kind == PushOutcomeKind::kDeviceGone) tally.gone.push_back(send.device_id);
    Count(tally, push);
  }

  std::vector<Outcome> outcomes;
  outcomes.reserve(messages.size());
  for (Tally& tally : tallies) outcomes.push_back(Decide(tally));
  return outcomes;
}

}  // namespace chopar::channels::mobile
