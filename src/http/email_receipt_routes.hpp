#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/clock.hpp"
#include "db/pool.hpp"
#include "http/router.hpp"
#include "hub/user_service.hpp"

namespace chopar::http {

// What the email providers' receipt webhooks are checked with, from every
// email provider configured ([channels.email] and each entry of
// [[channels.email.providers]]). A provider with none answers 503.
struct EmailReceiptSecrets {
  std::vector<std::string> ses_topic_arns;        // ses_sns_topic_arn
  std::vector<std::string> sendgrid_public_keys;  // sendgrid_webhook_public_key (base64 DER)
  std::vector<std::string> mailgun_signing_keys;  // mailgun_webhook_signing_key
  // postmark_webhook_username and postmark_webhook_password.
  std::vector<std::pair<std::string, std::string>> postmark_credentials;
  // GETs an https URL of Amazon SNS (a signing certificate, a subscription's
  // SubscribeURL) and returns its body, or nullopt when it did not answer
  // 200. Only called with URLs that SnsCertUrlAllowed or the verified
  // message named.
  std::function<std::optional<std::string>(const std::string& url)> fetch;
};

// The email providers' signed receipt webhooks (docs/api.md "Email
// receipts"), each verified before anything in it is read:
//   POST /v1/email/receipts/ses        Amazon SNS (its message signature,
//                                      the certificate from an sns.<region>
//                                      .amazonaws.com host, the topic ARN)
//   POST /v1/email/receipts/sendgrid   SendGrid's Event Webhook (ECDSA)
//   POST /v1/email/receipts/mailgun    Mailgun (HMAC-SHA256 of timestamp+token)
//   POST /v1/email/receipts/postmark   Postmark (basic auth)
// 401 for a signature that does not hold or a time outside the window, 400
// for a body that does not parse, 503 when that provider is not
// configured; then hub::RecordEmailReceipts. All must outlive the router.
void RegisterEmailReceiptRoutes(Router& router, db::Pool& pool, hub::UserService& users,
                                const core::Clock& clock, EmailReceiptSecrets secrets);

}  // namespace chopar::http
