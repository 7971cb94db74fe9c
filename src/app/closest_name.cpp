#include "app/closest_name.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace chopar::app {
namespace {

char Lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

bool BeginsWithIgnoringCase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), text.begin(),
                    [](char x, char y) { return Lower(x) == Lower(y); });
}

// "batchsize" for "batch", "api" for "api_key": a word lengthened or cut
// short is a likelier slip than its edit distance says.
bool ExtendsOrShortens(std::string_view name, std::string_view candidate) {
  constexpr std::size_t kMinPrefix = 3;
  const std::string_view shorter = name.size() < candidate.size() ? name : candidate;
  const std::string_view longer = name.size() < candidate.size() ? candidate : name;
  return shorter.size() >= kMinPrefix && BeginsWithIgnoringCase(longer, shorter);
}

}  // namespace

std::size_t EditDistance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic-programming table: the swap looks two rows back.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  std::iota(previous.begin(), previous.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = Lower(a[i - 1]) == Lower(b[j - 1]) ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + substitution});
      if (i > 1 && j > 1 && Lower(a[i - 1]) == Lower(b[j - 2]) &&
          Lower(a[i - 2]) == Lower(b[j - 1])) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::optional<std::size_t> ClosestName(std::string_view name,
                                       const std::vector<std::string>& candidates) {
  const std::size_t near_enough = std::max<std::size_t>(2, name.size() / 3);
  std::optional<std::size_t> best;
  std::size_t best_distance = 0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const std::size_t distance = EditDistance(name, candidates[i]);
    if (distance > near_enough && !ExtendsOrShortens(name, candidates[i])) continue;
    if (!best || distance < best_distance) {
      best = i;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace chopar::app
