#pragma once

#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kainjow::mustache {
template <typename StringType>
class basic_mustache;
template <typename StringType>
class basic_data;
}  // namespace kainjow::mustache

namespace chopar::mustache {

// How `{{x}}` is written into a target: HTML-escaped (core::HtmlEscape;
// email HTML and Telegram's HTML parse mode) or as it is (plain text).
// `{{{x}}}` and `{{&x}}` are never escaped.
enum class Escaping { kHtml, kNone };

// A template that does not parse: what is wrong and where, as a byte offset
// and a 1-based line and column (columns count code points).
class SyntaxError : public std::runtime_error {
 public:
  SyntaxError(const std::string& what, std::size_t offset, std::size_t line, std::size_t column)
      : std::runtime_error(what), offset_(offset), line_(line), column_(column) {}
  [[nodiscard]] std::size_t offset() const { return offset_; }
  [[nodiscard]] std::size_t line() const { return line_; }
  [[nodiscard]] std::size_t column() const { return column_; }

 private:
  std::size_t offset_, line_, column_;
};

// The most one render may do (MustacheText::Render): `max_output` bytes of
// output, counted as it grows (what the engine holds of the current line
// included), and `max_steps` steps of work, a step being a tag looked up or
// an item of a section entered. A render that passes either is stopped at
// once, so a small template over a small list (nested sections of the same
// list) can neither fill memory nor loop for long without output.
inline constexpr std::size_t kMaxRenderSteps = 100'000;
struct RenderBudget {
  std::size_t max_output = 0;
  std::size_t max_steps = kMaxRenderSteps;
};

// How deep partials may nest ({{> a}} in a text, {{> b}} in a, …): a
// partial that includes itself stops at this depth, with RenderLimitError
// kPartialDepth.
inline constexpr std::size_t kMaxPartialDepth = 10;

// A render stopped by its RenderBudget or by kMaxPartialDepth: which limit,
// and how much it had done and held when stopped (at most one tag's text
// and value, or one line of a partial, past the output limit, one step
// past the step limit).
class RenderLimitError : public std::runtime_error {
 public:
  enum class Limit { kOutput, kSteps, kPartialDepth };
  // what(): "rendered 2001 bytes, more than the 2000 allowed", "stopped at
  // 2100 bytes, more than …", "stopped after 100001 steps (…), more than
  // the 100000 allowed", "partials nested more than 10 deep (…)".
  RenderLimitError(Limit limit, std::size_t allowed, std::size_t bytes, std::size_t steps,
                   bool finished);
  [[nodiscard]] Limit limit() const { return limit_; }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }
  [[nodiscard]] std::size_t steps() const { return steps_; }
  // Whether the render had run to its end (then bytes() is its full size).
  [[nodiscard]] bool finished() const { return finished_; }

 private:
  Limit limit_;
  std::size_t bytes_, steps_;
  bool finished_;
};

// The values a template is rendered with, converted once from JSON and
// shared by every text rendered for one notification. Objects, arrays,
// strings and booleans keep their Mustache meaning; numbers render as JSON
// writes them (85, 1.21); null is falsey and renders as nothing. Immutable;
// safe to share between threads.
class RenderContext {
 public:
  explicit RenderContext(const nlohmann::json& value);
  ~RenderContext();
  RenderContext(RenderContext&&) noexcept;
  RenderContext& operator=(RenderContext&&) noexcept;

  [[nodiscard]] const kainjow::mustache::basic_data<std::string>& data() const { return *data_; }

 private:
  std::unique_ptr<kainjow::mustache::basic_data<std::string>> data_;
};

class MustacheText;
namespace detail {
struct RenderState;
}  // namespace detail

// Where a render finds the partials its {{> name}} tags include (the
// stored partials, PUT /v1/partials/{key}; a test's map). A name it does
// not have renders as nothing, as the spec says.
class PartialSource {
 public:
  virtual ~PartialSource() = default;
  // The partial `name` parsed for `escaping` (a partial is escaped as the
  // text that includes it), or null when there is none. Called while a
  // render runs, from any number of threads at once: it must not block for
  // long, and what it returns must stay alive until that render returns.
  [[nodiscard]] virtual const MustacheText* FindPartial(std::string_view name,
                                                        Escaping escaping) const = 0;
};

// One Mustache template (kainjow's spec-compliant engine: variables,
// sections, inverted sections, comments, set delimiters, partials from a
// PartialSource; lambdas are not offered), parsed once and rendered any
// number of times. Names resolve as the Mustache spec says: a dotted name's
// first part is looked up through the enclosing sections, the rest only
// inside what it found. A partial is rendered in the context of its tag,
// with its own delimiters, and a tag alone on its line indents every line
// of the partial by what precedes the tag (the spec's partials).
//
// Thread safety: rendering only reads the parsed template. The engine
// writes to it only for its own partials and lambdas, which are never
// used: a RenderContext holds neither, and a {{> name}} tag is rendered by
// this class from an already parsed MustacheText (the engine's partial
// lookup is answered during the render and told there is none). So one
// MustacheText may be rendered from any number of threads at once, with or
// without partials.
class MustacheText {
 public:
  // Parses `source`. Throws SyntaxError (unclosed tag or section, a section
  // closed that was not opened, a malformed set-delimiter tag).
  MustacheText(std::string_view source, Escaping escaping);
  ~MustacheText();
  MustacheText(MustacheText&&) noexcept;
  MustacheText& operator=(MustacheText&&) noexcept;

  // Renders with `context` within `budget`, the {{> name}} tags from
  // `partials` (none: they render as nothing). Throws RenderLimitError when
  // the output passes budget.max_output, the work budget.max_steps (an
  // included partial is a step; its work and output count in the same
  // budget), or partials nest deeper than kMaxPartialDepth; what was
  // rendered so far is dropped.
  [[nodiscard]] std::string Render(const RenderContext& context, const RenderBudget& budget,
                                   const PartialSource* partials = nullptr) const;
  [[nodiscard]] const std::string& source() const { return source_; }
  [[nodiscard]] Escaping escaping() const { return escaping_; }

 private:
  friend void IncludePartial(detail::RenderState& state, const MustacheText& partial,
                             std::string_view indent);

  std::string source_;
  Escaping escaping_;
  // Whether the text as rendered (standalone lines taken out) ends in a
  // line without a line break: the line an indented partial's indentation
  // is still owed to when it ends.
  bool last_line_open_ = false;
  std::unique_ptr<kainjow::mustache::basic_mustache<std::string>> compiled_;
};

}  // namespace chopar::mustache
