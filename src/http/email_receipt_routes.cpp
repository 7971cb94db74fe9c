// The email providers' receipt webhooks (docs/api.md "Email receipts").
#include "http/email_receipt_routes.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "channels/email/receipts/mailgun_events.hpp"
#include "channels/email/receipts/postmark_events.hpp"
#include "channels/email/receipts/sendgrid_events.hpp"
#include "channels/email/receipts/sns.hpp"
#include "core/request_error.hpp"
#include "http/message.hpp"
#include "hub/email_receipts.hpp"

namespace chopar::http {
namespace {

namespace receipts = channels::email::receipts;

// What a refused webhook answers; nothing in it was read or recorded.
[[noreturn]] void Refuse(const receipts::ReceiptBatch& batch, std::string_view provider) {
  const std::string why = std::string(provider) + ": " + batch.reason;
  switch (batch.refusal) {
    case receipts::Refusal::kTooLarge:
    case receipts::Refusal::kTooMany:
      throw core::RequestError(core::ErrorCode::kPayloadTooLarge, why);
    case receipts::Refusal::kMalformed:
      throw core::RequestError(core::ErrorCode::kInvalidCallback, why);
    case receipts::Refusal::kUnauthenticated:
    case receipts::Refusal::kStale:
    case receipts::Refusal::kNone:
      break;
  }
  throw core::Unauthorized(why);
}

// The batch of the first secret it verifies under, else the refusal of the
// last one tried.
template <typename Secret, typename Verify>
receipts::ReceiptBatch FirstVerified(const std::vector<Secret>& secrets, Verify verify) {
  receipts::ReceiptBatch batch;
  for (const Secret& secret : secrets) {
    batch = verify(secret);
    if (batch.ok()) break;
  }
  return batch;
}

Response Record(db::Pool& pool, hub::UserService& users, const core::Clock& clock,
                const receipts::ReceiptBatch& batch) {
  std::vector<hub::EmailReceiptEvent> events;
  int ignored = 0;
  for (const receipts::EmailReceipt& r : batch.receipts) {
    if (r.kind == receipts::ReceiptKind::kOther) {
      ++ignored;
      continue;
    }
    events.push_back({.provider = r.provider,
                      .provider_message_id = r.provider_message_id,
                      .status = std::string(receipts::ReceiptKindName(r.kind)),
                      .permanent = r.permanent,
                      .recipient = r.recipient,
                      .detail = r.detail});
  }
  const hub::EmailReceiptsRecorded recorded = hub::RecordEmailReceipts(pool, users, events, clock);
  return JsonResponse(200, {{"recorded", recorded.recorded},
                            {"unmatched", recorded.unmatched},
                            {"ignored", ignored + static_cast<int>(batch.skipped)},
                            {"suppressed", recorded.suppressed},
                            {"unsubscribed", recorded.unsubscribed}});
}

void RequireConfigured(bool configured, std::string_view what) {
  if (!configured) {
    throw core::Unavailable(std::string("email receipts of ") + std::string(what) +
                            " are not configured ([channels.email])");
  }
}

// SNS signing certificates by URL: fetched once a process.
class CertificateCache {
 public:
  std::optional<std::string> Get(const std::string& url, const EmailReceiptSecrets& secrets) {
    {
      const std::lock_guard lock(mutex_);
      if (const auto found = pems_.find(url); found != pems_.end()) return found->second;
    }
    std::optional<std::string> pem = secrets.fetch ? secrets.fetch(url) : std::nullopt;
    if (!pem) return std::nullopt;
    const std::lock_guard lock(mutex_);
    // A handful of certificates in a process's life; bounded all the same.
    if (pems_.size() >= 64) pems_.clear();
    pems_[url] = *pem;
    return pem;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::string> pems_;
};

}  // namespace

void RegisterEmailReceiptRoutes(Router& router, db::Pool& pool, hub::UserService& users,
                                const core::Clock& clock, EmailReceiptSecrets given) {
  auto secrets = std::make_shared<const EmailReceiptSecrets>(std::move(given));
  auto certificates = std::make_shared<CertificateCache>();
  // Parsed once: a key that is not base64 DER stops the start.
  std::vector<std::shared_ptr<const receipts::SendGridVerificationKey>> sendgrid_keys;
  for (const std::string& key : secrets->sendgrid_public_keys) {
    try {
      sendgrid_keys.push_back(std::make_shared<const receipts::SendGridVerificationKey>(key));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("[channels.email] sendgrid_webhook_public_key: ") +
                                  e.what());
    }
  }

  router.Add("POST", "/v1/email/receipts/ses", Auth::kNone,
             [&pool, &users, &clock, secrets, certificates](const Request& request) {
               RequireConfigured(!secrets->ses_topic_arns.empty(), "ses");
               const auto message = receipts::ParseSnsMessage(request.body);
               if (!message) {
                 throw core::RequestError(core::ErrorCode::kInvalidCallback,
                                          "ses: not an Amazon SNS message");
               }
               if (!receipts::SnsCertUrlAllowed(message->signing_cert_url)) {
                 throw core::Unauthorized(
                     "ses: SigningCertURL is not an https URL of an sns.<region>.amazonaws.com "
                     "host");
               }
               const auto pem = certificates->Get(message->signing_cert_url, *secrets);
               if (!pem)
                 throw core::Unavailable("ses: the SNS signing certificate could not be fetched");
               receipts::SnsReceipts batch;
               for (const std::string& arn : secrets->ses_topic_arns) {
                 batch = receipts::VerifiedSesReceipts(request.body, *pem, arn, clock.Now());
                 if (batch.ok()) break;
               }
               if (!batch.ok()) Refuse(batch, "ses");
               if (batch.type == receipts::SnsType::kSubscriptionConfirmation) {
                 if (!secrets->fetch || !secrets->fetch(batch.subscribe_url)) {
                   throw core::Unavailable("ses: the SNS subscription could not be confirmed");
                 }
                 return JsonResponse(200, {{"confirmed", true}});
               }
               if (batch.type == receipts::SnsType::kUnsubscribeConfirmation) {
                 return JsonResponse(200, {{"confirmed", false}});
               }
               return Record(pool, users, clock, batch);
             });

  router.Add("POST", "/v1/email/receipts/sendgrid", Auth::kNone,
             [&pool, &users, &clock, sendgrid_keys](const Request& request) {
               RequireConfigured(!sendgrid_keys.empty(), "sendgrid");
               const std::string timestamp(
                   request.Header("x-twilio-email-event-webhook-timestamp").value_or(""));
               const std::string signature(
                   request.Header("x-twilio-email-event-webhook-signature").value_or(""));
               const auto batch = FirstVerified(sendgrid_keys, [&](const auto& key) {
                 return receipts::VerifiedSendGridReceipts(*key, timestamp, signature, request.body,
                                                           clock.Now());
               });
               if (!batch.ok()) Refuse(batch, "sendgrid");
               return Record(pool, users, clock, batch);
             });

  router.Add("POST", "/v1/email/receipts/mailgun", Auth::kNone,
             [&pool, &users, &clock, secrets](const Request& request) {
               RequireConfigured(!secrets->mailgun_signing_keys.empty(), "mailgun");
               const auto batch =
                   FirstVerified(secrets->mailgun_signing_keys, [&](const std::string& key) {
                     return receipts::VerifiedMailgunReceipts(request.body, key, clock.Now());
                   });
               if (!batch.ok()) Refuse(batch, "mailgun");
               return Record(pool, users, clock, batch);
             });

  router.Add("POST", "/v1/email/receipts/postmark", Auth::kNone,
             [&pool, &users, &clock, secrets](const Request& request) {
               RequireConfigured(!secrets->postmark_credentials.empty(), "postmark");
               const std::string authorization(request.Header("authorization").value_or(""));
               const auto batch =
                   FirstVerified(secrets->postmark_credentials,
                                 [&](const std::pair<std::string, std::string>& c) {
                                   return receipts::VerifiedPostmarkReceipts(
                                       authorization, c.first, c.second, request.body, clock.Now());
                                 });
               if (!batch.ok()) Refuse(batch, "postmark");
               return Record(pool, users, clock, batch);
             });
}

}  // namespace chopar::http
