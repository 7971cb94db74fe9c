#include "channels/email/receipts/sns.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <climits>
#include <nlohmann/json.hpp>

#include "channels/email/receipts/json_fields.hpp"
#include "channels/email/receipts/ses_events.hpp"
#include "channels/email/receipts/signature_check.hpp"
#include "channels/email/receipts/signed_time.hpp"
#include "core/c_handle.hpp"
#include "core/encoding.hpp"
#include "core/json.hpp"
#include "core/time_format.hpp"
#include "net/address_policy.hpp"

namespace chopar::channels::email::receipts {
namespace {

using Bio = core::CHandle<BIO, BIO_free>;
using Certificate = core::CHandle<X509, X509_free>;

constexpr std::string_view kHttps = "https://";

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// "sns.<region>.amazonaws.com" or "….amazonaws.com.cn", the region a
// label of lowercase letters, digits and inner '-' ("us-east-1").
bool IsSnsHost(std::string_view host) {
  if (!host.starts_with("sns.")) return false;
  host.remove_prefix(4);
  if (host.ends_with(".amazonaws.com.cn")) {
    host.remove_suffix(17);
  } else if (host.ends_with(".amazonaws.com")) {
    host.remove_suffix(14);
  } else {
    return false;
  }
  if (host.empty() || host.size() > 32 || host.front() == '-' || host.back() == '-') return false;
  for (const char c : host) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

// The host of an "https://host/…" URL, where the host ends at the first
// '/', '?' or '#'; nullopt for another scheme or no path after the host.
std::optional<std::string_view> HttpsHost(std::string_view url) {
  if (!url.starts_with(kHttps)) return std::nullopt;
  url.remove_prefix(kHttps.size());
  const auto end = url.find_first_of("/?#");
  if (end == std::string_view::npos || url[end] != '/') return std::nullopt;
  return url.substr(0, end);
}

// A URL on an SNS host that libcurl, which will fetch it, reads the same
// way: a userinfo or port trick the grammar above missed would show here.
bool OnSnsHost(std::string_view url) {
  const auto host = HttpsHost(url);
  if (!host || !IsSnsHost(*host)) return false;
  const auto curl_host = net::UrlHost(url);
  return curl_host && *curl_host == *host;
}

bool IsPathChar(char c) {
  return IsLowerAlnum(c) || (c >= 'A' && c <= 'Z') || c == '.' || c == '_' || c == '-' || c == '/';
}

std::optional<SnsType> TypeNamed(std::string_view name) {
  if (name == "Notification") return SnsType::kNotification;
  if (name == "SubscriptionConfirmation") return SnsType::kSubscriptionConfirmation;
  if (name == "UnsubscribeConfirmation") return SnsType::kUnsubscribeConfirmation;
  return std::nullopt;
}

std::string_view TypeName(SnsType type) {
  switch (type) {
    case SnsType::kNotification:
      return "Notification";
    case SnsType::kSubscriptionConfirmation:
      return "SubscriptionConfirmation";
    case SnsType::kUnsubscribeConfirmation:
      return "UnsubscribeConfirmation";
  }
  return "";
}

// "Name\nvalue\n": one pair of the string to sign.
std::string Pair(std::string_view name, std::string_view value) {
  std::string pair;
  pair.reserve(name.size() + value.size() + 2);
  pair.append(name).append("\n").append(value).append("\n");
  return pair;
}

SnsReceipts Refuse(ReceiptBatch refused) {
  SnsReceipts result;
  static_cast<ReceiptBatch&>(result) = std::move(refused);
  return result;
}

SnsReceipts Refuse(Refusal refusal, std::string reason) {
  return Refuse(ReceiptBatch::Refused(refusal, std::move(reason)));
}

}  // namespace

std::optional<SnsMessage> ParseSnsMessage(std::string_view body) {
  if (body.size() > kMaxReceiptBodyBytes) return std::nullopt;
  const nlohmann::json json = core::ParseJsonOrDiscarded(body);
  const auto type = TypeNamed(Text(json, "Type"));
  if (!type) return std::nullopt;
  bool complete = true;
  // The string member `name`; a missing or other member leaves the message incomplete.
  auto required = [&](const char* name) {
    const nlohmann::json* value = Member(json, name);
    if (value == nullptr || !value->is_string()) {
      complete = false;
      return std::string();
    }
    return value->get<std::string>();
  };
  SnsMessage m;
  m.type = *type;
  m.message_id = required("MessageId");
  m.topic_arn = required("TopicArn");
  m.message = required("Message");
  m.timestamp = required("Timestamp");
  m.signature_version = required("SignatureVersion");
  m.signature = required("Signature");
  m.signing_cert_url = required("SigningCertURL");
  if (m.type == SnsType::kNotification) {
    // A null Subject is no Subject: AWS's own validators leave it out too.
    if (const nlohmann::json* subject = Member(json, "Subject");
        subject != nullptr && subject->is_string()) {
      m.subject = subject->get<std::string>();
    }
  } else {
    m.token = required("Token");
    m.subscribe_url = required("SubscribeURL");
  }
  if (!complete) return std::nullopt;
  return m;
}

bool SnsCertUrlAllowed(std::string_view url) {
  if (!OnSnsHost(url)) return false;
  const std::string_view path = url.substr(url.find('/', kHttps.size()));
  return path.size() > 5 && path.ends_with(".pem") && path.find("..") == std::string_view::npos &&
         std::all_of(path.begin(), path.end(), IsPathChar);
}

std::string SnsStringToSign(const SnsMessage& m) {
  const bool notification = m.type == SnsType::kNotification;
  std::string out = Pair("Message", m.message) + Pair("MessageId", m.message_id);
  if (notification && m.subject) out += Pair("Subject", *m.subject);
  if (!notification) out += Pair("SubscribeURL", m.subscribe_url);
  out += Pair("Timestamp", m.timestamp);
  if (!notification) out += Pair("Token", m.token);
  return out + Pair("TopicArn", m.topic_arn) + Pair("Type", TypeName(m.type));
}

bool VerifySnsSignature(const SnsMessage& message, std::string_view certificate_pem) {
  const EVP_MD* md = message.signature_version == "1"   ? EVP_sha1()
                     : message.signature_version == "2" ? EVP_sha256()
                                                        : nullptr;
  if (md == nullptr || certificate_pem.empty() || certificate_pem.size() > INT_MAX) return false;
  const auto signature = core::Base64Decode(message.signature);
  if (!signature || signature->empty()) return false;
  const Bio bio(BIO_new_mem_buf(certificate_pem.data(), static_cast<int>(certificate_pem.size())));
  const Certificate certificate(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)
                                    : nullptr);
  EVP_PKEY* key = certificate ? X509_get0_pubkey(certificate.get()) : nullptr;
  if (key == nullptr || EVP_PKEY_is_a(key, "RSA") != 1) {
    ERR_clear_error();
    return false;
  }
  return SignatureHolds(key, md, SnsStringToSign(message), *signature);
}

bool SnsTimestampFresh(const SnsMessage& message, core::TimePoint now,
                       std::chrono::seconds max_age) {
  const auto published = core::ParseRfc3339(message.timestamp);
  return published && WithinWindow(*published, now, max_age, kSnsMaxAhead);
}

SnsReceipts VerifiedSesReceipts(std::string_view body, std::string_view certificate_pem,
                                std::string_view topic_arn, core::TimePoint now) {
  if (body.size() > kMaxReceiptBodyBytes) {
    return Refuse(ReceiptBatch::TooLarge("the SNS message"));
  }
  const auto message = ParseSnsMessage(body);
  if (!message) return Refuse(Refusal::kMalformed, "the body is not a signed SNS message");
  if (!SnsCertUrlAllowed(message->signing_cert_url)) {
    return Refuse(Refusal::kUnauthenticated, "SigningCertURL is not an Amazon SNS certificate");
  }
  if (topic_arn.empty() || message->topic_arn != topic_arn) {
    return Refuse(Refusal::kUnauthenticated, "the message is from another topic");
  }
  if (!VerifySnsSignature(*message, certificate_pem)) {
    return Refuse(Refusal::kUnauthenticated, "the SNS signature does not hold");
  }
  if (!SnsTimestampFresh(*message, now)) {
    return Refuse(Refusal::kStale, "the SNS Timestamp is outside the replay window");
  }

  SnsReceipts result;
  if (message->type == SnsType::kNotification) {
    // Parsed by SnsTimestampFresh just now: the fallback for an event without a time.
    const core::TimePoint published = core::ParseRfc3339(message->timestamp).value_or(now);
    static_cast<ReceiptBatch&>(result) = ParseSesEvent(message->message, published);
  } else if (message->type == SnsType::kSubscriptionConfirmation) {
    if (!OnSnsHost(message->subscribe_url)) {
      return Refuse(Refusal::kMalformed, "SubscribeURL is not on an Amazon SNS host");
    }
    result.subscribe_url = message->subscribe_url;
  }
  result.type = message->type;
  result.replay_key = message->message_id;
  return result;
}

}  // namespace chopar::channels::email::receipts
