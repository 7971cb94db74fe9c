// Mustache texts with partials (src/mustache): any text either parses or
// throws SyntaxError at a place inside it; a text that parses renders
// within its budget or stops with RenderLimitError, the same output every
// time (a parsed text and its partials stay read-only), whatever partials
// (including each other, themselves, standalone and indented) it names.
//
// Input: the text, then up to four partials named a, b, c and d, each
// after a NUL byte.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "mustache/partials.hpp"
#include "mustache/text.hpp"

using namespace chopar;

namespace {

constexpr std::size_t kMaxOutput = 4096;

std::optional<mustache::MustacheText> Parse(std::string_view source) {
  try {
    return mustache::MustacheText(source, mustache::Escaping::kHtml);
  } catch (const mustache::SyntaxError& e) {
    fuzz::Require(e.offset() <= source.size(), "error offset inside the text");
    fuzz::Require(e.line() >= 1 && e.column() >= 1, "error line and column from 1");
    return std::nullopt;
  }
}

// The output, or "!" and the limit that stopped it.
std::string Render(const mustache::MustacheText& text, const mustache::RenderContext& context,
                   const mustache::PartialSource* partials) {
  try {
    std::string out = text.Render(context, mustache::RenderBudget{kMaxOutput, 20'000}, partials);
    fuzz::Require(out.size() <= kMaxOutput, "a finished render is within its budget");
    return out;
  } catch (const mustache::RenderLimitError& e) {
    if (e.limit() == mustache::RenderLimitError::Limit::kOutput)
      fuzz::Require(e.bytes() > kMaxOutput, "an output limit is passed when reported");
    return "!" + std::to_string(static_cast<int>(e.limit()));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = fuzz::AsText(data, size);
  std::vector<std::string_view> pieces;
  for (std::size_t start = 0; pieces.size() < 5;) {
    const std::size_t nul = input.find('\0', start);
    pieces.push_back(input.substr(start, nul == std::string_view::npos ? nul : nul - start));
    if (nul == std::string_view::npos) break;
    start = nul + 1;
  }
  const auto text = Parse(pieces[0]);
  if (!text) return 0;
  std::map<std::string, std::string> sources;
  for (std::size_t i = 1; i < pieces.size(); ++i) {
    if (Parse(pieces[i])) sources[std::string(1, static_cast<char>('a' + i - 1))] = pieces[i];
  }
  const mustache::PartialMap partials(sources);
  static const mustache::RenderContext context(nlohmann::json{
      {"a", {1, 2, 3}}, {"x", "<&>"}, {"o", {{"p", "q\nr"}}}, {"n", nullptr}, {"t", true}});
  const std::string first = Render(*text, context, &partials);
  fuzz::Require(Render(*text, context, &partials) == first, "rendering is deterministic");
  static const mustache::PartialMap kNone({});
  fuzz::Require(Render(*text, context, nullptr) == Render(*text, context, &kNone),
                "no partial source renders as an empty one");
  return 0;
}
