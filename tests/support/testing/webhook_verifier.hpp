#pragma once

#include <map>
#include <string>

namespace chopar::testing {

// Checks a Standard Webhooks request as a receiver would, with code of its
// own (OpenSSL directly, nothing of chopar's): the secret "whsec_<base64>"
// decoded, HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<body>",
// base64, and one of the space-separated "v1,<signature>" entries of
// webhook-signature equal to it. `headers` has lower-case names. Returns ""
// when it verifies, else what is wrong.
std::string WebhookSignatureProblem(const std::string& secret,
                                    const std::map<std::string, std::string>& headers,
                                    const std::string& body);

}  // namespace chopar::testing
