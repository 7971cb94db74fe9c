#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "channels/render.hpp"
#include "core/clock.hpp"

namespace chopar::channels::email {

// The Internet Message Format pieces of an outgoing email (RFC 5322, MIME
// RFC 2045-2047). Pure functions, thread-safe; every line they produce ends
// in CRLF and stays within 998 octets (headers are folded at 78 where they
// can be).

// An address with an optional display name.
struct Mailbox {
  std::string display_name;  // UTF-8, may be empty
  std::string address;       // local@domain
};

// Parses "Display Name <local@domain>", "\"Quoted\" <local@domain>" or a bare
// "local@domain". nullopt when there is no plausible address: one '@', a
// non-empty local part and domain, no whitespace, control characters or
// any of <>()[],;:\" in the address.
std::optional<Mailbox> ParseMailbox(std::string_view text);

// Whether `address` is usable in MAIL FROM / RCPT TO and a header as it is
// (same rules as ParseMailbox applies to the address part).
bool IsPlainAddress(std::string_view address);

// A header value for unstructured text (Subject): ASCII text is folded at
// spaces; anything else becomes RFC 2047 encoded-words "=?UTF-8?B?...?="
// (each at most 75 characters, never splitting a UTF-8 sequence), one per
// folded line. CR, LF and other control characters become spaces, so a value
// can never inject a header. `name_length` is the length of "Name: " before
// the value on the first line.
std::string EncodeUnstructured(std::string_view utf8, std::size_t name_length);

// "Name <local@domain>" with the name as an atom sequence, a quoted string or
// encoded-words, as it needs; the bare address when there is no name.
std::string FormatMailbox(const Mailbox& mailbox);

// Quoted-printable (RFC 2045 §6.7) of UTF-8 text: line breaks (LF or CRLF)
// become CRLF, lines are soft-broken at 76 characters, trailing spaces and
// a leading '.' are encoded.
std::string EncodeQuotedPrintable(std::string_view text);

// RFC 5322 date-time in UTC, e.g. "Tue, 03 Jun 2025 10:00:00 +0000".
std::string FormatRfc5322Date(core::TimePoint time);

// "<delivery_id.random-hex@domain-of-from>" (random: 12 bytes from OpenSSL).
std::string MakeMessageId(std::int64_t delivery_id, std::string_view from_address);

struct EmailEnvelope {
  Mailbox from;
  std::string to;          // a plain address
  std::string message_id;  // with the angle brackets
  core::TimePoint date;
  // Also advertise RFC 8058 one-click unsubscribe (List-Unsubscribe-Post):
  // only when the unsubscribe URL accepts that POST.
  bool one_click_unsubscribe = false;
};

// The whole message: From, To, Subject, Date, Message-ID, MIME-Version,
// Auto-Submitted, List-Unsubscribe (+ List-Unsubscribe-Post), and a
// multipart/alternative body with the text/plain and text/html parts of
// `content` (UTF-8, quoted-printable). `boundary` must not occur in the
// parts; MakeBoundary() gives one that cannot (quoted-printable never
// produces "=_").
std::string BuildMimeMessage(const EmailEnvelope& envelope, const EmailContent& content, std::string_view boundary);
std::string MakeBoundary();

}  // namespace chopar::channels::email
