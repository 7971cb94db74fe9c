#pragma once

// What the lexer and the parser need of the source text: UTF-8 sequences,
// and errors placed in it (internal to the library).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace chopar::condition::detail {

// The length (2-4) of the well-formed UTF-8 sequence that starts at
// text[at] (a byte >= 0x80), or 0 when it is not one: a stray continuation
// byte, a truncated sequence, an overlong form, a surrogate or a code point
// above U+10FFFF.
std::size_t Utf8SequenceLength(std::string_view text, std::size_t at);

// The code point of the well-formed sequence of `length` bytes at text[at].
char32_t DecodeUtf8(std::string_view text, std::size_t at, std::size_t length);

// Appends `code_point` (at most U+10FFFF, not a surrogate) as UTF-8.
void AppendUtf8(std::string& out, char32_t code_point);

// "U+00E9": how a character that cannot be quoted is named in a message.
std::string CodePointName(char32_t code_point);

// Throws SyntaxError(problem) at byte `position` of `source`, its column
// counted in code points.
[[noreturn]] void Fail(std::string_view source, std::size_t position, const std::string& problem);

}  // namespace chopar::condition::detail
