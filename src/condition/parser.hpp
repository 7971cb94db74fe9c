#pragma once

// The parser of the grammar in docs/conditions.md (internal to the library).

#include "condition/program.hpp"

namespace chopar::condition::detail {

// Parses program.source into program's nodes, top and roots, enforcing the
// bounds of condition.hpp. Throws SyntaxError at the first problem in the
// text. Recursion is bounded by kMaxNesting: each level of parentheses,
// brackets or unary operators costs a fixed number of frames.
void ParseInto(Program& program);

}  // namespace chopar::condition::detail
