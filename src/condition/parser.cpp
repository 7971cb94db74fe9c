#include "condition/parser.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "condition/condition.hpp"
#include "condition/lexer.hpp"
#include "condition/source_text.hpp"

namespace chopar::condition::detail {

namespace {

// The binary operators of the three non-associative levels, from the
// loosest: 0 (== !=), 1 (< <= > >=), 2 (in).
struct BinaryOperator {
  NodeKind kind;
  int level;
};

std::optional<BinaryOperator> BinaryOperatorOf(const Token& token) {
  switch (token.kind) {
    case TokenKind::kEqual:
      return BinaryOperator{NodeKind::kEqual, 0};
    case TokenKind::kNotEqual:
      return BinaryOperator{NodeKind::kNotEqual, 0};
    case TokenKind::kLess:
      return BinaryOperator{NodeKind::kLess, 1};
    case TokenKind::kLessEqual:
      return BinaryOperator{NodeKind::kLessEqual, 1};
    case TokenKind::kGreater:
      return BinaryOperator{NodeKind::kGreater, 1};
    case TokenKind::kGreaterEqual:
      return BinaryOperator{NodeKind::kGreaterEqual, 1};
    case TokenKind::kName:
      if (token.text == "in") return BinaryOperator{NodeKind::kIn, 2};
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

Node MakeNode(NodeKind kind, std::vector<std::uint32_t> operands = {}) {
  Node node;
  node.kind = kind;
  node.operands = std::move(operands);
  return node;
}

Node MakeLiteral(nlohmann::json value) {
  Node node;
  node.literal = std::move(value);
  return node;
}

PathStep MemberStep(std::string key) {
  PathStep step;
  step.key = std::move(key);
  return step;
}

PathStep IndexStep(std::size_t index) {
  PathStep step;
  step.index = index;
  step.is_index = true;
  return step;
}

class Parser {
 public:
  explicit Parser(Program& program) : program_(program), lexer_(program.source) {}

  void Run() {
    Advance();
    program_.top = Or();
    if (token_.kind != TokenKind::kEnd) {
      FailAt(token_.position, "expected an operator or the end, found " + Describe(token_));
    }
  }

 private:
  using Operand = std::uint32_t (Parser::*)();

  // Leaves a nesting level when it goes out of scope.
  class Level {
   public:
    explicit Level(std::size_t& depth) : depth_(depth) {}
    Level(const Level&) = delete;
    Level& operator=(const Level&) = delete;
    ~Level() { --depth_; }

   private:
    std::size_t& depth_;
  };

  std::uint32_t Or() { return Chain(TokenKind::kOr, NodeKind::kOr, &Parser::And); }
  std::uint32_t And() { return Chain(TokenKind::kAnd, NodeKind::kAnd, &Parser::Equality); }
  std::uint32_t Equality() { return Binary(0, &Parser::Comparison); }
  std::uint32_t Comparison() { return Binary(1, &Parser::Membership); }
  std::uint32_t Membership() { return Binary(2, &Parser::Unary); }

  // A chain of one left-associative operator (|| or &&) as one node with
  // every operand, so that evaluating it is a loop, not a recursion.
  std::uint32_t Chain(TokenKind op, NodeKind kind, Operand operand) {
    const std::uint32_t first = (this->*operand)();
    if (token_.kind != op) return first;
    Node node = MakeNode(kind);
    node.operands.push_back(first);
    while (token_.kind == op) {
      Count(token_.position);
      Advance();
      node.operands.push_back((this->*operand)());
    }
    return Add(std::move(node));
  }

  // At most one operator of `level`: `a < b < c` or `a == b != c` reads
  // differently to different people, so it takes parentheses.
  std::uint32_t Binary(int level, Operand operand) {
    const std::uint32_t left = (this->*operand)();
    const auto op = BinaryOperatorOf(token_);
    if (!op || op->level != level) return left;
    const std::string op_text(token_.text);
    Count(token_.position);
    Advance();
    const std::uint32_t right = (this->*operand)();
    if (const auto again = BinaryOperatorOf(token_); again && again->level == level) {
      FailAt(token_.position, "'" + std::string(token_.text) + "' cannot follow '" + op_text +
                                  "' without parentheses");
    }
    return Add(MakeNode(op->kind, {left, right}));
  }

  std::uint32_t Unary() {
    const std::size_t position = token_.position;
    if (token_.kind != TokenKind::kBang && token_.kind != TokenKind::kMinus) return Primary();
    const NodeKind kind = token_.kind == TokenKind::kBang ? NodeKind::kNot : NodeKind::kNegate;
    Count(position);
    Advance();
    if (kind == NodeKind::kNegate && token_.kind == TokenKind::kNumber) {
      // A negative number is one literal: -9223372036854775808 stays an
      // integer, and the operator costs no nesting level.
      Node node = MakeLiteral(NegateNumber(token_.value));
      Advance();
      return Add(std::move(node));
    }
    const Level level = Enter(position);
    const std::uint32_t operand = Unary();
    return Add(MakeNode(kind, {operand}));
  }

  std::uint32_t Primary() {
    const std::size_t position = token_.position;
    switch (token_.kind) {
      case TokenKind::kNumber:
      case TokenKind::kString:
        return Literal(std::move(token_.value));
      case TokenKind::kName:
        if (token_.text == "true") return Literal(true);
        if (token_.text == "false") return Literal(false);
        if (token_.text == "null") return Literal(nullptr);
        if (token_.text == "in") break;
        return Path();
      case TokenKind::kLeftParen: {
        const Level level = Enter(position);
        Advance();
        const std::uint32_t inner = Or();
        Expect(TokenKind::kRightParen, "')'");
        return inner;
      }
      case TokenKind::kLeftBracket:
        return Array();
      default:
        break;
    }
    FailAt(position, "expected a value, found " + Describe(token_));
  }

  std::uint32_t Literal(nlohmann::json value) {
    Count(token_.position);
    Advance();
    return Add(MakeLiteral(std::move(value)));
  }

  std::uint32_t Path() {
    const std::string_view root = token_.text;
    if (std::find(kRoots.begin(), kRoots.end(), root) == kRoots.end()) {
      FailAt(token_.position, "unknown name '" + Shortened(root) +
                                  "'; a path starts with data, user, tenant, notification, steps "
                                  "or step");
    }
    Count(token_.position);
    Node node = MakeNode(NodeKind::kPath);
    node.root = std::string(root);
    auto& roots = program_.roots;
    if (const auto at = std::lower_bound(roots.begin(), roots.end(), node.root);
        at == roots.end() || *at != node.root) {
      roots.insert(at, node.root);
    }
    Advance();
    while (true) {
      if (token_.kind == TokenKind::kDot) {
        Advance();
        if (token_.kind != TokenKind::kName) {
          FailAt(token_.position, "expected a name after '.', found " + Describe(token_));
        }
        node.path.push_back(MemberStep(std::string(token_.text)));
        Advance();
      } else if (token_.kind == TokenKind::kLeftBracket) {
        Advance();
        if (token_.kind == TokenKind::kString) {
          node.path.push_back(MemberStep(token_.value.get<std::string>()));
        } else if (token_.kind == TokenKind::kNumber && token_.value.is_number_integer()) {
          // Never negative: the lexer reads no sign.
          node.path.push_back(IndexStep(token_.value.get<std::size_t>()));
        } else {
          FailAt(token_.position,
                 "expected an index (a whole number from 0) or a quoted name after '[', found " +
                     Describe(token_));
        }
        Advance();
        Expect(TokenKind::kRightBracket, "']'");
      } else {
        AddPath(node);
        return Add(std::move(node));
      }
    }
  }

  // Program::paths: the path as it reads, members after dots and indexes
  // in brackets (`steps[0].outcome`), each once, sorted.
  void AddPath(const Node& node) {
    std::string text = node.root;
    for (const PathStep& step : node.path) {
      if (step.is_index) {
        text += "[" + std::to_string(step.index) + "]";
      } else {
        text += "." + step.key;
      }
    }
    auto& paths = program_.paths;
    if (const auto at = std::lower_bound(paths.begin(), paths.end(), text);
        at == paths.end() || *at != text) {
      paths.insert(at, std::move(text));
    }
  }

  std::uint32_t Array() {
    const std::size_t position = token_.position;
    Count(position);
    const Level level = Enter(position);
    Advance();
    Node node = MakeNode(NodeKind::kArray);
    if (token_.kind != TokenKind::kRightBracket) {
      while (true) {
        node.operands.push_back(Or());
        if (token_.kind == TokenKind::kRightBracket) break;
        if (token_.kind != TokenKind::kComma) {
          FailAt(token_.position, "expected ',' or ']', found " + Describe(token_));
        }
        Advance();
      }
    }
    Advance();
    return Add(std::move(node));
  }

  void Advance() { token_ = lexer_.Next(); }

  void Expect(TokenKind kind, const char* what) {
    if (token_.kind != kind)
      FailAt(token_.position, std::string("expected ") + what + ", found " + Describe(token_));
    Advance();
  }

  void Count(std::size_t position) {
    if (++count_ > kMaxNodes) {
      FailAt(position, "more than " + std::to_string(kMaxNodes) + " values and operators");
    }
  }

  [[nodiscard]] Level Enter(std::size_t position) {
    if (++depth_ > kMaxNesting) {
      FailAt(position, "nested deeper than " + std::to_string(kMaxNesting) + " levels");
    }
    return Level(depth_);
  }

  std::uint32_t Add(Node node) {
    program_.nodes.push_back(std::move(node));
    return static_cast<std::uint32_t>(program_.nodes.size() - 1);
  }

  [[noreturn]] void FailAt(std::size_t position, const std::string& problem) const {
    Fail(program_.source, position, problem);
  }

  // Names and numbers are ASCII: cutting them is safe anywhere.
  static std::string Shortened(std::string_view text) {
    constexpr std::size_t kMost = 24;
    return text.size() <= kMost ? std::string(text)
                                : std::string(text.substr(0, kMost - 3)) + "...";
  }

  static std::string Describe(const Token& token) {
    if (token.kind == TokenKind::kEnd) return "the end";
    if (token.kind == TokenKind::kString) return "a string";
    return "'" + Shortened(token.text) + "'";
  }

  Program& program_;
  Lexer lexer_;
  Token token_;
  std::size_t depth_ = 0;
  std::size_t count_ = 0;
};

}  // namespace

void ParseInto(Program& program) {
  if (program.source.size() > kMaxSourceBytes) {
    Fail(program.source, kMaxSourceBytes,
         "longer than " + std::to_string(kMaxSourceBytes) + " bytes");
  }
  Parser(program).Run();
}

}  // namespace chopar::condition::detail
