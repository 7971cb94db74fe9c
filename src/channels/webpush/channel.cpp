#include "channels/webpush/channel.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <utility>

#include "channels/outcome_unknown.hpp"
#include "channels/render.hpp"
#include "channels/webpush/crypto.hpp"
#include "core/encoding.hpp"

namespace chopar::channels::webpush {
namespace {

enum class TargetKind { kSent, kGone, kRetry, kPermanent, kUnknown };

struct TargetResult {
  TargetKind kind = TargetKind::kPermanent;
  std::string detail;
  std::optional<std::chrono::seconds> retry_after;
  std::optional<std::string> location;
};

// Drops at least `excess` bytes (and room for "…") from the end of `text`,
// cutting on a UTF-8 code point boundary.
std::string Shorten(const std::string& text, std::size_t excess) {
  constexpr std::string_view kEllipsis = "…";
  const std::size_t drop = excess + kEllipsis.size();
  if (drop >= text.size()) return "";
  std::size_t end = text.size() - drop;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end) + std::string(kEllipsis);
}

std::string Snippet(std::string_view body) {
  std::string out(body.substr(0, 200));
  std::replace_if(out.begin(), out.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  return out;
}

std::size_t InFlightOf(const WebPushSettings& settings) {
  if (settings.max_in_flight < 1 || settings.max_in_flight > kMaxPushInFlight)
    throw std::invalid_argument("max_in_flight must be from 1 to " +
                                std::to_string(kMaxPushInFlight));
  return static_cast<std::size_t>(settings.max_in_flight);
}

TargetResult Permanent(std::string detail) { return {TargetKind::kPermanent, std::move(detail), {}, {}}; }

// `now` is when the response came: an HTTP-date Retry-After counts from it.
TargetResult Classify(const net::HttpResponse& response, core::TimePoint now) {
  // Where the endpoint leads will not change by trying again.
  if (response.address_refused && response.error != CURLE_OK)
    return Permanent(response.error_message);
  if (auto unanswered = UnansweredHttpOutcome(response, "webpush")) {
    const bool unknown = unanswered->kind == OutcomeKind::kUnknown;
    // An unknown one keeps only the error: Combine words the whole outcome.
    return {unknown ? TargetKind::kUnknown : TargetKind::kRetry,
            unknown ? response.error_message : std::move(unanswered->detail), {}, {}};
  }
  const long status = response.status;
  const auto retry_after = [&] {
    const auto value = response.Header("retry-after");
    return value ? net::ParseRetryAfter(*value, now) : std::nullopt;
  };
  if (status >= 200 && status < 300) return {TargetKind::kSent, "", {}, response.Header("location")};
  if (status == 404 || status == 410) {
    return {TargetKind::kGone, "HTTP " + std::to_string(status) + " subscription gone", {}, {}};
  }
  if (status == 413) return Permanent("HTTP 413 payload too large: " + Snippet(response.body));
  if (status == 429) return {TargetKind::kRetry, "HTTP 429 too many requests", retry_after(), {}};
  if (status >= 500 && status < 600) {
    return {TargetKind::kRetry, "HTTP " + std::to_string(status) + ": " + Snippet(response.body), retry_after(), {}};
  }
  return Permanent("HTTP " + std::to_string(status) + ": " + Snippet(response.body));
}

Outcome Combine(const Message& message, const std::vector<TargetResult>& results) {
  if (results.empty()) return Outcome::AddressGone("no push subscriptions");
  std::vector<std::int64_t> gone;
  std::string detail;
  const TargetResult* first_sent = nullptr;
  bool any_retry = false;
  bool any_unknown = false;
  std::optional<std::chrono::seconds> retry_after;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const TargetResult& r = results[i];
    const std::int64_t id = message.push_targets[i].subscription_id;
    switch (r.kind) {
      case TargetKind::kSent:
        if (first_sent == nullptr) first_sent = &r;
        continue;
      case TargetKind::kGone: gone.push_back(id); break;
      case TargetKind::kRetry:
        any_retry = true;
        if (r.retry_after) retry_after = std::max(retry_after.value_or(std::chrono::seconds(0)), *r.retry_after);
        break;
      case TargetKind::kUnknown: any_unknown = true; break;
      case TargetKind::kPermanent: break;
    }
    if (!detail.empty()) detail += "; ";
    detail += "subscription " + std::to_string(id) + ": " + r.detail;
  }

  Outcome outcome;
  if (first_sent != nullptr) {
    outcome = Outcome::Sent(first_sent->location);
  } else if (any_unknown) {
    // A retry would send to that subscription again, which may have it.
    outcome = OutcomeUnknown("webpush", detail);
  } else if (gone.size() == results.size()) {
    outcome = Outcome::AddressGone(detail);
  } else if (any_retry) {
    outcome = Outcome::Retry(detail, retry_after);
  } else {
    outcome = Outcome::Permanent(detail);
  }
  outcome.gone_push_subscriptions = std::move(gone);
  return outcome;
}

}  // namespace

std::string WebPushPlaintext(const Message& message, std::string_view public_url) {
  std::string payload = RenderPushPayload(message, public_url).dump();
  if (payload.size() <= kPushMaxPlaintext) return payload;
  Message shortened = message;
  // JSON escaping can make a cut count for less than its bytes: repeat.
  while (payload.size() > kPushMaxPlaintext && (!shortened.body.empty() || !shortened.title.empty())) {
    const std::size_t excess = payload.size() - kPushMaxPlaintext;
    std::string& field = shortened.body.empty() ? shortened.title : shortened.body;
    field = Shorten(field, excess);
    payload = RenderPushPayload(shortened, public_url).dump();
  }
  return payload;
}

WebPushChannel::WebPushChannel(WebPushSettings settings, net::HttpClient& http,
                               const core::Clock& clock)
    : settings_(std::move(settings)),
      http_(http),
      clock_(clock),
      vapid_(settings_.vapid_public_key, settings_.vapid_private_key, settings_.subject, clock),
      in_flight_(InFlightOf(settings_)) {
  if (settings_.ttl_seconds <= 0) throw std::invalid_argument("ttl_seconds must be positive");
}

std::vector<Outcome> WebPushChannel::Send(std::span<const Message> messages) {
  std::vector<Outcome> outcomes(messages.size());
  SendReporting(messages, [&](std::vector<IndexedOutcome> reported) {
    for (IndexedOutcome& r : reported) outcomes[r.index] = std::move(r.outcome);
  });
  return outcomes;
}

void WebPushChannel::SendReporting(std::span<const Message> messages, const OutcomeReport& report) {
  std::vector<std::vector<TargetResult>> results(messages.size());
  std::vector<std::size_t> unanswered(messages.size(), 0);  // requests still out, per message
  std::vector<net::HttpRequest> requests;
  std::vector<std::pair<std::size_t, std::size_t>> owners;  // (message, target) of each request

  for (std::size_t m = 0; m < messages.size(); ++m) {
    const Message& message = messages[m];
    results[m].resize(message.push_targets.size());
    if (message.push_targets.empty()) continue;
    const std::string plaintext = WebPushPlaintext(message, settings_.public_url);
    for (std::size_t t = 0; t < message.push_targets.size(); ++t) {
      const PushTarget& target = message.push_targets[t];
      const auto origin = UrlOrigin(target.endpoint);
      if (!origin) {
        results[m][t] = Permanent("endpoint is not an absolute https URL");
        continue;
      }
      if (origin->starts_with("http:") && !settings_.allow_http_endpoints) {
        results[m][t] = Permanent("endpoint is not https (allow_http_endpoints is off)");
        continue;
      }
      const auto p256dh = core::Base64UrlDecode(target.p256dh);
      const auto auth = core::Base64UrlDecode(target.auth);
      if (!p256dh || !auth) {
        results[m][t] = Permanent("p256dh or auth is not base64url");
        continue;
      }
      std::string body;
      try {
        body = EncryptPushPayload(plaintext, *p256dh, *auth);
      } catch (const std::invalid_argument& e) {
        results[m][t] = Permanent(std::string("cannot encrypt for this subscription: ") + e.what());
        continue;
      }
      net::HttpRequest request;
      request.method = "POST";
      request.url = target.endpoint;
      request.body = std::move(body);
      request.timeout = settings_.timeout;
      // A subscriber chose this URL: it must not lead into chopar's own
      // network (local push services only in tests, with http allowed).
      request.public_addresses_only = !settings_.allow_http_endpoints;
      request.headers = {
          "TTL: " + std::to_string(settings_.ttl_seconds),
          std::string("Urgency: ") + (message.critical ? "high" : "normal"),
          "Content-Encoding: aes128gcm",
          "Content-Type: application/octet-stream",
          "Authorization: " + vapid_.Authorization(*origin),
          // No "Expect: 100-continue" round trip for bodies over 1 KiB.
          "Expect:",
      };
      AddDeliveryHeaders(request.headers, message.delivery_id);
      requests.push_back(std::move(request));
      owners.emplace_back(m, t);
      ++unanswered[m];
    }
  }

  // Messages with nothing to send are decided before any request goes out.
  std::vector<IndexedOutcome> decided;
  for (std::size_t m = 0; m < messages.size(); ++m) {
    if (unanswered[m] == 0) decided.push_back({m, Combine(messages[m], results[m])});
  }
  if (!decided.empty()) report(std::move(decided));
  if (requests.empty()) return;

  http_.PerformAll(requests, &in_flight_,
                   [&](std::span<const std::size_t> finished,
                       std::span<const net::HttpResponse> responses) {
                     const core::TimePoint now = clock_.Now();
                     std::vector<IndexedOutcome> ended;
                     for (const std::size_t i : finished) {
                       const auto [m, t] = owners[i];
                       results[m][t] = Classify(responses[i], now);
                       if (--unanswered[m] == 0)
                         ended.push_back({m, Combine(messages[m], results[m])});
                     }
                     if (!ended.empty()) report(std::move(ended));
                   });
}

}  // namespace chopar::channels::webpush
