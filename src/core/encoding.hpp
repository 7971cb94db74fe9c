#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace chopar::core {

// base64url without padding (RFC 4648 §5), the form of tokens and Web Push keys.
std::string Base64UrlEncode(std::string_view bytes);
// Accepts input with or without padding; nullopt for characters outside the alphabet.
std::optional<std::string> Base64UrlDecode(std::string_view text);

// Decodes %XX escapes; with `plus_is_space` (query strings, HTML forms) a
// '+' becomes a space. nullopt for a '%' not followed by two hex digits.
std::optional<std::string> PercentDecode(std::string_view text, bool plus_is_space);

// Standard base64 with padding (RFC 4648 §4).
std::string Base64Encode(std::string_view bytes);
// Accepts input with or without padding; nullopt for characters outside the alphabet.
std::optional<std::string> Base64Decode(std::string_view text);

// HMAC-SHA256 of `message` under `key`, raw 32 bytes.
std::string HmacSha256(std::string_view key, std::string_view message);

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
