#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace chopar::net {

// AWS Signature Version 4 (the "Signature Version 4 signing process" of the
// AWS General Reference): what authenticates a request to an AWS API such
// as Amazon SES v2. Written against the published algorithm and checked
// with AWS's published test suite (tests/data/aws-sig-v4-test-suite). Pure.

struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;  // a secret
  // A temporary credential's token: the caller sends it as
  // X-Amz-Security-Token, among the headers it signs.
  std::string session_token;
};

// What a signature is scoped to: "us-east-1" and "ses".
struct AwsScope {
  std::string region;
  std::string service;
};

// The request as it will be sent. Every header given is signed, and must be
// sent with exactly that value: `host` and `x-amz-date` among them.
struct SigV4Request {
  std::string method;  // "POST"
  std::string path;    // "/v2/email/outbound-emails": not percent-encoded
  std::string query;   // after '?', as sent ("a=1&b=2"), or ""
  std::vector<std::pair<std::string, std::string>> headers;  // names in any case
  std::string body;
  // Services other than S3 normalise the path ("/a/./b/../c" → "/a/c",
  // repeated slashes as one) before signing.
  bool normalize_path = true;
};

struct SigV4Signature {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signed_headers;  // "host;x-amz-date"
  std::string authorization;   // the Authorization header's value
};

// X-Amz-Date's value for `time`: "20150830T123600Z" (UTC).
std::string AmzDate(std::chrono::system_clock::time_point time);

// Signs `request` at `amz_date` (its X-Amz-Date, as AmzDate writes it).
// Throws std::invalid_argument for an amz_date of another form.
SigV4Signature SignV4(const SigV4Request& request, const AwsCredentials& credentials,
                      const AwsScope& scope, std::string_view amz_date);

}  // namespace chopar::net
