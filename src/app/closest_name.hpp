#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace chopar::app {

// The optimal string alignment distance between `a` and `b`, ignoring ASCII
// case: how many insertions, deletions, substitutions and swaps of two
// neighbouring characters turn one into the other (each counts 1, and no
// substring is edited twice). Pure.
std::size_t EditDistance(std::string_view a, std::string_view b);

// The candidate a mistyped `name` most likely meant, for "did you mean …?":
// of the candidates at most max(2, name.size() / 3) edits away, or of which
// `name` is an extension or a shortening (one begins with the other, the
// shorter having at least 3 characters), the one with the smallest
// EditDistance; the first of equals. Returns its index in `candidates`, or
// nullopt when no candidate is that near. Pure.
std::optional<std::size_t> ClosestName(std::string_view name,
                                       const std::vector<std::string>& candidates);

}  // namespace chopar::app
