#include "condition/lexer.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <system_error>

#include "condition/source_text.hpp"

namespace chopar::condition::detail {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || IsDigit(c); }

int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Token Lexer::Next() {
  while (at_ < source_.size() && (source_[at_] == ' ' || source_[at_] == '\t' ||
                                  source_[at_] == '\n' || source_[at_] == '\r')) {
    ++at_;
  }
  const std::size_t start = at_;
  if (start == source_.size()) return Token{TokenKind::kEnd, start, {}, {}};
  const char c = source_[start];
  const char next = start + 1 < source_.size() ? source_[start + 1] : '\0';
  const auto simple = [&](TokenKind kind, std::size_t length) {
    at_ = start + length;
    return Token{kind, start, source_.substr(start, length), {}};
  };
  if (IsNameStart(c)) {
    std::size_t end = start + 1;
    while (end < source_.size() && IsNameChar(source_[end])) ++end;
    return simple(TokenKind::kName, end - start);
  }
  if (IsDigit(c)) return Number(start);
  switch (c) {
    case '"':
      return String(start);
    case '(':
      return simple(TokenKind::kLeftParen, 1);
    case ')':
      return simple(TokenKind::kRightParen, 1);
    case '[':
      return simple(TokenKind::kLeftBracket, 1);
    case ']':
      return simple(TokenKind::kRightBracket, 1);
    case ',':
      return simple(TokenKind::kComma, 1);
    case '.':
      return simple(TokenKind::kDot, 1);
    case '-':
      return simple(TokenKind::kMinus, 1);
    case '!':
      return next == '=' ? simple(TokenKind::kNotEqual, 2) : simple(TokenKind::kBang, 1);
    case '<':
      return next == '=' ? simple(TokenKind::kLessEqual, 2) : simple(TokenKind::kLess, 1);
    case '>':
      return next == '=' ? simple(TokenKind::kGreaterEqual, 2) : simple(TokenKind::kGreater, 1);
    case '=':
      if (next == '=') return simple(TokenKind::kEqual, 2);
      Fail(source_, start, "'=' is not an operator; compare with '=='");
    case '&':
      if (next == '&') return simple(TokenKind::kAnd, 2);
      Fail(source_, start, "'&' is not an operator; use '&&'");
    case '|':
      if (next == '|') return simple(TokenKind::kOr, 2);
      Fail(source_, start, "'|' is not an operator; use '||'");
    default:
      Unexpected(start);
  }
}

// JSON's numbers without the sign (a minus is the operator): no leading
// zeros, a digit on both sides of '.', an optional exponent.
Token Lexer::Number(std::size_t start) {
  std::size_t end = start;
  const auto digits = [&] {
    while (end < source_.size() && IsDigit(source_[end])) ++end;
  };
  digits();
  if (source_[start] == '0' && end > start + 1) {
    Fail(source_, start, "a number cannot start with 0 followed by digits");
  }
  bool integral = true;
  if (end < source_.size() && source_[end] == '.') {
    ++end;
    if (end == source_.size() || !IsDigit(source_[end]))
      Fail(source_, end, "expected a digit after '.'");
    digits();
    integral = false;
  }
  if (end < source_.size() && (source_[end] == 'e' || source_[end] == 'E')) {
    ++end;
    if (end < source_.size() && (source_[end] == '+' || source_[end] == '-')) ++end;
    if (end == source_.size() || !IsDigit(source_[end]))
      Fail(source_, end, "expected a digit in the exponent");
    digits();
    integral = false;
  }
  at_ = end;
  const std::string_view text = source_.substr(start, end - start);
  Token token{TokenKind::kNumber, start, text, {}};
  if (integral) {
    std::uint64_t value = 0;
    if (std::from_chars(text.data(), text.data() + text.size(), value).ec == std::errc{}) {
      if (value <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        token.value = static_cast<std::int64_t>(value);
      } else {
        token.value = value;
      }
      return token;
    }
    // Beyond 64 bits: a double, as JSON parsers read it.
  }
  double value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec != std::errc{} || !std::isfinite(value)) {
    Fail(source_, start, "number out of range");
  }
  token.value = value;
  return token;
}

// JSON's strings: the escapes \" \\ \/ \b \f \n \r \t \uXXXX (surrogates
// only in pairs), no raw control characters, well-formed UTF-8.
Token Lexer::String(std::size_t start) {
  std::string value;
  std::size_t at = start + 1;
  while (true) {
    if (at >= source_.size()) Fail(source_, start, "string not closed");
    const auto c = static_cast<unsigned char>(source_[at]);
    if (c == '"') break;
    if (c < 0x20) {
      Fail(source_, at,
           "control character " + CodePointName(c) + " in a string; write it as an escape");
    }
    if (c >= 0x80) {
      const std::size_t length = Utf8SequenceLength(source_, at);
      if (length == 0) Fail(source_, at, "invalid UTF-8");
      value.append(source_.substr(at, length));
      at += length;
      continue;
    }
    if (c != '\\') {
      value.push_back(static_cast<char>(c));
      ++at;
      continue;
    }
    if (at + 1 >= source_.size()) Fail(source_, start, "string not closed");
    const char escape = source_[at + 1];
    static constexpr std::string_view kFrom = "\"\\/bfnrt";
    static constexpr std::string_view kTo = "\"\\/\b\f\n\r\t";
    if (const auto i = kFrom.find(escape); i != std::string_view::npos) {
      value.push_back(kTo[i]);
      at += 2;
      continue;
    }
    if (escape != 'u') {
      Fail(source_, at,
           "invalid escape; a string knows \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX");
    }
    char32_t unit = Hex4(at);
    std::size_t length = 6;
    if (unit >= 0xDC00 && unit <= 0xDFFF)
      Fail(source_, at, "a low surrogate without a high one before it");
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      if (at + 7 >= source_.size() || source_[at + 6] != '\\' || source_[at + 7] != 'u') {
        Fail(source_, at, "a high surrogate without a low one after it");
      }
      const char32_t low = Hex4(at + 6);
      if (low < 0xDC00 || low > 0xDFFF)
        Fail(source_, at, "a high surrogate without a low one after it");
      unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
      length = 12;
    }
    AppendUtf8(value, unit);
    at += length;
  }
  at_ = at + 1;
  return Token{TokenKind::kString, start, source_.substr(start, at_ - start), std::move(value)};
}

char32_t Lexer::Hex4(std::size_t at) {
  char32_t unit = 0;
  for (std::size_t i = at + 2; i < at + 6; ++i) {
    const int digit = i < source_.size() ? HexValue(source_[i]) : -1;
    if (digit < 0) Fail(source_, at, "\\u must be followed by four hexadecimal digits");
    unit = unit * 16 + static_cast<char32_t>(digit);
  }
  return unit;
}

void Lexer::Unexpected(std::size_t at) {
  const auto c = static_cast<unsigned char>(source_[at]);
  if (c >= 0x21 && c < 0x7F)
    Fail(source_, at, std::string("unexpected character '") + source_[at] + "'");
  if (c < 0x80) Fail(source_, at, "unexpected character " + CodePointName(c));
  const std::size_t length = Utf8SequenceLength(source_, at);
  if (length == 0) Fail(source_, at, "invalid UTF-8");
  Fail(source_, at, "unexpected character " + CodePointName(DecodeUtf8(source_, at, length)));
}

}  // namespace chopar::condition::detail
