#pragma once

// The tokens of a condition, read one at a time so that the first error in
// the text is the one reported (internal to the library).

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

namespace chopar::condition::detail {

enum class TokenKind : std::uint8_t {
  kEnd,
  kName,    // [A-Za-z_][A-Za-z0-9_]*, keywords included (true false null in)
  kNumber,  // value: int64, uint64 above int64's range, or double
  kString,  // value: the decoded string
  kLeftParen,
  kRightParen,
  kLeftBracket,
  kRightBracket,
  kComma,
  kDot,
  kBang,
  kMinus,
  kOr,
  kAnd,
  kEqual,
  kNotEqual,
  kLess,
  kLessEqual,
  kGreater,
  kGreaterEqual,
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::size_t position = 0;  // byte offset of its first byte
  std::string_view text;     // as written (a view into the source)
  nlohmann::json value;      // kNumber, kString
};

class Lexer {
 public:
  // `source` must outlive the lexer and the tokens it returns.
  explicit Lexer(std::string_view source) : source_(source) {}

  // The next token after blanks; kEnd at the end, and again after it.
  // Throws SyntaxError for text that is no token (with its position).
  Token Next();

 private:
  Token Number(std::size_t start);
  Token String(std::size_t start);
  // Reads \uXXXX at source_[at] (the backslash); the code unit.
  char32_t Hex4(std::size_t at);
  [[noreturn]] void Unexpected(std::size_t at);

  std::string_view source_;
  std::size_t at_ = 0;
};

}  // namespace chopar::condition::detail
