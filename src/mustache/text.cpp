#include "mustache/text.hpp"

#include <charconv>
#include <functional>
#include <kainjow/mustache.hpp>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "core/encoding.hpp"

namespace chopar::mustache {
namespace {

namespace engine = kainjow::mustache;

engine::data ToData(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object: {
      engine::data object(engine::data::type::object);
      for (const auto& [key, member] : value.items()) object.set(key, ToData(member));
      return object;
    }
    case nlohmann::json::value_t::array: {
      engine::data list(engine::data::type::list);
      for (const auto& item : value) list.push_back(ToData(item));
      return list;
    }
    case nlohmann::json::value_t::string:
      return engine::data(value.get_ref<const std::string&>());
    case nlohmann::json::value_t::boolean:
      return engine::data(value.get<bool>());
    case nlohmann::json::value_t::null:
    case nlohmann::json::value_t::discarded:
      // Falsey in a section, nothing when interpolated.
      return engine::data(false);
    default:
      return engine::data(value.dump());
  }
}

using Engine = engine::basic_mustache<std::string>;

// What one render has done and holds, checked at every step against its
// budget. `held` is the engine's line buffer: kainjow collects a line
// before it hands it to the sink, so a line with no end could otherwise
// grow without bound unseen.
class Meter {
 public:
  Meter(const RenderBudget& budget, const std::string& sent) : budget_(budget), sent_(sent) {}
  void Hold(const std::string* held) { held_ = held; }

  void Step() {
    if (++steps_ > budget_.max_steps) {
      throw RenderLimitError(RenderLimitError::Limit::kSteps, budget_.max_steps, Bytes(), steps_,
                             false);
    }
    CheckOutput(false);
  }
  void CheckOutput(bool finished) const {
    if (const std::size_t bytes = Bytes(); bytes > budget_.max_output)
      throw RenderLimitError(RenderLimitError::Limit::kOutput, budget_.max_output, bytes, steps_,
                             finished);
  }
  [[noreturn]] void TooDeep() const {
    throw RenderLimitError(RenderLimitError::Limit::kPartialDepth, kMaxPartialDepth, Bytes(),
                           steps_, false);
  }

 private:
  std::size_t Bytes() const { return sent_.size() + (held_ != nullptr ? held_->size() : 0); }

  const RenderBudget& budget_;
  const std::string& sent_;
  const std::string* held_ = nullptr;
  std::size_t steps_ = 0;
};

// kainjow keeps its line buffer in a context_internal that only its private
// render takes. An explicit instantiation may name a private member
// ([temp.spec.general]/6): this names that render once, here, so that the
// Meter can read the buffer.
using PrivateRender = void (Engine::*)(const Engine::render_handler&,
                                       engine::context_internal<std::string>&, bool);
PrivateRender RenderWithLineBuffer();
template <PrivateRender kMember>
struct PrivateRenderAccess {
  friend PrivateRender RenderWithLineBuffer() { return kMember; }
};
template struct PrivateRenderAccess<&Engine::render>;

// A standalone {{> name}} tag is written for the engine as {{>name␟ss}}:
// the name, then kIndentMark and its indentation, a letter a character
// (s: space, t: tab, r: carriage return), which the engine keeps as part
// of the name (it trims only white space) and hands to the partial lookup.
constexpr char kIndentMark = '\x1f';

std::string EncodeIndent(std::string_view indent) {
  std::string encoded;
  for (char c : indent) encoded += c == '\t' ? 't' : c == '\r' ? 'r' : 's';
  return encoded;
}

// The partial's name and the indentation of its tag ("" for a tag that is
// not alone on its line).
std::pair<std::string_view, std::string> PartialTag(std::string_view tag) {
  const auto mark = tag.find(kIndentMark);
  if (mark == std::string_view::npos) return {tag, {}};
  std::string indent;
  for (char c : tag.substr(mark + 1)) indent += c == 't' ? '\t' : c == 'r' ? '\r' : ' ';
  return {tag.substr(0, mark), std::move(indent)};
}

// The name lookup of the Mustache spec. kainjow's own context, after finding
// a dotted name's first part, falls back to outer sections when a later part
// is missing; the spec ("Dotted Names - Context Precedence") says the name
// then resolves to nothing.
class SpecContext final : public engine::basic_context<std::string> {
 public:
  // Every tag looked up and every section item entered is a step of
  // `meter`. {{> name}} tags are rendered by `include` (see get_partial).
  SpecContext(const engine::data* root, Meter& meter,
              std::function<void(const std::string&)> include)
      : meter_(meter), include_(std::move(include)) {
    stack_.push_back(root);
  }

  void push(const engine::data* data) override {
    meter_.Step();
    stack_.push_back(data);
  }
  void pop() override { stack_.pop_back(); }

  const engine::data* get(const std::string& name) const override {
    meter_.Step();
    if (name == ".") return stack_.back();
    const auto dot = name.find('.');
    const std::string first = name.substr(0, dot);
    const engine::data* found = nullptr;
    for (auto it = stack_.rbegin(); it != stack_.rend() && found == nullptr; ++it) {
      found = (*it)->get(first);
    }
    for (std::size_t at = dot; found != nullptr && at != std::string::npos;) {
      const auto next = name.find('.', at + 1);
      found = found->get(
          name.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1));
      at = next;
    }
    return found;
  }

  // The engine asks for a {{>name}} tag's partial here, at the tag, and
  // would parse and render what it is given, writing to the parsed
  // template shared between threads. Instead the partial, parsed already,
  // is rendered here, into the same line buffer and output, and the engine
  // is told there is none: it renders nothing more for the tag.
  const engine::data* get_partial(const std::string& name) const override {
    meter_.Step();
    include_(name);
    return nullptr;
  }

 private:
  Meter& meter_;
  std::function<void(const std::string&)> include_;
  std::vector<const engine::data*> stack_;
};

// kainjow reports "… at <offset>"; the offset is the last number.
std::size_t OffsetIn(const std::string& message) {
  const auto at = message.rfind(" at ");
  std::size_t offset = 0;
  if (at != std::string::npos) {
    std::from_chars(message.data() + at + 4, message.data() + message.size(), offset);
  }
  return offset;
}

bool IsBlank(std::string_view text) {
  return text.find_first_not_of(" \t\r") == std::string_view::npos;
}

// "=<% %>=" → the new opening and closing delimiters; nullopt if malformed
// (the parser reports it).
std::optional<std::pair<std::string, std::string>> NewDelimiters(std::string_view content) {
  if (content.size() < 5 || content.back() != '=') return std::nullopt;
  content = content.substr(1, content.size() - 2);
  const auto begin = content.find_first_not_of(' ');
  const auto space = content.find(' ', begin);
  const auto end = content.find_first_not_of(' ', space);
  const auto last = content.find_last_not_of(' ');
  if (begin == std::string_view::npos || space == std::string_view::npos ||
      end == std::string_view::npos) {
    return std::nullopt;
  }
  return std::pair{std::string(content.substr(begin, space - begin)),
                   std::string(content.substr(end, last + 1 - end))};
}

// kainjow treats only section tags as standalone; the spec also removes the
// line around a comment or a set-delimiter tag that stands alone on it
// (leading blanks, the tag's own line break). This pass does that before
// parsing: a standalone comment goes with its line, a standalone
// set-delimiter tag keeps only the tag. Everything else is copied as it is;
// a tag that never closes stops the pass (the parser reports it).
std::string WithoutStandaloneLines(std::string_view source) {
  std::string open = "{{", close = "}}";
  std::string out;
  out.reserve(source.size());
  std::size_t pos = 0;
  std::size_t last_tag_end = 0;
  while (pos < source.size()) {
    const auto start = source.find(open, pos);
    if (start == std::string_view::npos) break;
    out.append(source.substr(pos, start - pos));
    const bool triple = open == "{{" && source.compare(start + 2, 1, "{") == 0;
    const std::string_view closing = triple ? std::string_view("}}}") : std::string_view(close);
    const auto content_at = start + open.size() + (triple ? 1 : 0);
    const auto end_at = source.find(closing, content_at);
    if (end_at == std::string_view::npos) {
      pos = start;
      break;
    }
    const std::size_t tag_end = end_at + closing.size();
    std::string_view content = source.substr(content_at, end_at - content_at);
    while (!content.empty() && (content.front() == ' ' || content.front() == '\t'))
      content.remove_prefix(1);
    while (!content.empty() && (content.back() == ' ' || content.back() == '\t'))
      content.remove_suffix(1);
    const char kind = triple || content.empty() ? '\0' : content.front();
    const std::string_view tag = source.substr(start, tag_end - start);
    pos = tag_end;

    if (kind == '!' || kind == '=' || kind == '>') {
      const auto newline_before = source.rfind('\n', start == 0 ? 0 : start - 1);
      const std::size_t line_begin =
          start == 0 || newline_before == std::string_view::npos ? 0 : newline_before + 1;
      const auto newline_after = source.find('\n', tag_end);
      const std::size_t line_end =
          newline_after == std::string_view::npos ? source.size() : newline_after;
      const bool alone = last_tag_end <= line_begin &&
                         IsBlank(source.substr(line_begin, start - line_begin)) &&
                         IsBlank(source.substr(tag_end, line_end - tag_end));
      if (alone) {
        out.resize(out.size() - (start - line_begin));
        if (kind == '=') out.append(tag);
        if (kind == '>') {
          // The engine reads the tag again with these delimiters.
          std::string_view name = content.substr(1);
          while (!name.empty() && (name.front() == ' ' || name.front() == '\t'))
            name.remove_prefix(1);
          out += open;
          out += '>';
          out += name;
          if (start > line_begin) {
            out += kIndentMark;
            out += EncodeIndent(source.substr(line_begin, start - line_begin));
          }
          out += close;
        }
        pos = newline_after == std::string_view::npos ? source.size() : newline_after + 1;
      } else {
        out.append(tag);
      }
      if (kind == '=') {
        const auto delimiters = NewDelimiters(content);
        if (!delimiters) return std::string(source);
        std::tie(open, close) = *delimiters;
      }
    } else {
      out.append(tag);
    }
    last_tag_end = pos;
  }
  out.append(source.substr(pos));
  return out;
}

std::string LimitMessage(RenderLimitError::Limit limit, std::size_t allowed, std::size_t bytes,
                         std::size_t steps, bool finished) {
  std::string done;
  if (limit == RenderLimitError::Limit::kSteps) {
    done = "stopped after " + std::to_string(steps) +
           " steps (tags looked up and section items entered)";
  } else if (limit == RenderLimitError::Limit::kPartialDepth) {
    return "partials nested more than " + std::to_string(allowed) +
           " deep (a partial that includes itself without end?)";
  } else {
    done = (finished ? "rendered " : "stopped at ") + std::to_string(bytes) + " bytes";
  }
  return done + ", more than the " + std::to_string(allowed) + " allowed";
}

}  // namespace

RenderLimitError::RenderLimitError(Limit limit, std::size_t allowed, std::size_t bytes,
                                   std::size_t steps, bool finished)
    : std::runtime_error(LimitMessage(limit, allowed, bytes, steps, finished)),
      limit_(limit),
      bytes_(bytes),
      steps_(steps),
      finished_(finished) {}

RenderContext::RenderContext(const nlohmann::json& value)
    : data_(std::make_unique<engine::data>(ToData(value))) {}
RenderContext::~RenderContext() = default;
RenderContext::RenderContext(RenderContext&&) noexcept = default;
RenderContext& RenderContext::operator=(RenderContext&&) noexcept = default;

MustacheText::MustacheText(std::string_view source, Escaping escaping)
    : source_(source), escaping_(escaping), compiled_(std::make_unique<engine::mustache>(source_)) {
  if (!compiled_->is_valid()) {
    const std::string& message = compiled_->error_message();
    const std::size_t offset = std::min(OffsetIn(message), source_.size());
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < offset; ++i) {
      const auto c = static_cast<unsigned char>(source_[i]);
      if (c == '\n') {
        ++line;
        column = 1;
      } else if ((c & 0xC0) != 0x80) {
        ++column;
      }
    }
    throw SyntaxError(message.substr(0, message.rfind(" at ")) + " at line " +
                          std::to_string(line) + ", column " + std::to_string(column),
                      offset, line, column);
  }
  // Errors were reported against the source as written; what is rendered
  // is the same template with its standalone lines taken out.
  bool open = !source_.empty() && source_.back() != '\n';
  if (auto stripped = WithoutStandaloneLines(source_); stripped != source_) {
    auto rendered = std::make_unique<engine::mustache>(stripped);
    if (rendered->is_valid()) {
      compiled_ = std::move(rendered);
      open = !stripped.empty() && stripped.back() != '\n';
    }
  }
  last_line_open_ = open;
  if (escaping_ == Escaping::kHtml) {
    compiled_->set_custom_escape([](const std::string& text) { return core::HtmlEscape(text); });
  } else {
    compiled_->set_custom_escape([](const std::string& text) { return text; });
  }
}

MustacheText::~MustacheText() = default;
MustacheText::MustacheText(MustacheText&&) noexcept = default;
MustacheText& MustacheText::operator=(MustacheText&&) noexcept = default;

namespace detail {

// One render's state, shared by the text rendered and every partial it
// includes: the budget's meter, the engine's context (its line buffer, the
// sections entered), where finished lines go now (the output, or an
// indenting partial's handler in front of it), and how deep partials nest.
struct RenderState {
  Meter& meter;
  const PartialSource* partials;
  Escaping escaping;
  engine::context_internal<std::string>* engine_context = nullptr;
  const Engine::render_handler* handler = nullptr;
  std::size_t depth = 0;
};

}  // namespace detail

void IncludePartial(detail::RenderState& state, const MustacheText& partial,
                    std::string_view indent) {
  if (state.depth == kMaxPartialDepth) state.meter.TooDeep();
  std::string& line = state.engine_context->line_buffer.data;
  const Engine::render_handler* const outer = state.handler;
  ++state.depth;
  // Put back even when the render is stopped (the exception ends it, but
  // the state stays coherent).
  struct Restore {
    detail::RenderState& state;
    const Engine::render_handler* outer;
    ~Restore() {
      state.handler = outer;
      --state.depth;
    }
  } restore{state, outer};
  if (indent.empty()) {
    (partial.compiled_.get()->*RenderWithLineBuffer())(*outer, *state.engine_context, false);
    return;
  }
  // "Each line of the partial should be indented before rendering": the
  // first line's indentation goes into the line being built; each later
  // line gets it as the engine hands the line on (a finished line comes as
  // two pieces, its text and its line break); a last line without a break,
  // still being built when the partial ends, gets it then. Lines of an
  // interpolated value are not the partial's lines and stay as they are.
  line.append(indent);
  bool expect_break = false;
  bool owed = false;
  const Engine::render_handler indenting = [&](const std::string& piece) {
    if (expect_break) {
      (*outer)(piece);
      owed = true;
    } else if (owed) {
      (*outer)(std::string(indent) + piece);
    } else {
      (*outer)(piece);
    }
    expect_break = !expect_break;
    // Indentation multiplies a partial's lines: check each one.
    state.meter.CheckOutput(false);
  };
  state.handler = &indenting;
  (partial.compiled_.get()->*RenderWithLineBuffer())(indenting, *state.engine_context, false);
  if (owed && partial.last_line_open_) line.insert(0, indent);
}

std::string MustacheText::Render(const RenderContext& context, const RenderBudget& budget,
                                 const PartialSource* partials) const {
  // kainjow's own string render goes through a std::ostringstream, whose
  // construction costs more than rendering a short text: this is on the
  // notify path, so the pieces are appended to a string instead.
  std::string out;
  Meter meter(budget, out);
  detail::RenderState state{meter, partials, escaping_};
  SpecContext scope(&context.data(), meter, [&state](const std::string& tag) {
    if (state.partials == nullptr) return;
    const auto [name, indent] = PartialTag(tag);
    const MustacheText* partial = state.partials->FindPartial(name, state.escaping);
    if (partial != nullptr && !partial->source().empty()) IncludePartial(state, *partial, indent);
  });
  engine::context_internal<std::string> engine_context{scope};
  meter.Hold(&engine_context.line_buffer.data);
  // A piece handed to the sink leaves the line buffer: the total is checked
  // at the next step and at the end.
  const Engine::render_handler sink = [&out](const std::string& piece) { out += piece; };
  state.engine_context = &engine_context;
  state.handler = &sink;
  (compiled_.get()->*RenderWithLineBuffer())(sink, engine_context, true);
  meter.Hold(nullptr);
  meter.CheckOutput(true);
  return out;
}

}  // namespace chopar::mustache
