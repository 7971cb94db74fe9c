#pragma once

#include <string>
#include <string_view>

namespace chopar::core {

// THE redaction of credentials from text that leaves the process or is
// stored for people to read: log lines, stored errors (last_error columns),
// and error texts in HTTP answers. Everything else in `text` is kept as it
// is, so an error stays useful ("connect to nats://***@10.0.0.5:4222: No
// server available").
//
// Replaced with "***":
//   - the user info of every URL ("scheme://user:password@host…" →
//     "scheme://***@host…"), whatever the scheme (http, nats, smtp,
//     postgresql, …); a password containing '@' is covered up to the last '@'
//     of the authority;
//   - the value of a credential-like query parameter of a URL: a name that
//     is, or ends with, key, sig, auth, code, pass or pwd, or that contains
//     token, secret, password, passwd, signature or credential, in any case
//     (token, access_token, api_key, X-Amz-Signature, client_secret, …);
//   - a Telegram bot token wherever it appears ("…/bot123456:AAE…/sendMessage"
//     → "…/bot***/sendMessage"; digits, ':', then 30 or more of
//     [A-Za-z0-9_-]);
//   - the value of a libpq keyword/value `password=` ("host=db
//     password=s3cr3t" → "host=db password=***"; a quoted value as a whole).
// Ordinary text without such shapes comes back unchanged. Pure and
// thread-safe.
std::string RedactSecrets(std::string_view text);

}  // namespace chopar::core
