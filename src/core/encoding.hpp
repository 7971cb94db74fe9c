#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace chopar::core {

// base64url without padding (RFC 4648 §5), the form of tokens and Web Push keys.
std::string Base64UrlEncode(std::string_view bytes);
// Accepts input with or without padding; nullopt for characters outside the alphabet.
std::optional<std::string> Base64UrlDecode(std::string_view text);

// Decodes %XX escapes; with `plus_is_space` (query strings, HTML forms) a
// '+' becomes a space. nullopt for a '%' not followed by two hex digits.
std::optional<std::string> PercentDecode(std::string_view text, bool plus_is_space);

// What DecodeFormPairs does with a name or value whose %XX escapes do not
// decode.
enum class MalformedEscapes {
  kRefuse,      // the whole text is refused (nullopt): what a client sent us
  kSkipPair,    // that pair is left out: a browser's form, never malformed
  kKeepAsSent,  // kept undecoded: a provider's callback, read as it comes
};
// The name=value pairs of application/x-www-form-urlencoded text (a query
// string, an HTML form, a provider's callback), in order: split on '&',
// empty pieces skipped, a piece without '=' a name with the empty value,
// '+' a space and %XX a byte. The one decoder of such text; each caller
// states its policy for a malformed escape.
std::optional<std::vector<std::pair<std::string, std::string>>> DecodeFormPairs(
    std::string_view text, MalformedEscapes malformed);

// `text` with every byte but RFC 3986's unreserved characters (letters,
// digits, '-', '.', '_', '~') as %XX: safe as a query value, a form value
// or a path segment.
std::string PercentEncode(std::string_view text);

// Standard base64 with padding (RFC 4648 §4).
std::string Base64Encode(std::string_view bytes);
// Accepts input with or without padding; nullopt for characters outside the alphabet.
std::optional<std::string> Base64Decode(std::string_view text);

// SHA-256 of `bytes`, raw 32 bytes.
std::string Sha256(std::string_view bytes);

// HMAC-SHA256 of `message` under `key`, raw 32 bytes.
std::string HmacSha256(std::string_view key, std::string_view message);
// HMAC-SHA1 of `message` under `key`, raw 20 bytes: only for a provider
// that signs with it (Twilio's X-Twilio-Signature).
std::string HmacSha1(std::string_view key, std::string_view message);

// Comparison whose time does not depend on where the inputs differ.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

// `bytes` cryptographically random bytes (OpenSSL RAND_bytes); throws on failure.
std::string RandomBytes(std::size_t bytes);

// Lowercase hex of `bytes`.
std::string HexEncode(std::string_view bytes);

// & < > " ' as the HTML entities &amp; &lt; &gt; &quot; &#39;: safe in HTML
// text and attribute values, and only entities Telegram's HTML mode accepts.
std::string HtmlEscape(std::string_view text);

}  // namespace chopar::core
