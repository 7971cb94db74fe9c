#pragma once

// The parsed form of a condition (internal to the library): a tree of nodes
// kept in one vector, each node's operands before it, referred to by index.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace chopar::condition::detail {

enum class NodeKind : std::uint8_t {
  kLiteral,  // literal
  kPath,     // path
  kArray,    // operands: the elements
  kNot,      // operands: 1
  kNegate,   // operands: 1
  kOr,       // operands: 2 or more, evaluated left to right until one is truthy
  kAnd,      // operands: 2 or more, until one is falsy
  kEqual,    // operands: 2, and so for every comparison
  kNotEqual,
  kLess,
  kLessEqual,
  kGreater,
  kGreaterEqual,
  kIn,
};

// One step of a path after its root: `.name` or `["name"]` (a member), `[3]`
// (an element).
struct PathStep {
  std::string key;
  std::size_t index = 0;
  bool is_index = false;
};

struct Node {
  NodeKind kind = NodeKind::kLiteral;
  nlohmann::json literal;               // kLiteral
  std::string root;                     // kPath: "data", "user", …
  std::vector<PathStep> path;           // kPath: what follows the root
  std::vector<std::uint32_t> operands;  // indexes into Program::nodes
};

struct Program {
  std::string source;
  std::vector<Node> nodes;
  std::uint32_t top = 0;           // the whole condition's node
  std::vector<std::string> roots;  // sorted, each once
  std::vector<std::string> paths;  // Condition::paths
};

// -number, exact for every integer JSON holds: the negative of an unsigned
// above 2^63 is a double, -(-2^63) is the unsigned 2^63. `number` must be a
// number.
nlohmann::json NegateNumber(const nlohmann::json& number) noexcept;

// The program's value over `context` (Condition::Evaluate).
bool Evaluate(const Program& program, const nlohmann::json& context) noexcept;

}  // namespace chopar::condition::detail
